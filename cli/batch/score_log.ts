/**
 * The scoring pipeline of `batch`: traces in, entries out, in input order. Traces are
 * resolved against the model's input specs and gathered into batches; each batch is handed
 * to the model (an ORT session, in a worker when the runtime runs there) and the next batch
 * is read while it runs. Up to `depth` batches are in flight; the oldest is formatted and
 * written when it is done, and its write overlaps the reading and scoring of the next ones.
 * So reading and parsing, scoring and formatting overlap, and memory holds at most
 * `depth + 1` batches however long the log.
 *
 * @example
 * ```ts
 * import { scoreLog } from "./score_log.ts";
 * import { entryLayout } from "./entry_layout.ts";
 * import { openEntrySink } from "./entry_sink.ts";
 * import { Shard } from "./shard.ts";
 * declare const model: import("../../core/bundle.ts").Model;
 * declare const traces: AsyncIterable<import("../../core/traces/mod.ts").Trace>;
 * const layout = entryLayout("json");
 * const sink = openEntrySink(undefined, layout, (text) => console.log(text));
 * const tally = await scoreLog(model, traces, sink, {
 *   batchSize: 256,
 *   depth: 2,
 *   shard: Shard.ALL,
 *   layout,
 * });
 * tally.read; // traces in the log
 * ```
 *
 * @module
 */

import type { Model } from "../../core/bundle.ts";
import { type AnomalyRequest, type AnomalyResponse, scoreTraces } from "../../core/ops/anomaly.ts";
import {
  type InputSpec,
  resolveTraceInputs,
  SpecError,
  specErrorEntry,
  type Trace,
} from "../../core/traces/mod.ts";
import type { EntryLayout } from "./entry_layout.ts";
import type { EntrySink } from "./entry_sink.ts";
import type { Shard } from "./shard.ts";

/** Failed trace indices a tally keeps for the summary line. */
const LISTED_FAILURES = 5;

/** Options of {@link scoreLog}. */
export interface ScoreLogOptions {
  /** Traces to score per model run. */
  readonly batchSize: number;
  /** Batches in flight at once (scoring while the next is read). */
  readonly depth: number;
  /** Which traces to score. */
  readonly shard: Shard;
  /** How entries are written. */
  readonly layout: EntryLayout;
  /** Stops the run (between batches) when aborted. */
  readonly signal?: AbortSignal | undefined;
  /** Called with the number of entries written so far, after each batch. */
  readonly onProgress?: ((entries: number) => void) | undefined;
}

/** Counts of a finished run. */
export interface Tally {
  /** Traces read from the log. */
  read: number;
  /** Entries written (the traces of the shard). */
  traces: number;
  /** Entries that are errors. */
  errors: number;
  /** The first failed trace indices, at most five. */
  readonly failed: number[];
}

/**
 * Scores the traces of `shard` and writes their entries to `sink` in input order; returns the
 * counts. The sink is neither closed nor aborted here.
 *
 * @example
 * ```ts
 * import { scoreLog } from "./score_log.ts";
 * declare const model: import("../../core/bundle.ts").Model;
 * declare const options: import("./score_log.ts").ScoreLogOptions;
 * declare const sink: import("./entry_sink.ts").EntrySink;
 * (await scoreLog(model, [], sink, options)).traces; // 0
 * ```
 */
