/**
 * JSON text of responses: `Map`s become objects with keys sorted by id, with no plain object in
 * between (so `__proto__` stays a key); non-finite numbers become `null`.
 *
 * @module
 */

import { compareIds } from "../net/types.ts";

/**
 * A value that writes its own compact JSON text (a view over a typed array, say): the writer
 * calls it instead of walking the value.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { JSON_TEXT, stringifyJson } from "./json.ts";
 * assert.equal(stringifyJson({ a: { [JSON_TEXT]: () => "[1,2]" } }), '{"a":[1,2]}');
 * ```
 */
export const JSON_TEXT: unique symbol = Symbol("petri-serve.jsonText");

/** A value with its own JSON text (see {@link JSON_TEXT}). */
export interface WritesJson {
  /** The value's compact JSON text. */
  [JSON_TEXT](): string;
}

/**
 * JSON text of `value`: like `JSON.stringify`, and `Map`s become objects with sorted keys.
 * Plain objects keep their key order; `undefined` properties are left out. With `indent`
 * (e.g. `"  "`), one member per line.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { stringifyJson } from "./json.ts";
 * assert.equal(stringifyJson(new Map([["10", 1], ["9", NaN], ["__proto__", 2]])), '{"10":1,"9":null,"__proto__":2}');
 * assert.equal(stringifyJson({ a: [1] }, "  "), '{\n  "a": [\n    1\n  ]\n}');
 * ```
 */
export function stringifyJson(value: unknown, indent = ""): string {
  return indent === "" ? compact(value) : write(value, indent, "");
}

/** The compact text, by plain concatenation: the server writes every response this way. */
function compact(value: unknown): string {
  if (value === null || value === undefined) return "null";
  switch (typeof value) {
    case "number":
      return jsonNumber(value);
    case "string":
      return JSON.stringify(value);
    case "boolean":
      return value ? "true" : "false";
    case "object":
      break;
    default:
      throw new TypeError(`Cannot write a ${typeof value} as JSON`);
  }
  if (JSON_TEXT in value) return (value as WritesJson)[JSON_TEXT]();
  if (value instanceof Map) {
    // Most Maps written are already in id order: the first key out of order sends it to the sort.
    let text = "{";
    let previous: string | undefined;
    for (const [k, v] of value) {
      const key = String(k);
      if (previous !== undefined && compareIds(previous, key) > 0) return sortedMap(value);
      text += (previous === undefined ? "" : ",") + JSON.stringify(key) + ":" + compact(v);
      previous = key;
    }
    return text + "}";
  }
  if (Array.isArray(value) || ArrayBuffer.isView(value)) {
    const items = value as ArrayLike<unknown>;
    let text = "[";
    for (let i = 0; i < items.length; i++) text += (i === 0 ? "" : ",") + compact(items[i]);
    return text + "]";
  }
  let text = "{";
  let first = true;
  for (const k of Object.keys(value)) {
    const v = (value as Record<string, unknown>)[k];
    if (v === undefined) continue;
    text += (first ? "" : ",") + JSON.stringify(k) + ":" + compact(v);
    first = false;
  }
  return text + "}";
}

/** A Map's compact text with its entries sorted by id. */
function sortedMap(value: Map<unknown, unknown>): string {
  const entries = Array.from(value, ([k, v]): [string, unknown] => [String(k), v]);
  entries.sort(([a], [b]) => compareIds(a, b));
  let text = "{";
  for (let i = 0; i < entries.length; i++) {
    const [k, v] = entries[i]!;
    text += (i === 0 ? "" : ",") + JSON.stringify(k) + ":" + compact(v);
  }
  return text + "}";
}

/** The indented text; `indent` is never empty ({@link compact} writes that case). */
function write(value: unknown, indent: string, margin: string): string {
  if (value === null || value === undefined) return "null";
  switch (typeof value) {
    case "number":
      return Number.isFinite(value) ? JSON.stringify(value) : "null";
    case "string":
    case "boolean":
      return JSON.stringify(value);
    case "object":
      if (JSON_TEXT in value) {
        return write(JSON.parse((value as WritesJson)[JSON_TEXT]()), indent, margin);
      }
      break;
    default:
      throw new TypeError(`Cannot write a ${typeof value} as JSON`);
  }
  const inner = margin + indent;
  const block = (open: string, items: string[], close: string) => {
    if (items.length === 0) return open + close;
    return `${open}\n${inner}${items.join(`,\n${inner}`)}\n${margin}${close}`;
  };
  const member = ([k, v]: readonly [string, unknown]) =>
    `${JSON.stringify(k)}: ${write(v, indent, inner)}`;
  if (value instanceof Map) {
    const entries = [...value.entries()].map(([k, v]) => [String(k), v] as const);
    entries.sort(([a], [b]) => compareIds(a, b));
    return block("{", entries.map(member), "}");
  }
  if (Array.isArray(value) || ArrayBuffer.isView(value)) {
    const items = Array.from(value as ArrayLike<unknown>, (v) => write(v, indent, inner));
    return block("[", items, "]");
  }
  const entries = Object.entries(value).filter(([, v]) => v !== undefined);
  return block("{", entries.map(member), "}");
}

/**
 * The compact JSON text of `value` in pieces, typed arrays `pieceNumbers` numbers at a time, so
 * that a large response is sent while it is written.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { jsonPieces, stringifyJson } from "./json.ts";
 * const value = { data: new Float32Array([1, 2, 3, 4, 5]), name: "x" };
 * const pieces = [...jsonPieces(value, 2)];
 * assert.equal(pieces.join(""), stringifyJson(value));
 * ```
 */
export function* jsonPieces(value: unknown, pieceNumbers: number): Generator<string> {
  if (ArrayBuffer.isView(value) && !(value instanceof DataView)) {
    const numbers = value as unknown as ArrayLike<number>;
    if (numbers.length > pieceNumbers) {
      for (let start = 0; start < numbers.length; start += pieceNumbers) {
        let text = start === 0 ? "[" : ",";
        const end = Math.min(numbers.length, start + pieceNumbers);
        for (let i = start; i < end; i++) {
          const x = numbers[i]!;
          text += (i === start ? "" : ",") + jsonNumber(x);
        }
        yield end === numbers.length ? text + "]" : text;
      }
      return;
    }
  }
  if (typeof value !== "object" || value === null || value instanceof Map || JSON_TEXT in value) {
    yield compact(value);
    return;
  }
  if (Array.isArray(value)) {
    yield "[";
    for (let i = 0; i < value.length; i++) {
      if (i > 0) yield ",";
      yield* jsonPieces(value[i], pieceNumbers);
    }
    yield "]";
    return;
  }
  let first = true;
  yield "{";
  for (const key of Object.keys(value)) {
    const item = (value as Record<string, unknown>)[key];
    if (item === undefined) continue;
    yield (first ? "" : ",") + JSON.stringify(key) + ":";
    first = false;
    yield* jsonPieces(item, pieceNumbers);
  }
  yield "}";
}

/** A number's compact JSON text: JSON has no NaN or Infinity, so those are `null`. */
export function jsonNumber(x: number): string {
  return Number.isFinite(x) ? String(x) : "null";
}
