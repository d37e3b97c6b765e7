/**
 * The log scoring pipeline, shared by `cli.ts batch`, `POST /batch` and the playground:
 * traces in, scored batches out, in input order. With up to `depth` batches in flight, reading,
 * scoring and the caller's writing overlap, and memory holds at most `depth + 1` batches.
 *
 * @module
 */

import type { Model } from "../bundle/mod.ts";
import { type ScoredRows, scoreRows } from "../ops/anomaly_rows.ts";
import type { PackedInputs, PackedOutputs } from "../runtime/mod.ts";
import type { Trace, TraceEvent } from "../event_log/mod.ts";
import { type PackedRows, TracePacker } from "./trace_packer.ts";

/** Traces read between two calls of {@link ScoreBatchesOptions.pause}. */
export const PAUSE_EVERY = 64;

/** Failed trace indices a tally keeps for a summary line. */
const LISTED_FAILURES = 5;

/** Which traces of the log to score (by index); `cli.ts batch --shard` gives one. */
export interface TraceFilter {
  /** Whether trace `index` is scored. */
  has(index: number): boolean;
}

/** Options of {@link scoreBatches}. */
export interface ScoreBatchesOptions {
  /** Traces to score per model run. */
  readonly batchSize: number;
  /** Batches in flight at once (scoring while the next is read); asked again after each batch. */
  readonly depth: number | (() => number);
  /**
   * Which traces to score.
   * @default all
   */
  readonly shard?: TraceFilter | undefined;
  /** Stops the run (between batches) when aborted. */
  readonly signal?: AbortSignal | undefined;
  /** Hand each batch on as soon as it is scored (a server streaming from a slow upload). */
  readonly eager?: boolean | undefined;
  /** Called at once when the run fails, before the batches in flight settle. */
  readonly onFailure?: ((error: unknown) => void) | undefined;
  /**
   * Runs one batch's packed rows; a server passes its own, with the request's signal.
   * @default the model's session, without gradients
   */
  readonly run?: ((inputs: PackedInputs) => Promise<PackedOutputs>) | undefined;
  /** Awaited every {@link PAUSE_EVERY} traces read, so a log does not hold a server's thread. */
  readonly pause?: (() => Promise<void> | undefined) | undefined;
}

/** Counts of a finished run. */
export interface Tally {
  /** Traces read from the log. */
  read: number;
  /** Traces handed on (the traces of the shard). */
  traces: number;
  /** Traces whose input specs failed (error entries). */
  errors: number;
  /** The first failed trace indices, at most five. */
  readonly failed: number[];
}

/**
 * One batch of traces, scored, in input order: per trace its index, attributes, events and
 * either its error entry text or its row of `scored` (the traces without an error, in order).
 */
export interface ScoredBatch {
  readonly indices: readonly number[];
  readonly attributes: readonly ReadonlyMap<string, string>[];
  /** Error entry text, or undefined for a trace that has the next row of `scored`. */
  readonly errors: readonly (string | undefined)[];
  /** Every trace's events (scored or not). */
  readonly events: readonly (readonly TraceEvent[])[];
  /** The rows' scores: row `r` is the `r`-th trace without an error. */
  readonly scored: ScoredRows;
}

/**
 * Scores the traces `options.shard` takes and hands them to `onBatch` a batch at a time, in
 * input order, awaiting it before the next; returns the counts.
 */