export async function scoreLog(
  model: Model,
  traces: AsyncIterable<Trace> | Iterable<Trace>,
  sink: EntrySink,
  options: ScoreLogOptions,
): Promise<Tally> {
  const { shard, layout, signal } = options;
  const tally: Tally = { read: 0, traces: 0, errors: 0, failed: [] };
  const batch = new EntryBatch(model, options.batchSize, tally);
  const inFlight: Scored[] = [];
  let writing: Promise<void> = Promise.resolve();
  const drainOne = async () => {
    const { slots, answers } = inFlight.shift()!;
    const texts = entryTexts(layout, slots, await answers);
    await writing;
    writing = quiet(sink.write(texts));
    options.onProgress?.(tally.traces);
  };
  try {
    for await (const trace of traces) {
      const index = tally.read++;
      if (!shard.has(index)) continue;
      if (!batch.add(trace, index)) continue;
      signal?.throwIfAborted();
      inFlight.push(batch.submit());
      while (inFlight.length > options.depth) await drainOne();
    }
    inFlight.push(batch.submit());
    while (inFlight.length > 0) await drainOne();
    await writing;
  } finally {
    // Let scoring still in flight settle, so nothing rejects unobserved after a failure.
    await Promise.allSettled([...inFlight.map((s) => s.answers), writing]);
  }
  return tally;
}

/** Marks a promise as observed (it is awaited later), so an early rejection is not fatal. */
function quiet<T>(promise: Promise<T>): Promise<T> {
  promise.catch(() => {});
  return promise;
}

/** One trace waiting for its batch: its inputs (to score) or its error entry. */
interface Slot {
  readonly index: number;
  readonly attributes: ReadonlyMap<string, string>;
  readonly request?: AnomalyRequest;
  readonly error?: string;
}

/** A batch handed to the model: its slots and the answers to come. */
interface Scored {
  readonly slots: readonly Slot[];
  readonly answers: Promise<AnomalyResponse[]>;
}

function entryTexts(
  layout: EntryLayout,
  slots: readonly Slot[],
  answers: readonly AnomalyResponse[],
): string[] {
  let next = 0;
  return slots.map((slot) =>
    slot.request === undefined
      ? layout.failed(slot.index, slot.attributes, slot.error!)
      : layout.scored(slot.index, slot.attributes, answers[next++]!)
  );
}

/**
 * The traces read since the last submit, in input order. It is full when it holds `size`
 * traces to score, or twice that many slots (a run of failing traces must not grow it).
 */
class EntryBatch {
  #slots: Slot[] = [];
  #requests: AnomalyRequest[] = [];
  readonly #markingSpec: InputSpec;
  readonly #valuesSpec: InputSpec;
  readonly #places: ReadonlyMap<string, number>;

  constructor(readonly model: Model, readonly size: number, readonly tally: Tally) {
    this.#markingSpec = model.inputMarkingSpec;
    this.#valuesSpec = model.inputValuesSpec;
    this.#places = model.placeIndex;
  }

  /** Adds trace `index`; true when the batch is full. */
  add(trace: Trace, index: number): boolean {
    const slot = this.#resolve(trace, index);
    this.tally.traces++;
    if (slot.error !== undefined) {
      this.tally.errors++;
      if (this.tally.failed.length < LISTED_FAILURES) this.tally.failed.push(index);
    }
    this.#slots.push(slot);
    if (slot.request) this.#requests.push(slot.request);
    return this.#requests.length >= this.size || this.#slots.length >= 2 * this.size;
  }

  /** Hands the pending traces to the model in one run; empties the batch. */
  submit(): Scored {
    const scored = { slots: this.#slots, answers: quiet(scoreTraces(this.model, this.#requests)) };
    this.#slots = [];
    this.#requests = [];
    return scored;
  }

  #resolve(trace: Trace, index: number): Slot {
    let inputs: ReturnType<typeof resolveTraceInputs>;
    try {
      inputs = resolveTraceInputs(this.#markingSpec, this.#valuesSpec, trace);
    } catch (error) {
      if (!(error instanceof SpecError)) throw error;
      return { index, attributes: trace.attributes, error: specErrorEntry(error, index) };
    }
    const request: AnomalyRequest = {
      input_marking: this.#placesOnly(inputs.marking),
      input_values: inputs.values === undefined ? null : this.#placesOnly(inputs.values),
      events: trace.events,
    };
    return { index, attributes: trace.attributes, request };
  }

  #placesOnly(resolved: Map<string, number>): Map<string, number> {
    for (const id of resolved.keys()) if (!this.#places.has(id)) resolved.delete(id);
    return resolved;
  }
}
