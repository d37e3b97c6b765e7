/**
 * Ends the connection a response goes out on, which `Deno.serve` offers no way to ask for.
 * Deno 2.9.6 (pinned in `tests/adapter/deno/listen_test.ts`) keeps a connection open after
 * answering a request whose body has not arrived whole, reading the rest for as long as the
 * client sends it; `Connection: close` does not change that. It closes the connection only
 * when the response body stream fails while no read of the request body is pending, so
 * {@link closeAfterResponse} fails the body after its last byte. `listen.ts` uses it for a 408,
 * so a client stalled mid-body cannot hold a descriptor for as long as it likes.
 *
 * @module
 */

/** The error a {@link closeAfterResponse} body ends with on purpose: not worth a log line. */
export class ConnectionEnd extends Error {
  /** Always `"ConnectionEnd"`. */
  override readonly name = "ConnectionEnd";

  /** Builds the error. */
  constructor() {
    super("The answer is complete; its connection is closed on purpose");
  }
}

/**
 * `response` with `Connection: close` and no `Content-Length`, whose body fails with
 * {@link ConnectionEnd} after its last byte once `after` (the request body's pending read) has
 * settled, so that `Deno.serve` closes the connection.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { closeAfterResponse } from "./connection_close.ts";
 * const answer = closeAfterResponse(new Response(null, { status: 408 }));
 * await assert.rejects(answer.body!.getReader().read(), { name: "ConnectionEnd" });
 * ```
 */
export function closeAfterResponse(
  response: Response,
  after: Promise<unknown> = Promise.resolve(),
): Response {
  const headers = new Headers(response.headers);
  headers.set("connection", "close");
  headers.delete("content-length");
  const reader = response.body?.getReader();
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      const next = reader ? await reader.read() : { done: true as const };
      if (!next.done) return controller.enqueue(next.value);
      await after.catch(() => {});
      controller.error(new ConnectionEnd());
    },
    cancel: (reason) => reader?.cancel(reason),
  });
  return new Response(body, { status: response.status, statusText: response.statusText, headers });
}

/** `response` with `Connection: close` (its own headers when mutable, else a copy). */
export function withConnectionClose(response: Response): Response {
  try {
    response.headers.set("connection", "close");
    return response;
  } catch {
    // Immutable headers (a response passed through from fetch): copy them.
    const headers = new Headers(response.headers);
    headers.set("connection", "close");
    return new Response(response.body, {
      status: response.status,
      statusText: response.statusText,
      headers,
    });
  }
}
