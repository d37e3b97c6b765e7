/**
 * `HEAD` as RFC 9110 §9.3.2 asks: the headers `GET` would send, `Content-Length` included,
 * and no body. `new Response(null, getResponse)` would drop the length (the runtime then sends
 * 0), so {@link withoutBody} carries it over, counting the body when it is not stated.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { withoutBody } from "./head.ts";
 * const head = await withoutBody(Response.json({ status: "ok" }));
 * assert.equal(head.body, null);
 * assert.equal(head.headers.get("content-length"), "15");
 * assert.equal(head.headers.get("content-type"), "application/json");
 * ```
 *
 * @module
 */

/**
 * `response` without its body, with its status and headers and the body's length as
 * `Content-Length` (except for 204 and 304, which have none).
 */
export async function withoutBody(response: Response): Promise<Response> {
  const headers = new Headers(response.headers);
  const { status } = response;
  if (response.body !== null) {
    if (headers.has("content-length")) {
      await response.body.cancel();
    } else {
      // Only this server's own, bounded responses come here: counting reads what GET sends.
      headers.set("content-length", String((await response.arrayBuffer()).byteLength));
    }
  } else if (!headers.has("content-length") && status !== 204 && status !== 304) {
    headers.set("content-length", "0");
  }
  return new Response(null, { status, statusText: response.statusText, headers });
}