export async function scoreBatches(
  model: Model,
  traces: AsyncIterable<Trace> | Iterable<Trace>,
  onBatch: (batch: ScoredBatch) => Promise<void> | void,
  options: ScoreBatchesOptions,
): Promise<Tally> {
  const { shard, signal, pause } = options;
  const tally: Tally = { read: 0, traces: 0, errors: 0, failed: [] };
  const run = options.run ??
    ((inputs: PackedInputs) => model.session.runPacked(inputs, { withGradient: false }));
  const batch = new EntryBatch(model, options.batchSize, tally, run);
  const inFlight: Submitted[] = [];
  const { depth } = options;
  const depthOf = typeof depth === "number" ? () => depth : depth;
  const hand = async (submitted: Submitted) => {
    const outputs = await submitted.outputs;
    await onBatch({
      indices: submitted.indices,
      attributes: submitted.attributes,
      errors: submitted.errors,
      events: submitted.events,
      scored: scoreRows(model, outputs.transitions, submitted.rowEvents),
    });
  };
  // Eager: each batch is handed on once scored, in order, while the next ones are read.
  let handing: Promise<void> = Promise.resolve();
  const handed: Promise<void>[] = [];
  const submit = () => {
    const submitted = batch.submit();
    inFlight.push(submitted);
    if (options.eager) handed.push(quiet(handing = handing.then(() => hand(submitted))));
  };
  const drainOne = async () => {
    const submitted = inFlight.shift()!;
    await (options.eager ? handed.shift() : hand(submitted));
  };
  try {
    for await (const trace of traces) {
      const index = tally.read++;
      if (pause !== undefined && index % PAUSE_EVERY === PAUSE_EVERY - 1) {
        const paused = pause();
        if (paused !== undefined) await paused;
      }
      if (shard && !shard.has(index)) continue;
      if (!batch.add(trace, index)) continue;
      signal?.throwIfAborted();
      submit();
      while (inFlight.length > depthOf()) await drainOne();
    }
    submit();
    while (inFlight.length > 0) await drainOne();
  } catch (error) {
    options.onFailure?.(error);
    throw error;
  } finally {
    // Let scoring still in flight settle, so nothing rejects unobserved after a failure.
    await Promise.allSettled([...inFlight.map((s) => s.outputs), handing]);
  }
  return tally;
}

/** Marks a promise as observed (it is awaited later), so an early rejection is not fatal. */
function quiet<T>(promise: Promise<T>): Promise<T> {
  promise.catch(() => {});
  return promise;
}

/** A batch handed to the model, with the run's outputs to come. */
interface Submitted {
  readonly indices: readonly number[];
  readonly attributes: readonly ReadonlyMap<string, string>[];
  readonly errors: readonly (string | undefined)[];
  readonly events: readonly (readonly TraceEvent[])[];
  /** The events of the traces that have a row. */
  readonly rowEvents: readonly (readonly TraceEvent[])[];
  readonly outputs: Promise<PackedOutputs>;
}

/** The traces read since the last submit, packed as they come; full at `size` rows or 2×`size`. */
class EntryBatch {
  readonly #packer: TracePacker;
  #rows: PackedRows;
  #count = 0;
  #indices: number[] = [];
  #attributes: ReadonlyMap<string, string>[] = [];
  #errors: (string | undefined)[] = [];
  #events: (readonly TraceEvent[])[] = [];
  #rowEvents: (readonly TraceEvent[])[] = [];

  constructor(
    readonly model: Model,
    readonly size: number,
    readonly tally: Tally,
    readonly run: (inputs: PackedInputs) => Promise<PackedOutputs>,
  ) {
    this.#packer = new TracePacker(model);
    this.#rows = this.#packer.rows(size);
  }

  /** Adds trace `index`; true when the batch is full. */
  add(trace: Trace, index: number): boolean {
    const error = this.#packer.pack(trace, index, this.#rows, this.#count);
    this.tally.traces++;
    if (error !== undefined) {
      this.tally.errors++;
      if (this.tally.failed.length < LISTED_FAILURES) this.tally.failed.push(index);
    } else {
      this.#count++;
      this.#rowEvents.push(trace.events);
    }
    this.#indices.push(index);
    this.#attributes.push(trace.attributes);
    this.#errors.push(error);
    this.#events.push(trace.events);
    return this.#count >= this.size || this.#indices.length >= 2 * this.size;
  }

  /** Hands the packed rows to the model in one run; starts a new batch. */
  submit(): Submitted {
    const inputs = this.#packer.inputs(this.#rows, this.#count);
    const submitted = {
      indices: this.#indices,
      attributes: this.#attributes,
      errors: this.#errors,
      events: this.#events,
      rowEvents: this.#rowEvents,
      outputs: quiet(this.run(inputs)),
    };
    // The run may still read the arrays: the next batch gets its own.
    this.#rows = this.#packer.rows(this.size);
    this.#count = 0;
    this.#indices = [];
    this.#attributes = [];
    this.#errors = [];
    this.#events = [];
    this.#rowEvents = [];
    return submitted;
  }
}
