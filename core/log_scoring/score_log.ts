/**
 * Log scoring, as text: the traces of a log scored by the shared pipeline ({@link scoreBatches})
 * and written in the output format's layout to a sink, in input order. `cli.ts batch` and
 * `POST /batch` both drive it. A write overlaps the scoring of the next batches, so memory holds
 * a few batches however long the log.
 *
 * @module
 */

import type { Model } from "../bundle/mod.ts";
import type { EntryLayout } from "./entry_layout.ts";
import {
  scoreBatches,
  type ScoreBatchesOptions,
  type ScoredBatch,
  type Tally,
} from "./score_batches.ts";
import type { Trace } from "../event_log/mod.ts";
import type { EntrySink } from "./text_sink.ts";

export type { Tally };

/** {@link Tally} and the error entry text of the first failed trace, if any. */
export interface LogTally extends Tally {
  readonly firstError?: string | undefined;
}

/** Entry text gathered before a write: fewer writes, yet entries young enough to die young. */
const WRITE_CHARS = 1 << 17;

/** Options of {@link scoreLog}. */
export interface ScoreLogOptions extends ScoreBatchesOptions {
  /** How entries are written. */
  readonly layout: EntryLayout;
  /** Called with the number of entries written so far, after each batch. */
  readonly onProgress?: ((entries: number) => void) | undefined;
  /**
   * Characters of entry text gathered before a write; 0 writes each batch once scored.
   * @default {WRITE_CHARS}
   */
  readonly writeChars?: number | undefined;
}

/**
 * Scores the traces (those of `options.shard`, when given) and writes their entries to `sink`
 * in input order; returns the counts. The sink is neither closed nor aborted here.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { scoreLog } from "./score_log.ts";
 * import { entryLayout } from "./entry_layout.ts";
 * import { textSink } from "./text_sink.ts";
 * import { loadOrt } from "../../adapter/deno/ort.ts";
 * import { readBundle } from "../../adapter/deno/bundle_files.ts";
 * await using model = await readBundle(await loadOrt(), "examples/rest_serving");
 * const traces = [
 *   { attributes: new Map([["risk_score", "0.92"]]), events: [{ name: "approve loan", attributes: new Map() }] },
 *   { attributes: new Map(), events: [] }, // no risk_score: an error entry
 * ];
 * const layout = entryLayout("jsonl");
 * let text = "";
 * const sink = textSink(layout, (t) => void (text += t));
 * const tally = await scoreLog(model, traces, sink, { batchSize: 256, depth: 2, layout });
 * await sink.close();
 * const { firstError, ...counts } = tally;
 * assert.deepEqual(counts, { read: 2, traces: 2, errors: 1, failed: [1] });
 * assert.match(firstError!, /risk_score/); // the first error entry, for the all-failed note
 * assert.equal(text.split("\n").length, 3); // two lines, in input order
 * ```
 */
export async function scoreLog(
  model: Model,
  traces: AsyncIterable<Trace> | Iterable<Trace>,
  sink: EntrySink,
  options: ScoreLogOptions,
): Promise<LogTally> {
  const { layout } = options;
  const writeChars = options.writeChars ?? WRITE_CHARS;
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
      if (chars >= writeChars) await write();
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
