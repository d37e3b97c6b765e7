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
  context?: AnswerNotes,
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
  if (context !== undefined) {
    context.answerBytes = bytes.length;
    // With no extra headers, compression knows all it needs without reading any.
    if (headers === NO_HEADERS) context.plainAnswer = response;
  }
  return response;
}

const NO_HEADERS: Readonly<Record<string, string>> = {};

/** Where {@link jsonResponse} notes its answer's size (a request's context). */
export interface AnswerNotes {
  /** The answer's size in bytes. */
  answerBytes: number | undefined;
  /** The answer, when it has no extra headers (compression then reads none). */
  plainAnswer: Response | undefined;
}
