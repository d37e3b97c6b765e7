/**
 * Request ids for tracing: a client's `X-Request-Id` is kept when it is safe to echo and log
 * (1 to {@link MAX_REQUEST_ID_LENGTH} of letters, digits and `-._~:/+=@`), else replaced by a
 * UUID random once per process in its first 80 bits and counting requests in its last 48.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { requestIdOf } from "./request_id.ts";
 * const kept = new Request("http://localhost/", { headers: { "x-request-id": "abc-123" } });
 * assert.equal(requestIdOf(kept), "abc-123");
 * assert.match(requestIdOf(new Request("http://localhost/")), /^[0-9a-f-]{36}$/);
 * ```
 *
 * @module
 */

/** The longest id kept. */
export const MAX_REQUEST_ID_LENGTH = 128;

/** The request and response header. */
export const REQUEST_ID_HEADER = "x-request-id";

const SAFE = /^[A-Za-z0-9._~:\/+=@-]+$/;

/** The random part of this process's ids (`xxxxxxxx-xxxx-4xxx-yxxx-`). */
const PREFIX = crypto.randomUUID().slice(0, 24);
let counter = 0;

/** The request's id: its `X-Request-Id` when that is safe, else a new one. */
export function requestIdOf(request: Request): string {
  const given = request.headers.get(REQUEST_ID_HEADER);
  if (given !== null && given.length <= MAX_REQUEST_ID_LENGTH && SAFE.test(given)) return given;
  counter = (counter + 1) % 2 ** 48;
  return PREFIX + counter.toString(16).padStart(12, "0");
}
