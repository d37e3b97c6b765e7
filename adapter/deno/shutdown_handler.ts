/**
 * The handler the `deno serve` entry (`main.ts`) runs once SIGINT or SIGTERM has come. `deno
 * serve` then shuts the server down itself (denoland/deno#32862): idle keep-alive connections
 * close and bodies still arriving become unreadable, so a proxy must retry what is lost. This
 * makes that retryable: an unreadable body gets 503 with `Retry-After: 1` (not the app's 400,
 * which no proxy retries), and every response says `Connection: close`.
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

import { INCOMPLETE_BODY_DETAIL } from "../../server/pipeline/mod.ts";
import { withConnectionClose } from "./connection_close.ts";

/**
 * `fetch`, responding as the module doc says once `stopping` has aborted.
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
