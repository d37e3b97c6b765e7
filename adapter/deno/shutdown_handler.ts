/**
 * What the `deno serve` entry (`adapter/deno/main.ts`) answers once SIGINT or SIGTERM has come.
 * `deno serve` owns the listening socket and stops the server itself on those signals
 * (denoland/deno#32862): its `shutdown()` closes the socket and every idle keep-alive connection
 * at once, and the bodies of requests still arriving become unreadable (denoland/deno#36809).
 * Nothing in a `deno serve` module can change that, so a proxy in front must retry what it
 * loses (docs/deployment.md). This wrapper makes what it loses retryable: a request whose body
 * could no longer be read is answered 503 with `Retry-After: 1` (not the app's 400, which
 * would blame the client and which no proxy retries), and every answer says
 * `Connection: close`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { shutdownHandler } from "./shutdown_handler.ts";
 * const stopping = new AbortController();
 * const fetch = shutdownHandler(() => Promise.resolve(new Response("ok")), stopping.signal);
 * assert.equal((await fetch(new Request("http://x/"))).headers.get("connection"), null);
 * stopping.abort();
 * assert.equal((await fetch(new Request("http://x/"))).headers.get("connection"), "close");
 * ```
 *
 * @module
 */

import { INCOMPLETE_BODY_DETAIL } from "../../server/body.ts";
import { withConnectionClose } from "./connection_close.ts";

/**
 * `fetch`, answering as the module doc says once `stopping` has aborted.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { shutdownHandler } from "./shutdown_handler.ts";
 * const stopping = AbortSignal.abort();
 * const unreadable = () =>
 *   Promise.resolve(Response.json({
 *     detail: "The request body could not be read to its end: the connection failed before it was complete",
 *   }, { status: 400 }));
 * const answer = await shutdownHandler(unreadable, stopping)(new Request("http://x/", { method: "POST" }));
 * assert.equal(answer.status, 503);
 * assert.equal(answer.headers.get("retry-after"), "1");
 * ```
 */
export function shutdownHandler(
  fetch: (request: Request) => Promise<Response>,
  stopping: AbortSignal,
): (request: Request) => Promise<Response> {
  return async (request) => {
    const response = await fetch(request);
    if (!stopping.aborted) return response;
    if (response.status === 400 && await unreadBody(response.clone())) {
      await response.body?.cancel();
      return Response.json({ detail: "The server is shutting down" }, {
        status: 503,
        headers: { connection: "close", "retry-after": "1" },
      });
    }
    return withConnectionClose(response);
  };
}

/** Whether a 400 says the request body could not be read to its end (`detail`, or `/v2`'s `error`). */
async function unreadBody(response: Response): Promise<boolean> {
  try {
    const body = await response.json();
    return (body?.detail ?? body?.error) === INCOMPLETE_BODY_DETAIL;
  } catch {
    return false;
  }
}
