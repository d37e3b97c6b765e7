/**
 * The checks every reader of the model description shares: how a problem is reported (a JSON
 * path and a message), how an offending value is shown, and the small shape tests.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { keyPath, show } from "./json_checks.ts";
 * assert.equal(keyPath("net.labels", "t_a"), "net.labels.t_a");
 * assert.equal(keyPath("net.labels", "a b"), "net.labels['a b']");
 * assert.equal(show(undefined), "nothing");
 * ```
 *
 * @module
 */

import { isFiniteFloat32 } from "./model_limits.ts";
import { quoteId } from "./quote_id.ts";
import { type Arc, compareIds } from "./types.ts";

/** Receives one problem: the JSON path of the offending value and what is wrong with it. */
export type Report = (path: string, message: string) => void;
/** A parsed JSON object. */
export type JsonObject = Record<string, unknown>;

const IDENTIFIER = /^[A-Za-z_$][\w$]*$/;

/** A JSON object (not `null`, not an array). */
export function isObject(value: unknown): value is JsonObject {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** Reads an own key only, so ids like `constructor` never reach `Object.prototype`. */
export function own(object: JsonObject, key: string): unknown {
  return Object.hasOwn(object, key) ? object[key] : undefined;
}

/** `undefined` or `null`: an optional field Python wrote as `None`. */
export function isAbsent(value: unknown): value is undefined | null {
  return value === undefined || value === null;
}

/** A number that is neither infinite nor NaN. */
export function isFiniteNumber(value: unknown): value is number {
  return typeof value === "number" && Number.isFinite(value);
}

/** A number that becomes a finite float32: what the compiled graph can hold. */
export function isFloat32(value: unknown): value is number {
  return typeof value === "number" && isFiniteFloat32(value);
}

/** An integer no smaller than `min`. */
export function isIntegerAtLeast(value: unknown, min: number): value is number {
  return Number.isInteger(value) && (value as number) >= min;
}

/** A non-empty string. */
export function isId(value: unknown): value is string {
  return typeof value === "string" && value !== "";
}

/** The path of an id-keyed entry: `base.id`, or `base['a b']` when the id is no identifier. */
export function keyPath(base: string, key: string): string {
  return IDENTIFIER.test(key) ? `${base}.${key}` : `${base}[${quoteId(key)}]`;
}

/** A short rendering of an offending value for a message. */
export function show(value: unknown): string {
  if (value === undefined) return "nothing";
  if (typeof value === "string") return quoteId(value);
  if (typeof value === "number") return String(value);
  if (typeof value === "bigint" || typeof value === "function" || typeof value === "symbol") {
    return `a ${typeof value}`;
  }
  let text: string;
  try {
    text = JSON.stringify(value);
  } catch {
    return "an unserialisable object";
  }
  return text.length > 60 ? `${text.slice(0, 57)}...` : text;
}

/** Reports a value of the wrong shape; returns `undefined` so readers can `return` it. */
export function expected(report: Report, path: string, what: string, value: unknown): undefined {
  report(path, `expected ${what}, got ${show(value)}`);
  return undefined;
}

/** An arc as messages name it: `'p_a' -> 't_b'`. */
export function arcLabel(from: string, to: string): string {
  return `${quoteId(from)} -> ${quoteId(to)}`;
}

/** Orders arcs by `(from, to)`. */
export function compareArcs(a: Arc, b: Arc): number {
  return compareIds(a.from, b.from) || compareIds(a.to, b.to);
}

/** A map's entries sorted by id. */
export function sortedEntries<V>(map: ReadonlyMap<string, V>): [string, V][] {
  return [...map].sort(([a], [b]) => compareIds(a, b));
}

/** An object for an optional table: absent or `null` reads as empty. */
export function optionalObject(
  value: unknown,
  path: string,
  what: string,
  report: Report,
): [string, unknown][] {
  if (isAbsent(value)) return [];
  if (!isObject(value)) {
    expected(report, path, what, value);
    return [];
  }
  return Object.entries(value);
}

/** An array for an optional list: absent or `null` reads as empty. */
export function optionalArray(
  value: unknown,
  path: string,
  what: string,
  report: Report,
): unknown[] {
  if (isAbsent(value)) return [];
  if (!Array.isArray(value)) {
    expected(report, path, what, value);
    return [];
  }
  return value;
}
