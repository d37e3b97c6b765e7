/**
 * `HEAD` answered as RFC 9110 §9.3.2 asks: the headers `GET` would send, `Content-Length`
 * included, and no body. `new Response(null, getAnswer)` keeps the headers but not the length
 * (the runtime then sends `content-length: 0`), so {@link withoutBody} carries the length
 * over: the answer's own `Content-Length` when it has one, else the length of its body,
 * counted and dropped. `Deno.serve` keeps a `Content-Length` that a body-less answer to `HEAD`
 * states (checked on a raw socket: `tests/cli/serve/http_conventions_test.ts`).
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
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { withoutBody } from "./head.ts";
 * const stream = new Blob(["abc"]).stream();
 * const head = await withoutBody(new Response(stream, { status: 201 }));
 * assert.equal(head.status, 201);
 * assert.equal(head.headers.get("content-length"), "3");
 * ```
 */
export async function withoutBody(response: Response): Promise<Response> {
  const headers = new Headers(response.headers);
  const { status } = response;
  if (response.body !== null) {
    if (headers.has("content-length")) {
      await response.body.cancel();
    } else {
      // Only this server's own answers come here, and each is bounded (the largest is a
      // playground file, which states its length): counting reads what GET would send.
      headers.set("content-length", String((await response.arrayBuffer()).byteLength));
    }
  } else if (!headers.has("content-length") && status !== 204 && status !== 304) {
    headers.set("content-length", "0");
  }
  return new Response(null, { status, statusText: response.statusText, headers });
}
