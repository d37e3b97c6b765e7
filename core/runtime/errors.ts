/**
 * Why a {@link import("./session.ts").ModelSession} did not run a request's rows: the session
 * refused them or the caller withdrew them. None is the request's fault; the HTTP face answers
 * 503 with `Retry-After`.
 *
 * @module
 */

/**
 * Why the session refused rows:
 *
 * - `queue_full`: the rows would take the queue past its limit (`maxQueueRows`);
 * - `queue_timeout`: they waited in the queue longer than `queueTimeoutMs`;
 * - `model_unavailable`: a run failed and the session is being recreated, or cannot be.
 */
export type BusyReason = "queue_full" | "queue_timeout" | "model_unavailable";

/**
 * The session refused rows for a {@link BusyReason}; retrying later may succeed.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { ModelBusyError } from "./errors.ts";
 * const error = new ModelBusyError("queue_timeout", "Waited 5 s in the model's queue");
 * assert.equal(error.name, "ModelBusyError");
 * assert.equal(error.message, "Waited 5 s in the model's queue");
 * ```
 */
export class ModelBusyError extends Error {
  /** Always `"ModelBusyError"`. */
  override readonly name = "ModelBusyError";

  /**
   * Builds the error.
   *
   * @param reason why the rows were refused
   * @param message a sentence for the client, naming the limit
   * @param options the underlying error, for a failed run
   */
  constructor(readonly reason: BusyReason, message: string, options?: ErrorOptions) {
    super(message, options);
  }
}

/**
 * The caller's `AbortSignal` fired before its rows' results came: queued rows left the queue
 * and were not computed (rows already in a run were, and their results were dropped). `cause`
 * is the signal's reason.
 */
export class RunCancelledError extends Error {
  /** Always `"RunCancelledError"`. */
  override readonly name = "RunCancelledError";

  /**
   * Builds the error.
   *
   * @param reason the signal's `reason`
   */
  constructor(reason: unknown) {
    super("The rows were withdrawn before their results came (their AbortSignal fired)", {
      cause: reason,
    });
  }
}

/** The message of anything thrown. */
export function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
