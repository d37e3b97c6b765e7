/**
 * Reads a request body (parsed JSON) into the request type of an operation: zod validates it,
 * then every `z.record` is rebuilt as a `Map` from the raw JSON's own entries, because zod
 * drops a `"__proto__"` key from records and an id must never be lost.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import * as z from "zod";
 * import { defineSchemas } from "./define.ts";
 * import { parseRequestWith } from "./parse.ts";
 * const result = parseRequestWith(
 *   defineSchemas(z),
 *   "forward",
 *   JSON.parse('{"input_marking": {"__proto__": 0.5}}'),
 * );
 * assert.ok(result.success);
 * assert.deepEqual(result.data.input_marking.get("__proto__"), 0.5);
 * ```
 *
 * @module
 */

import type { OperationName, RequestTypes } from "../ops/operations.ts";
import { isFiniteFloat32 } from "../net/model_limits.ts";
import type { SchemaSet } from "./define.ts";
import { fromZodIssues, type ValidationIssue, type ZodIssueLike } from "./issues.ts";

export type { RequestTypes };

/** An operation that takes a request body. */
export type RequestKind = OperationName;

/** The outcome of {@link parseRequestWith}: the request, or FastAPI-shaped issues. */
export type ParseResult<T> =
  | { readonly success: true; readonly data: T }
  | { readonly success: false; readonly issues: readonly ValidationIssue[] };

/**
 * Validates `json` against the request schema of `kind` and returns the request with `Map`s
 * for its id-keyed fields, or the issues (each `loc` starting with `"body"`).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import * as z from "zod";
 * import { defineSchemas } from "./define.ts";
 * import { parseRequestWith } from "./parse.ts";
 * const result = parseRequestWith(defineSchemas(z), "sensitivity", { input_marking: {} });
 * assert.ok(!result.success);
 * assert.deepEqual(result.issues[0]?.loc, ["body", "target_transition"]);
 * ```
 */
export function parseRequestWith<K extends RequestKind>(
  schemas: SchemaSet,
  kind: K,
  json: unknown,
): ParseResult<RequestTypes[K]> {
  return parseWithSchema(schemas.requests[kind], json) as ParseResult<RequestTypes[K]>;
}

/**
 * Validates `json` against one request schema (e.g. of an operation added to the table) and
 * returns the request with `Map`s for its id-keyed fields, or the issues.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import * as z from "zod";
 * import { parseWithSchema } from "./parse.ts";
 * const schema = z.object({ input_marking: z.record(z.string(), z.number()) });
 * const result = parseWithSchema(schema, { input_marking: { p_in: 1 } });
 * assert.deepEqual(result, { success: true, data: { input_marking: new Map([["p_in", 1]]) } });
 * ```
 */
export function parseWithSchema(schemaOf: unknown, json: unknown): ParseResult<unknown> {
  return parseWellFormed(schemaOf, json) ?? parseWithZod(schemaOf, json);
}

/**
 * {@link parseWithSchema} without its fast path: zod validates the whole body. A test checks
 * the fast path's results against this one.
 *
 * @internal
 */
export function parseWithZod(schemaOf: unknown, json: unknown): ParseResult<unknown> {
  const schema = schemaOf as Schema;
  // A hostile body can hold hundreds of thousands of issues: zod first checks a copy cut to the
  // first entries of every list and map, and the whole body only when that copy passes.
  const trimmed = trim(json, 0);
  let result = schema.safeParse(trimmed.value, { reportInput: true });
  // Issues of the cut copy leave the rest unchecked; issues of the whole body are all there.
  let unchecked = trimmed.cut;
  if (result.success && trimmed.cut) {
    result = schema.safeParse(json, { reportInput: true });
    unchecked = false;
  }
  if (!result.success) {
    const found = result.error.issues;
    const issues = fromZodIssues(found.slice(0, MAX_ISSUES), json);
    if (unchecked || found.length > MAX_ISSUES) issues.push(tooManyIssues());
    return { success: false, issues };
  }
  const context: Context = { body: json, issues: [] };
  const data = withMaps(schema, json, result.data, [], context);
  if (context.issues.length > 0) return { success: false, issues: context.issues };
  return { success: true, data };
}

/**
 * The most issues a 422 lists (FastAPI lists all); a last `too_many_issues` entry says when
 * the body may hold more.
 */
