/**
 * A request body read as a log is scored: a chunk is read only when the reader asks for one
 * (so the client's upload goes no faster than scoring), and the stream fails with an
 * {@link HttpError} when no byte has come for `idleMs` (408) or the client's connection broke
 * mid-body (400), and with the signal's reason when `signal` aborts. The whole body's time is
 * not bounded: a log may take as long as it takes, as long as it keeps coming.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { logBody } from "./log_body.ts";
 * const body = logBody(new Blob(["case_id,activity\n"]).stream(), {
 *   signal: new AbortController().signal,
 *   idleMs: 1000,
 * });
 * assert.equal(await new Response(body).text(), "case_id,activity\n");
 * ```
 *
 * @module
 */

import { INCOMPLETE_BODY_DETAIL, lateBodyDetail } from "./body.ts";
import { HttpError } from "./errors.ts";

/** Options of {@link logBody}. */
export interface LogBodyOptions {
  /** Stops the reading: the stream fails with the signal's reason. */
  readonly signal: AbortSignal;
  /** Time allowed between two chunks of the body, in ms; a longer wait is a 408. */
  readonly idleMs: number;
}

/**
 * `body` as a stream that reads one chunk per pull (see the module doc).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { logBody } from "./log_body.ts";
 * const stalled = new ReadableStream<Uint8Array>({ pull: () => new Promise(() => {}) });
 * const body = logBody(stalled, { signal: new AbortController().signal, idleMs: 10 });
 * await assert.rejects(new Response(body).text(), { status: 408 });
 * ```
 */
export function logBody(
  body: ReadableStream<Uint8Array>,
  options: LogBodyOptions,
): ReadableStream<Uint8Array> {
  const { signal, idleMs } = options;
  const reader = body.getReader();
  let fail: ((error: unknown) => void) | undefined;
  const aborted = () => fail?.(signal.reason);
  signal.addEventListener("abort", aborted, { once: true });
  let timer: ReturnType<typeof setTimeout> | undefined;
  const finish = () => {
    clearTimeout(timer);
    signal.removeEventListener("abort", aborted);
  };
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      const { promise: failed, reject } = Promise.withResolvers<never>();
      fail = reject;
      if (signal.aborted) reject(signal.reason);
      timer = setTimeout(
        () => reject(new HttpError(408, lateBodyDetail(idleMs), { connection: "close" })),
        idleMs,
      );
      try {
        let result: ReadableStreamReadResult<Uint8Array>;
        try {
          result = await Promise.race([reader.read(), failed]);
        } catch (error) {
          if (error === signal.reason || error instanceof HttpError) throw error;
          // The stream itself failed: the connection broke (or the server shut down) mid-body.
          throw new HttpError(400, INCOMPLETE_BODY_DETAIL, { connection: "close" });
        }
        if (result.done) {
          finish();
          controller.close();
        } else {
          controller.enqueue(result.value);
        }
      } catch (error) {
        finish();
        // A stalled read stays pending: let go of the body without cancelling it, so that the
        // listener can close the connection once the client sends again (as `./body.ts` does).
        if (error instanceof HttpError && error.status === 408) reader.releaseLock();
        else reader.cancel().catch(() => {});
        throw error;
      } finally {
        clearTimeout(timer);
        fail = undefined;
      }
    },
    cancel(reason) {
      finish();
      return reader.cancel(reason).catch(() => {});
    },
  }, { highWaterMark: 0 });
}
