/**
 * Request ids for tracing: a client's (or proxy's) `X-Request-Id` is kept when it is safe to
 * echo and to log, 1 to {@link MAX_REQUEST_ID_LENGTH} characters of letters, digits and
 * `-._~:/+=@`; anything else (too long, spaces, quotes, control characters, non-ASCII) is
 * replaced by a generated id, as is a missing header: a UUID whose first 80 bits are random
 * once per process and whose last 48 count requests (unique, and no random number per request). The app echoes the id on the answer and
 * writes it in the access-log line.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { requestIdOf } from "./request_id.ts";
 * const kept = new Request("http://localhost/", { headers: { "x-request-id": "abc-123" } });
 * assert.equal(requestIdOf(kept), "abc-123");
 * assert.match(requestIdOf(new Request("http://localhost/")), /^[0-9a-f-]{36}$/);
 * assert.notEqual(requestIdOf(new Request("http://localhost/")), requestIdOf(new Request("http://localhost/")));
 * ```
 *
 * @module
 */

/**
 * The longest id kept.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { MAX_REQUEST_ID_LENGTH } from "./request_id.ts";
 * assert.equal(MAX_REQUEST_ID_LENGTH, 128);
 * ```
 */
export const MAX_REQUEST_ID_LENGTH = 128;

/** The request and answer header. */
export const REQUEST_ID_HEADER = "x-request-id";

const SAFE = /^[A-Za-z0-9._~:\/+=@-]+$/;

/** The random part of this process's ids (`xxxxxxxx-xxxx-4xxx-yxxx-`). */
const PREFIX = crypto.randomUUID().slice(0, 24);
let counter = 0;

/**
 * The request's id: its `X-Request-Id` when that is safe, else a new one.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { requestIdOf } from "./request_id.ts";
 * const hostile = new Request("http://localhost/", {
 *   headers: { "x-request-id": 'a" injected=1' },
 * });
 * assert.notEqual(requestIdOf(hostile), 'a" injected=1');
 * const long = new Request("http://localhost/", { headers: { "x-request-id": "a".repeat(129) } });
 * assert.equal(requestIdOf(long).length, 36);
 * ```
 */
export function requestIdOf(request: Request): string {
  const given = request.headers.get(REQUEST_ID_HEADER);
  if (given !== null && given.length <= MAX_REQUEST_ID_LENGTH && SAFE.test(given)) return given;
  counter = (counter + 1) % 2 ** 48;
  return PREFIX + counter.toString(16).padStart(12, "0");
}
