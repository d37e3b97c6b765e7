/**
 * Reading a fragment of a log (a range shard's bytes, after the log's head): the readers do not
 * require the document's end, and messages count lines from the fragment's first line.
 *
 * @module
 */

import type { ReadOptions } from "./types.ts";

/** Options of the readers' fragment mode. */
export interface FragmentOptions extends ReadOptions {
  /** The input stops at a trace start, before the end of the document: do not require it. */
  fragment?: boolean | undefined;
  /** Line breaks of the head fed before the fragment, not counted in messages. */
  lineBase?: number | undefined;
}

/**
 * Line numbers as messages give them: relative to the fragment's first line when a head was
 * fed first, else as read.
 */
export class LineBase {
  readonly #base: number;

  /** @param base line breaks before the fragment's first line (none: undefined or 0) */
  constructor(base: number | undefined) {
    this.#base = base ?? 0;
  }

  /** A line number of the input as fed -> the line number messages give. */
  line(line: number): number {
    return Math.max(1, line - this.#base);
  }

  /** `at line L, column C`, the line made relative. */
  at({ line, column }: { readonly line: number; readonly column: number }): string {
    return `at line ${this.line(line)}, column ${column}`;
  }
}
