/**
 * Counts the pieces a request body arrives in and refuses a body whose pieces are too small on
 * average: each read costs the server tens of microseconds whatever its size, and Deno hands
 * each piece of a chunked body in a buffer of its own, so a body sent a byte at a time costs
 * far more than its bytes. Used for JSON bodies (`./body.ts`) and logs (`../log_scoring/`).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { PieceCount } from "./piece_count.ts";
 * const count = new PieceCount({ free: 2, minBytes: 64, what: "body" });
 * count.add(1);
 * count.add(1);
 * assert.throws(() => count.add(1), { status: 400 });
 * ```
 *
 * @module
 */

import { HttpError } from "../http/mod.ts";

/** How small a body's pieces may be. */
export interface PieceRule {
  /** Pieces allowed before the average counts. */
  readonly free: number;
  /** The least average size of the pieces past `free`, in bytes. */
  readonly minBytes: number;
  /** What the error calls the body (`body`, `log`). */
  readonly what: string;
}

/** See the module doc. */
export class PieceCount {
  readonly #rule: PieceRule;
  #pieces = 0;
  #bytes = 0;

  /** */
  constructor(rule: PieceRule) {
    this.#rule = rule;
  }

  /**
   * Counts a piece of `bytes`.
   *
   * @throws {HttpError} 400 (connection closed) when the pieces so far are too small on average.
   */
  add(bytes: number): void {
    this.#pieces++;
    this.#bytes += bytes;
    const { free, minBytes, what } = this.#rule;
    if (this.#pieces > free && this.#bytes < this.#pieces * minBytes) {
      const average = Math.floor(this.#bytes / this.#pieces);
      throw new HttpError(
        400,
        `The ${what} came in ${this.#pieces} pieces of ${average} bytes on average; send it in ` +
          `pieces of at least ${minBytes} bytes`,
        { connection: "close" },
      );
    }
  }
}
