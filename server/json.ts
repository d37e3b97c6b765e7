/**
 * JSON answers. {@link stringifyJson} writes `Map`s as objects with their keys sorted by id
 * (D11) without ever building a plain object from user ids, so `__proto__`, `constructor` or
 * integer-like ids keep their place; non-finite numbers are written as `null` (D12).
 *
 * @example
 * ```ts
 * import { stringifyJson } from "./json.ts";
 * stringifyJson({ a: new Map([["b", NaN], ["__proto__", 1]]) }); // '{"a":{"__proto__":1,"b":null}}'
 * ```
 *
 * @module
 */

import { compareIds } from "../core/net/types.ts";

/**
 * JSON text of `value`: like `JSON.stringify`, and `Map`s become objects with sorted keys.
 * Plain objects keep their key order; `undefined` properties are left out.
 *
 * @example
 * ```ts
 * import { stringifyJson } from "./json.ts";
 * stringifyJson(new Map([["10", 1], ["9", 2]])); // '{"10":1,"9":2}'
 * ```
 */
export function stringifyJson(value: unknown): string {
  if (value === null || value === undefined) return "null";
  switch (typeof value) {
    case "number":
      return Number.isFinite(value) ? JSON.stringify(value) : "null";
    case "string":
    case "boolean":
      return JSON.stringify(value);
    case "object":
      break;
    default:
      throw new TypeError(`Cannot write a ${typeof value} as JSON`);
  }
  if (value instanceof Map) {
    const entries = [...value.entries()].map(([k, v]) => [String(k), v] as const);
    entries.sort(([a], [b]) => compareIds(a, b));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${stringifyJson(v)}`).join(",")}}`;
  }
  if (Array.isArray(value) || ArrayBuffer.isView(value)) {
    return `[${Array.from(value as ArrayLike<unknown>, stringifyJson).join(",")}]`;
  }
  const parts: string[] = [];
  for (const [k, v] of Object.entries(value)) {
    if (v !== undefined) parts.push(`${JSON.stringify(k)}:${stringifyJson(v)}`);
  }
  return `{${parts.join(",")}}`;
}

/**
 * A JSON response (`application/json`) with the body written by {@link stringifyJson}.
 *
 * @example
 * ```ts
 * import { jsonResponse } from "./json.ts";
 * jsonResponse(404, { detail: "Not Found" }).headers.get("content-type"); // "application/json"
 * ```
 */
export function jsonResponse(
  status: number,
  body: unknown,
  headers: Readonly<Record<string, string>> = {},
): Response {
  return new Response(stringifyJson(body), {
    status,
    headers: { ...headers, "content-type": "application/json" },
  });
}
