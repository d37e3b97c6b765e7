/**
 * JSON answers: {@link jsonResponse} sends a body written by `core/json.ts`'s
 * `stringifyJson` (Maps as objects with sorted keys, non-finite numbers as `null`).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { stringifyJson } from "./json.ts";
 * assert.deepEqual(stringifyJson({ a: new Map([["b", NaN], ["__proto__", 1]]) }), '{"a":{"__proto__":1,"b":null}}');
 * ```
 *
 * @module
 */

import { stringifyJson } from "../core/json.ts";

export { stringifyJson };

const encoder = new TextEncoder();

/**
 * A JSON response (`application/json`) with the body written by {@link stringifyJson}, as
 * UTF-8 bytes with their `Content-Length` (so that the compression check and `HEAD` know the
 * size without reading the body).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { jsonResponse } from "./json.ts";
 * const response = jsonResponse(404, { detail: "Not Found" });
 * assert.deepEqual(response.headers.get("content-type"), "application/json");
 * assert.equal(response.headers.get("content-length"), "22");
 * ```
 */
export function jsonResponse(
  status: number,
  body: unknown,
  headers: Readonly<Record<string, string>> = NO_HEADERS,
): Response {
  const text = stringifyJson(body);
  const bytes = encoder.encode(text);
  const response = new Response(bytes, {
    status,
    headers: {
      ...headers,
      "content-type": "application/json",
      "content-length": String(bytes.length),
    },
  });
  sizes.set(response, bytes.length);
  if (headers === NO_HEADERS) plain.add(response);
  return response;
}

const NO_HEADERS: Readonly<Record<string, string>> = {};
/** Answers of {@link jsonResponse} with no extra headers (no `Vary`, no `Content-Encoding`). */
const plain = new WeakSet<Response>();

/**
 * Whether `response` is a {@link jsonResponse} made without extra headers: its only headers are
 * `Content-Type: application/json` and its `Content-Length` (as long as nobody set another),
 * which lets `compression.ts` decide about a small one without reading them.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { isPlainJsonResponse, jsonResponse } from "./json.ts";
 * assert.equal(isPlainJsonResponse(jsonResponse(200, { a: 1 })), true);
 * assert.equal(isPlainJsonResponse(jsonResponse(503, {}, { "retry-after": "1" })), false);
 * ```
 */
export function isPlainJsonResponse(response: Response): boolean {
  return plain.has(response);
}

const sizes = new WeakMap<Response, number>();

/**
 * The length of a {@link jsonResponse}'s text (its size in bytes when it is ASCII, as JSON
 * answers nearly always are), for admission control (`admission.ts`); `undefined` for any
 * other response.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { answerSizeOf, jsonResponse } from "./json.ts";
 * assert.equal(answerSizeOf(jsonResponse(200, { a: 1 })), 7);
 * assert.equal(answerSizeOf(new Response("x")), undefined);
 * ```
 */
export function answerSizeOf(response: Response): number | undefined {
  return sizes.get(response);
}
