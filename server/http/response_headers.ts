/**
 * Setting headers on a response that may have been built elsewhere: {@link withHeaders} sets
 * them in place, or on a copy when the headers are immutable (a response passed through from
 * `fetch`), and {@link addVary} adds a name to a `Vary` list once.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { addVary, withHeaders } from "./response_headers.ts";
 * const response = withHeaders(new Response("ok"), { vary: addVary(null, "origin") });
 * assert.equal(response.headers.get("vary"), "origin");
 * ```
 *
 * @module
 */

/**
 * `response` with `headers` set (names in lower case); the same object when its headers are
 * mutable, else a copy with the same body.
 */
export function withHeaders(
  response: Response,
  headers: Readonly<Record<string, string>>,
): Response {
  try {
    for (const [name, value] of Object.entries(headers)) response.headers.set(name, value);
    return response;
  } catch {
    const copy = new Headers(response.headers);
    for (const [name, value] of Object.entries(headers)) copy.set(name, value);
    return new Response(response.body, {
      status: response.status,
      statusText: response.statusText,
      headers: copy,
    });
  }
}

/** The `Vary` value `existing` with `name` added when it is not listed yet (case-insensitive). */
export function addVary(existing: string | null, name: string): string {
  if (!existing) return name;
  const listed = existing.split(",").map((item) => item.trim().toLowerCase());
  if (listed.includes("*") || listed.includes(name.toLowerCase())) return existing;
  return `${existing}, ${name}`;
}
