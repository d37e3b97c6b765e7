/**
 * `--shard I/N`: which traces one of N processes scores. Trace `i` (0-based, in file order)
 * belongs to shard `i mod N`, so the shards take turns through the log and end together whatever
 * its order; entries keep their global `trace_index`.
 *
 * @example
 * ```ts
 * import { Shard } from "./shard.ts";
 * import assert from "node:assert/strict";
 * const shard = Shard.parse("1/3");
 * assert.deepEqual([0, 1, 2, 3, 4].filter((i) => shard.has(i)), [1, 4]);
 * assert.equal(String(shard), "1/3");
 * ```
 *
 * @module
 */

import { UsageError } from "../args.ts";

/** One shard of N. */
export class Shard {
  /** The whole log: shard 0 of 1. */
  static readonly ALL: Shard = new Shard(0, 1);

  private constructor(readonly index: number, readonly count: number) {}

  /** Reads `I/N` (0 <= I < N). @throws {UsageError} naming the option and the text. */
  static parse(text: string): Shard {
    const match = /^(\d{1,9})\/(\d{1,9})$/.exec(text.trim());
    const [index, count] = match ? [Number(match[1]), Number(match[2])] : [NaN, NaN];
    if (!(count >= 1 && index >= 0 && index < count)) {
      throw new UsageError(
        `option --shard expects I/N with N >= 1 and 0 <= I < N (such as 0/4), got '${text}'`,
      );
    }
    return new Shard(index, count);
  }

  /** Whether trace `index` belongs to this shard. */
  has(index: number): boolean {
    return this.count === 1 || index % this.count === this.index;
  }

  /** `I/N`. */
  toString(): string {
    return `${this.index}/${this.count}`;
  }
}
