/**
 * The one error an operation throws for a request that does not fit the net: the server maps
 * it to 400 with `{"detail": message}`, the CLI and the playground show the message.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { RequestError } from "./errors.ts";
 * const error = new RequestError("flip_place 'p_x' is not in the net's place set");
 * assert.equal(error.detail, error.message);
 * assert.equal(error.name, "RequestError");
 * ```
 *
 * @module
 */

/** A request that is well-formed but does not fit the served net (HTTP 400). */
export class RequestError extends Error {
  /** Always `"RequestError"`. */
  override readonly name = "RequestError";

  /**
   * Builds the error.
   *
   * @param detail the message, as the `detail` of a 400 answer
   */
  constructor(readonly detail: string) {
    super(detail);
  }
}
