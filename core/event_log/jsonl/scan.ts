/**
 * Finds where the traces of a JSONL log start in its bytes: each non-blank line's start (exact
 * from any offset, as JSON holds no raw line break).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { JsonlScanner } from "./scan.ts";
 * const bytes = new TextEncoder().encode('{"events": ["a\\nb"]}\n  \n{"events": []}\n');
 * // From byte 3 (mid-line, not a line start): the next non-blank line starts at 24.
 * assert.equal(new JsonlScanner({ from: 3, lineStart: false }).scan(bytes.subarray(3), 3), 24);
 * ```
 *
 * @module
 */

import { isSpace, type TraceScanner } from "../scan.ts";

const NEWLINE = 0x0a;

/** The JSONL line scanner. */
export class JsonlScanner implements TraceScanner {
  readonly #from: number;
  /** The current line's start offset; -1 before the first line feed of a mid-line start. */
  #lineStart: number;
  /** Whether the current line holds more than white space so far. */
  #content = false;
  /** The scan's first offset, set by the first call. */
  #started = false;

  /**
   * @param options `from`: accept lines starting at or after it; `lineStart`: the scan's
   * first byte starts a line (offset 0, or just after a line feed).
   */
  constructor(options: { readonly from: number; readonly lineStart: boolean }) {
    this.#from = options.from;
    this.#lineStart = options.lineStart ? 0 : -1;
  }

  get undecidedFrom(): number {
    return this.#lineStart !== -1 && !this.#content ? this.#lineStart : Infinity;
  }

  scan(bytes: Uint8Array, base: number): number {
    if (!this.#started) {
      this.#started = true;
      if (this.#lineStart === 0) this.#lineStart = base;
    }
    const length = bytes.length;
    let i = 0;
    while (i < length) {
      if (this.#content || this.#lineStart === -1) {
        const newline = bytes.indexOf(NEWLINE, i);
        if (newline === -1) return -1;
        this.#lineStart = base + newline + 1;
        this.#content = false;
        i = newline + 1;
        continue;
      }
      const code = bytes[i]!;
      if (code === NEWLINE) this.#lineStart = base + i + 1;
      else if (!isSpace(code)) {
        this.#content = true;
        if (this.#lineStart >= this.#from) return this.#lineStart;
      }
      i++;
    }
    return -1;
  }
}
