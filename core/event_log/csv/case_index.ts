/**
 * The first pass of the two-pass CSV reader: finds the cases whose rows are not contiguous and
 * the last row of each, so that the second pass emits every other case as soon as the next one
 * starts. Seen ids go into a fixed Bloom filter, not a set, so memory stays flat; a false
 * positive only marks a contiguous case as split, which changes nothing.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { CaseIndexer } from "./case_index.ts";
 * const indexer = new CaseIndexer();
 * for (const id of ["c1", "c1", "c2", "c1", "c3"]) indexer.add(id);
 * const index = indexer.finish();
 * assert.deepEqual(index.rows, 5);
 * assert.deepEqual(index.lastRowOfSplit, new Map([["c1", 3]])); // c1 is split; its last row
 * ```
 *
 * @module
 */

/**
 * What the first pass learnt: the number of data rows, and for every split case (and the odd
 * contiguous case a hash collision flagged) the 0-based index of its last row.
 */
export interface CaseIndex {
  rows: number;
  lastRowOfSplit: Map<string, number>;
}

const FILTER_BITS = 1 << 24;
const HASHES = 3;

/** Feeds the case id of each data row, in file order; `finish` gives the {@link CaseIndex}. */
export class CaseIndexer {
  readonly #seen = new Uint32Array(FILTER_BITS / 32);
  readonly #lastRowOfSplit = new Map<string, number>();
  #current: string | undefined;
  #currentSplit = false;
  #rows = 0;

  /** Records one data row of case `id`. */
  add(id: string): void {
    if (id !== this.#current || this.#rows === 0) {
      this.#endRun();
      this.#current = id;
      this.#currentSplit = this.#testAndSet(id);
    }
    this.#rows++;
  }

  /** The index, once every row was added. */
  finish(): CaseIndex {
    this.#endRun();
    this.#current = undefined;
    return { rows: this.#rows, lastRowOfSplit: this.#lastRowOfSplit };
  }

  #endRun(): void {
    if (this.#currentSplit && this.#current !== undefined) {
      this.#lastRowOfSplit.set(ownCopy(this.#current), this.#rows - 1);
    }
    this.#currentSplit = false;
  }

  /** Sets the id's bits; true when all were set already (seen before, or a collision). */
  #testAndSet(id: string): boolean {
    const [h1, h2] = hashes(id);
    let seen = true;
    for (let i = 0; i < HASHES; i++) {
      const bit = (h1 + Math.imul(i, h2)) >>> 0 & (FILTER_BITS - 1);
      const word = bit >>> 5;
      const mask = 1 << (bit & 31);
      if ((this.#seen[word]! & mask) === 0) {
        seen = false;
        this.#seen[word]! |= mask;
      }
    }
    return seen;
  }
}

/** Two independent 32-bit hashes of a string (FNV-1a and a multiplicative mix). */
function hashes(text: string): [number, number] {
  let a = 0x811c9dc5;
  let b = 0x9747b28c;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    a = Math.imul(a ^ code, 0x01000193);
    b = Math.imul(b ^ code, 0x5bd1e995);
    b ^= b >>> 15;
  }
  return [a >>> 0, (b | 1) >>> 0];
}

/** A copy of `text` that does not keep alive the (much longer) string it was sliced from. */
export function ownCopy(text: string): string {
  // Concatenating then slicing makes V8 flatten the string into fresh storage.
  return (" " + text).slice(1);
}
