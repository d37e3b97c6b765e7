/**
 * The one error an operation throws for a request that does not fit the net: the server
 * answers it with 400 and `{"detail": message}`, the CLI and the playground show the message.
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
