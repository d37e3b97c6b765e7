/**
 * How far the reading of a log is: the bytes read from the file (compressed ones for `.gz`)
 * against its size, over its reader's passes. The CLI's and the playground's progress bars
 * estimate the time left from it.
 *
 * @module
 */

import type { TraceFormat } from "../event_log/format.ts";

/** The rough share of a CSV file's reading in its two passes (indexing, then reading). */
const CSV_PASSES: readonly number[] = [0.2, 0.8];

/** The share of each pass over a file of `format` in its whole reading. */
export function readingPasses(format: TraceFormat): readonly number[] {
  return format === "csv" ? CSV_PASSES : [1];
}

/**
 * Counts the bytes read from the log; for a CSV file the fraction spans both passes, weighted
 * by their rough cost.
 *
 * @example
 * ```ts
 * import { ByteCounter } from "./byte_counter.ts";
 * import assert from "node:assert/strict";
 * const counter = new ByteCounter(4, [1]);
 * const stream = counter.count(new Blob(["ab"]).stream());
 * for await (const _ of stream);
 * assert.equal(counter.fraction, 0.5);
 * // A size not known (standard input): no fraction.
 * assert.equal(new ByteCounter(undefined, [1]).fraction, undefined);
 * ```
 */
export class ByteCounter {
  #opened = 0;
  #read = 0;

  /**
   * @param size the bytes to read (the file's size, or a range shard's share); undefined when
   * not known (standard input, a URL without a length): then no fraction, bar or ETA
   * @param weights the share of each pass over the file in the whole reading
   */
  constructor(readonly size: number | undefined, readonly weights: readonly number[]) {}

  /** Passes `stream` through, counting its bytes as the next pass over the file. */
  count(stream: ReadableStream<Uint8Array>): ReadableStream<Uint8Array> {
    this.#opened++;
    this.#read = 0;
    return stream.pipeThrough(
      new TransformStream<Uint8Array, Uint8Array>({
        transform: (chunk, controller) => {
          this.#read += chunk.length;
          controller.enqueue(chunk);
        },
      }),
    );
  }

  /** The part of the reading done, 0 to 1, or undefined for an empty or unknown size. */
  get fraction(): number | undefined {
    if (this.size === undefined || this.size <= 0) return undefined;
    if (this.#opened === 0) return 0;
    const pass = Math.min(this.#opened, this.weights.length) - 1;
    const before = this.weights.slice(0, pass).reduce((a, b) => a + b, 0);
    return Math.min(before + this.weights[pass]! * Math.min(this.#read / this.size, 1), 1);
  }
}
