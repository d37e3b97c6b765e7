/**
 * The scoring pipeline of `batch`: traces in, entries out, in input order. Traces are
 * resolved against the model's input specs and gathered into batches; each batch is handed
 * to the model (an ORT session, in a worker when the runtime runs there), packed straight from
 * the traces ({@link TracePacker}) and scored from the flat output ({@link scoreRows}), and the next batch
 * is read while it runs. Up to `depth` batches are in flight; the oldest is formatted and
 * written when it is done, and its write overlaps the reading and scoring of the next ones.
 * So reading and parsing, scoring and formatting overlap, and memory holds at most
 * `depth + 1` batches however long the log.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { scoreLog } from "./score_log.ts";
 * import { entryLayout } from "./entry_layout.ts";
 * import { openEntrySink } from "./entry_sink.ts";
 * import { Shard } from "./shard.ts";
 * import { loadOrt } from "../../adapter/deno/ort.ts";
 * import { readBundle } from "../../adapter/deno/bundle_files.ts";
 * await using model = await readBundle(await loadOrt(), "examples/rest_serving");
 * const traces = [
 *   { attributes: new Map([["risk_score", "0.92"]]), events: [{ name: "approve loan", attributes: new Map() }] },
 *   { attributes: new Map(), events: [] }, // no risk_score: an error entry
 * ];
 * const layout = entryLayout("jsonl");
 * let text = "";
 * const sink = openEntrySink(undefined, layout, (t) => text += t);
 * const tally = await scoreLog(model, traces, sink, {
 *   batchSize: 256,
 *   depth: 2,
 *   shard: Shard.ALL,
 *   layout,
 * });
 * await sink.close();
 * assert.deepEqual(tally, { read: 2, traces: 2, errors: 1, failed: [1] });
 * assert.equal(text.split("\n").length, 3); // two lines, in input order
 * ```
 *
 * @module
 */

import type { Model } from "../../core/bundle.ts";
import { scoreRows } from "../../core/ops/anomaly_rows.ts";
import type { PackedOutputs } from "../../core/runtime.ts";
import type { Trace, TraceEvent } from "../../core/traces/mod.ts";
import type { EntryLayout } from "./entry_layout.ts";
import type { EntrySink } from "./entry_sink.ts";
import type { Shard } from "./shard.ts";
import { type PackedRows, TracePacker } from "./trace_packer.ts";

/** Failed trace indices a tally keeps for the summary line. */
const LISTED_FAILURES = 5;
/**
 * Entry text gathered before a write: fewer writes whatever the batch size, yet few enough
 * entries that they die young (1 MB of entries measured 20–50 MiB more peak RSS).
 */
const WRITE_CHARS = 1 << 17;

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
 * import assert from "node:assert/strict";
 * import { scoreLog } from "./score_log.ts";
 * import { entryLayout } from "./entry_layout.ts";
 * import { openEntrySink } from "./entry_sink.ts";
 * import { Shard } from "./shard.ts";
 * import { loadOrt } from "../../adapter/deno/ort.ts";
 * import { readBundle } from "../../adapter/deno/bundle_files.ts";
 * await using model = await readBundle(await loadOrt(), "examples/rest_serving");
 * const layout = entryLayout("json");
 * const sink = openEntrySink(undefined, layout, () => {});
 * const tally = await scoreLog(model, [], sink, { batchSize: 64, depth: 1, shard: Shard.ALL, layout });
 * assert.equal(tally.traces, 0);
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
  const inFlight: Submitted[] = [];
  let writing: Promise<void> = Promise.resolve();
  let texts: string[] = [];
  let chars = 0;
  const write = async () => {
    await writing;
    writing = quiet(sink.write(texts));
    texts = [];
    chars = 0;
  };
  const drainOne = async () => {
    const submitted = inFlight.shift()!;
    for (const text of entryTexts(model, layout, submitted, await submitted.outputs)) {
      texts.push(text);
      chars += text.length;
    }
    if (chars >= WRITE_CHARS) await write();
    options.onProgress?.(tally.traces - texts.length);
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
    await write();
    await writing;
  } finally {
    // Let scoring still in flight settle, so nothing rejects unobserved after a failure.
    await Promise.allSettled([...inFlight.map((s) => s.outputs), writing]);
  }
  return tally;
}

/** Marks a promise as observed (it is awaited later), so an early rejection is not fatal. */
function quiet<T>(promise: Promise<T>): Promise<T> {
  promise.catch(() => {});
  return promise;
}

/**
 * A batch handed to the model: per trace, its index, attributes and either its error text or
 * its row; the events of the rows; and the run's outputs to come.
 */
interface Submitted {
  readonly indices: readonly number[];
  readonly attributes: readonly ReadonlyMap<string, string>[];
  /** Error entry text, or undefined for a trace that has the next row. */
  readonly errors: readonly (string | undefined)[];
  readonly events: readonly (readonly TraceEvent[])[];
  readonly outputs: Promise<PackedOutputs>;
}

function entryTexts(
  model: Model,
  layout: EntryLayout,
  batch: Submitted,
  outputs: PackedOutputs,
): string[] {
  const { ids, residuals, scores } = scoreRows(model, outputs.transitions, batch.events);
  const texts: string[] = [];
  let row = 0;
  for (let i = 0; i < batch.indices.length; i++) {
    const error = batch.errors[i];
    if (error !== undefined) {
      texts.push(layout.failed(batch.indices[i]!, batch.attributes[i]!, error));
      continue;
    }
    const score = { ids, residuals, offset: row * ids.length, score: scores[row]! };
    texts.push(layout.scored(batch.indices[i]!, batch.attributes[i]!, score));
    row++;
  }
  return texts;
}

/**
 * The traces read since the last submit, in input order, packed as they come. It is full when
 * it holds `size` rows to score, or twice that many traces (a run of failing traces must not
 * grow it).
 */
class EntryBatch {
  readonly #packer: TracePacker;
  #rows: PackedRows;
  #count = 0;
  #indices: number[] = [];
  #attributes: ReadonlyMap<string, string>[] = [];
  #errors: (string | undefined)[] = [];
  #events: (readonly TraceEvent[])[] = [];

  constructor(readonly model: Model, readonly size: number, readonly tally: Tally) {
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
      this.#events.push(trace.events);
    }
    this.#indices.push(index);
    this.#attributes.push(trace.attributes);
    this.#errors.push(error);
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
      outputs: quiet(this.model.session.runPacked(inputs, { withGradient: false })),
    };
    // The run may still read the arrays: the next batch gets its own.
    this.#rows = this.#packer.rows(this.size);
    this.#count = 0;
    this.#indices = [];
    this.#attributes = [];
    this.#errors = [];
    this.#events = [];
    return submitted;
  }
}