export const MAX_ISSUES = 20;

/** The entries of each list and map that the first check reads. */
const TRIM_ENTRIES = MAX_ISSUES;
/** Below this depth values are kept whole: no request schema reaches that deep. */
const TRIM_DEPTH = 16;

/** `value` with every list and map cut to its first {@link TRIM_ENTRIES} entries. */
function trim(value: unknown, depth: number): { value: unknown; cut: boolean } {
  if (typeof value !== "object" || value === null || depth >= TRIM_DEPTH) {
    return { value, cut: false };
  }
  let cut = false;
  if (Array.isArray(value)) {
    const out: unknown[] = [];
    for (let i = 0; i < value.length && i < TRIM_ENTRIES; i++) {
      const item = trim(value[i], depth + 1);
      cut ||= item.cut;
      out.push(item.value);
    }
    return { value: out, cut: cut || value.length > TRIM_ENTRIES };
  }
  const out: Record<string, unknown> = {};
  let n = 0;
  for (const key in value) {
    if (!Object.hasOwn(value, key)) continue;
    if (n++ === TRIM_ENTRIES) {
      cut = true;
      break;
    }
    const item = trim((value as Record<string, unknown>)[key], depth + 1);
    cut ||= item.cut;
    // defineProperty: a `__proto__` key stays an own key, as JSON.parse made it.
    Object.defineProperty(out, key, {
      value: item.value,
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  return { value: out, cut };
}

/** The last entry of a 422 whose body may hold more issues than it lists. */
function tooManyIssues(): ValidationIssue {
  return {
    type: "too_many_issues",
    loc: ["body"],
    msg: `The body has more issues than the ${MAX_ISSUES} listed, or parts not checked ` +
      `after the first ${TRIM_ENTRIES} entries of a list or map; fix these and send it again`,
  };
}

/** The part of a zod schema this module reads: its definition and `safeParse`. */
interface Schema {
  readonly def: Def;
  safeParse(
    input: unknown,
    params?: { reportInput?: boolean },
  ):
    | { success: true; data: unknown }
    | { success: false; error: { issues: readonly ZodIssueLike[] } };
}

interface Context {
  /** The whole body, for locating issues. */
  readonly body: unknown;
  readonly issues: ValidationIssue[];
}

interface Def {
  readonly type: string;
  readonly innerType?: Schema;
  readonly shape?: Readonly<Record<string, Schema>>;
  readonly element?: Schema;
  readonly valueType?: Schema;
  readonly keyType?: Schema;
  readonly checks?: readonly unknown[];
  readonly catchall?: Schema;
  readonly entries?: Readonly<Record<string, unknown>>;
}

/** What {@link wellFormed} returns for a value it does not accept (then zod decides). */
const OFF: unique symbol = Symbol("off");

/**
 * The fast path of {@link parseWithSchema}: the request when `json` is plainly valid, read
 * without zod's parse context and issue lists for the common shapes; `undefined` whenever
 * anything is off, so that zod answers it, issues and all. A test checks that both paths give
 * equal requests.
 *
 * @internal
 */
export function parseWellFormed(
  schemaOf: unknown,
  json: unknown,
): { readonly success: true; readonly data: unknown } | undefined {
  const data = wellFormed(schemaOf as Schema, json);
  return data === OFF ? undefined : { success: true, data };
}

function wellFormed(schema: Schema, raw: unknown): unknown {
  const def = schema.def;
  if (isFloat32Number(def)) return typeof raw === "number" && isFiniteFloat32(raw) ? raw : OFF;
  if (def.checks !== undefined && def.checks.length > 0) return zodPart(schema, raw);
  switch (def.type) {
    case "object": {
      if (!isPlainObject(raw) || def.catchall !== undefined) return OFF;
      const out: Record<string, unknown> = {};
      for (const key in def.shape!) {
        const field = def.shape[key]!;
        const value = wellFormed(field, own(raw, key));
        if (value === OFF) return OFF;
        // zod leaves out an absent optional field, as here.
        if (value !== undefined) out[key] = value;
      }
      return out;
    }
    case "record": {
      const keyDef = def.keyType?.def;
      if (!isPlainObject(raw) || keyDef?.type !== "string" || keyDef.checks?.length) return OFF;
      const map = new Map<string, unknown>();
      // In Object.entries's order, `__proto__` included (JSON.parse makes it an own key).
      for (const key in raw) {
        if (!Object.hasOwn(raw, key)) continue;
        const value = wellFormed(def.valueType!, raw[key]);
        if (value === OFF) return OFF;
        map.set(key, value);
      }
      return map;
    }
    case "array": {
      if (!Array.isArray(raw)) return OFF;
      const out = new Array<unknown>(raw.length);
      for (let i = 0; i < raw.length; i++) {
        const value = wellFormed(def.element!, raw[i]);
        if (value === OFF) return OFF;
        out[i] = value;
      }
      return out;
    }
    case "number":
      return typeof raw === "number" && Number.isFinite(raw) ? raw : OFF;
    case "string":
      return typeof raw === "string" ? raw : OFF;
    case "boolean":
      return typeof raw === "boolean" ? raw : OFF;
    case "enum":
      return typeof raw === "string" && def.entries !== undefined &&
          Object.hasOwn(def.entries, raw) && def.entries[raw] === raw
        ? raw
        : OFF;
    case "optional":
      return raw === undefined ? undefined : wellFormed(def.innerType!, raw);
    case "nullable":
      return raw === null ? null : wellFormed(def.innerType!, raw);
    default:
      return zodPart(schema, raw);
  }
}

/** One part of the body the fast path does not read itself: zod parses it, as a whole body. */
function zodPart(schema: Schema, raw: unknown): unknown {
  const result = schema.safeParse(raw);
  if (!result.success) return OFF;
  const context: Context = { body: raw, issues: [] };
  const data = withMaps(schema, raw, result.data, [], context);
  return context.issues.length > 0 ? OFF : data;
}

/** `finiteFloat32`'s schema: read here, as it is every marking's and value map's number. */
function isFloat32Number(def: Def): boolean {
  const check = def.checks?.length === 1 ? def.checks[0] as { def?: { fn?: unknown } } : undefined;
  return def.type === "number" && check?.def?.fn === isFiniteFloat32;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** `parsed` (zod's output for `raw`) with every record rebuilt as a `Map` of `raw`'s entries. */
function withMaps(
  schema: Schema,
  raw: unknown,
  parsed: unknown,
  path: readonly (string | number)[],
  context: Context,
): unknown {
  const def = schema.def;
  switch (def.type) {
    case "default":
    case "prefault":
      // An absent field takes the default: read the default itself.
      return withMaps(def.innerType!, raw === undefined ? parsed : raw, parsed, path, context);
    case "optional":
    case "nullable":
    case "readonly":
      if (raw === undefined || raw === null) return parsed;
      return withMaps(def.innerType!, raw, parsed, path, context);
    case "object": {
      const out = { ...(parsed as Record<string, unknown>) };
      for (const [key, field] of Object.entries(def.shape!)) {
        if (!Object.hasOwn(out, key)) continue;
        out[key] = withMaps(field, own(raw, key), out[key], [...path, key], context);
      }
      return out;
    }
    case "array":
      return (parsed as unknown[]).map((item, i) =>
        withMaps(def.element!, (raw as unknown[])[i], item, [...path, i], context)
      );
    case "record":
      return recordToMap(def.valueType!, raw, parsed, path, context);
    default:
      return parsed;
  }
}

function recordToMap(
  valueType: Schema,
  raw: unknown,
  parsed: unknown,
  path: readonly (string | number)[],
  context: Context,
): Map<string, unknown> {
  const out = parsed as Record<string, unknown>;
  const map = new Map<string, unknown>();
  for (const [key, value] of Object.entries(raw as Record<string, unknown>)) {
    if (Object.hasOwn(out, key)) {
      map.set(key, withMaps(valueType, value, out[key], [...path, key], context));
      continue;
    }
    // zod left this key out (`__proto__`): validate its value here.
    const result = valueType.safeParse(value, { reportInput: true });
    if (result.success) {
      map.set(key, withMaps(valueType, value, result.data, [...path, key], context));
    } else {
      const located = result.error.issues.map((issue) => ({
        ...issue,
        path: [...path, key, ...issue.path],
      }));
      context.issues.push(...fromZodIssues(located, context.body));
    }
  }
  return map;
}

function own(object: unknown, key: string): unknown {
  return typeof object === "object" && object !== null && Object.hasOwn(object, key)
    ? (object as Record<string, unknown>)[key]
    : undefined;
}
