/**
 * The one error an operation throws for a request that does not fit the net (a 400 response).
 *
 * @module
 */

/** A request that is well-formed but does not fit the served net (HTTP 400). */
export class RequestError extends Error {
  /** Always `"RequestError"`. */
  override readonly name = "RequestError";

  /** Builds the error; `detail` is the `detail` of the 400 response. */
  constructor(readonly detail: string) {
    super(detail);
  }
}
