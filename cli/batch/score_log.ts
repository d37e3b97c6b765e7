/**
 * `batch`'s scoring, as text: the traces of a log scored by the shared pipeline
 * ({@link scoreBatches}, in `core/batch/`) and each entry written in the output format's
 * layout ({@link EntryLayout}) to a sink, in input order. Entries are gathered into writes of
 * about 128 KiB, and a write overlaps the reading and scoring of the next batches, so memory
 * holds at most a few batches however long the log.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { scoreLog } from "./score_log.ts";
 * import { entryLayout } from "../../core/batch/entry_layout.ts";
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
 * const { firstError, ...counts } = tally;
 * assert.deepEqual(counts, { read: 2, traces: 2, errors: 1, failed: [1] });
 * assert.match(firstError!, /risk_score/); // the first error entry, for the all-failed note
 * assert.equal(text.split("\n").length, 3); // two lines, in input order
 * ```
 *
 * @module
 */

import type { Model } from "../../core/bundle.ts";
import type { EntryLayout } from "../../core/batch/entry_layout.ts";
import {
  scoreBatches,
  type ScoreBatchesOptions,
  type ScoredBatch,
  type Tally,
} from "../../core/batch/score_batches.ts";
import type { Trace } from "../../core/traces/mod.ts";
import type { EntrySink } from "./entry_sink.ts";
import type { Shard } from "./shard.ts";

export type { Tally };

/** {@link Tally} and the error entry text of the first failed trace, if any. */
export interface LogTally extends Tally {
  readonly firstError?: string | undefined;
}

/**
 * Entry text gathered before a write: fewer writes whatever the batch size, yet few enough
 * entries that they die young (1 MB of entries measured 20–50 MiB more peak RSS).
 */
const WRITE_CHARS = 1 << 17;

/** Options of {@link scoreLog}. */
export interface ScoreLogOptions extends ScoreBatchesOptions {
  /** Which traces to score. */
  readonly shard: Shard;
  /** How entries are written. */
  readonly layout: EntryLayout;
  /** Called with the number of entries written so far, after each batch. */
  readonly onProgress?: ((entries: number) => void) | undefined;
}

/**
 * Scores the traces of `shard` and writes their entries to `sink` in input order; returns the
 * counts. The sink is neither closed nor aborted here.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { scoreLog } from "./score_log.ts";
 * import { entryLayout } from "../../core/batch/entry_layout.ts";
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
): Promise<LogTally> {
  const { layout } = options;
  let firstError: string | undefined;
  let writing: Promise<void> = Promise.resolve();
  let texts: string[] = [];
  let chars = 0;
  let handed = 0;
  const write = async () => {
    await writing;
    writing = quiet(sink.write(texts));
    texts = [];
    chars = 0;
  };
  try {
    const tally = await scoreBatches(model, traces, async (batch) => {
      for (const text of entryTexts(layout, batch)) {
        texts.push(text);
        chars += text.length;
      }
      firstError ??= batch.errors.find((error) => error !== undefined);
      handed += batch.indices.length;
      if (chars >= WRITE_CHARS) await write();
      options.onProgress?.(handed - texts.length);
    }, options);
    await write();
    await writing;
    return firstError === undefined ? tally : { ...tally, firstError };
  } finally {
    // Let a write still going settle, so nothing rejects unobserved after a failure.
    await Promise.allSettled([writing]);
  }
}

/** Marks a promise as observed (it is awaited later), so an early rejection is not fatal. */
function quiet<T>(promise: Promise<T>): Promise<T> {
  promise.catch(() => {});
  return promise;
}

/** The entries of a scored batch, in its layout. */
function entryTexts(layout: EntryLayout, batch: ScoredBatch): string[] {
  const { ids, residuals, scores } = batch.scored;
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
