/**
 * A request body read as a log is scored: a chunk is read only when the reader asks for one
 * (so the client's upload goes no faster than scoring; 512 KiB a read, handed on 64 KiB at a
 * time), and the stream fails with an
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
  const reader = readerOf(body);
  let fail: ((error: unknown) => void) | undefined;
  const aborted = () => fail?.(signal.reason);
  signal.addEventListener("abort", aborted, { once: true });
  let timer: ReturnType<typeof setTimeout> | undefined;
  const finish = () => {
    clearTimeout(timer);
    signal.removeEventListener("abort", aborted);
  };
  /** What is left of the last read, handed on a slice at a time. */
  let rest: Uint8Array | undefined;
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      if (rest !== undefined) {
        controller.enqueue(rest.subarray(0, SLICE_BYTES));
        rest = rest.length > SLICE_BYTES ? rest.subarray(SLICE_BYTES) : undefined;
        return;
      }
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
          const bytes = result.value;
          controller.enqueue(bytes.subarray(0, SLICE_BYTES));
          if (bytes.length > SLICE_BYTES) rest = bytes.subarray(SLICE_BYTES);
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

/**
 * Bytes a read asks for. Deno reads a request body 64 KiB at a time by default, and while the
 * answer streams out on the same connection each read costs the serving thread milliseconds
 * (its share of the connection's writes): eight times fewer reads made a log's answer several
 * times faster.
 */
const READ_BYTES = 512 * 1024;
/**
 * Bytes handed on at a time: a log's reader parses a chunk in one go, and a smaller one keeps
 * that go short for the requests waiting meanwhile.
 */
const SLICE_BYTES = 64 * 1024;

/** Reads `body` {@link READ_BYTES} at a time where it can (a byte stream), else as it comes. */
function readerOf(
  body: ReadableStream<Uint8Array>,
): {
  read(): Promise<ReadableStreamReadResult<Uint8Array>>;
  releaseLock(): void;
  cancel(reason?: unknown): Promise<void>;
} {
  let byob: ReadableStreamBYOBReader;
  try {
    byob = body.getReader({ mode: "byob" });
  } catch {
    return body.getReader();
  }
  return {
    read: () =>
      byob.read(new Uint8Array(READ_BYTES)) as Promise<ReadableStreamReadResult<Uint8Array>>,
    releaseLock: () => byob.releaseLock(),
    cancel: (reason) => byob.cancel(reason),
  };
}
