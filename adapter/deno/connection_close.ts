/**
 * Ends the connection an answer goes out on, which `Deno.serve` offers no way to ask for.
 *
 * What Deno 2.9.6 does (checked on raw sockets, pinned in `tests/adapter/deno/listen_test.ts`): after
 * answering a request whose body has not arrived whole, it keeps the connection open, reading
 * and discarding the rest of the body for as long as the client keeps sending it, or waiting
 * forever for a client that stopped; a `Connection: close` header on the answer (which Deno
 * even adds itself in that case) does not change that, and neither does cancelling the
 * request's body stream. The one thing that makes it close the connection is an answer body
 * stream that fails, and only while no read of the request's body is pending: with one
 * pending, the connection stays open even after that read is done. So {@link closeAfterResponse}
 * sends the answer's body as a stream that, after its last byte and once the given `after`
 * has settled (the request body's pending read is done), fails with {@link ConnectionEnd}: the
 * client gets the status, the headers and every byte of the body, in one chunk, and then the
 * end of the connection, but not the empty chunk that would end a chunked body, so a strict
 * client (fetch's `text()`, curl) reports the body as cut short. `listen.ts` uses it for a
 * 408, whose client has stalled mid-body: leaving such a connection open would let a client
 * hold a descriptor for as long as it likes. A client that sends nothing more at all keeps
 * its read pending, so its connection stays open until it closes it (as does one that sends
 * half a request head): only a proxy's timeouts end those.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { closeAfterResponse } from "./connection_close.ts";
 * const answer = closeAfterResponse(Response.json({ detail: "late" }, { status: 408 }));
 * assert.equal(answer.status, 408);
 * assert.equal(answer.headers.get("connection"), "close");
 * const reader = answer.body!.getReader();
 * assert.deepEqual(JSON.parse(new TextDecoder().decode((await reader.read()).value)), { detail: "late" });
 * await assert.rejects(reader.read(), { name: "ConnectionEnd" });
 * ```
 *
 * @module
 */

/**
 * The error a {@link closeAfterResponse}'s body fails with once its bytes are out: expected, not
 * worth a log line (`listen.ts`'s `onError` recognises it).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { ConnectionEnd } from "./connection_close.ts";
 * assert.equal(new ConnectionEnd().name, "ConnectionEnd");
 * ```
 */
export class ConnectionEnd extends Error {
  /** Always `"ConnectionEnd"`. */
  override readonly name = "ConnectionEnd";

  /** Builds the error. */
  constructor() {
    super("The answer is complete; its connection is closed on purpose");
  }
}

/**
 * `response` with the same status and headers (`Connection: close` added, `Content-Length`
 * dropped), whose body fails with {@link ConnectionEnd} after its last byte and once `after`
 * has settled, so that `Deno.serve` closes the connection; see the module doc.
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

/**
 * `response` with `Connection: close` (its own headers when they can be changed, else a copy):
 * the client must not send on the connection again.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { withConnectionClose } from "./connection_close.ts";
 * assert.equal(withConnectionClose(new Response("ok")).headers.get("connection"), "close");
 * ```
 */
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
