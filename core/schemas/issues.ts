/**
 * Validation issues in FastAPI's 422 shape, `{"type", "loc": ["body", ...], "msg", "input"?,
 * "ctx"?}`, with pydantic v2's types and messages where a zod issue has a pydantic
 * counterpart, so that clients written against PETRA's server read them unchanged.
 *
 * @module
 */

/** One problem with a request body, as FastAPI reports it. */
export interface ValidationIssue {
  /** pydantic's error type, e.g. `missing`, `float_type`, `json_invalid`. */
  readonly type: string;
  /** `"body"`, then the keys and indexes leading to the problem. */
  readonly loc: readonly (string | number)[];
  /** pydantic's human-readable message, e.g. `Field required`. */
  readonly msg: string;
  /** The offending value (for `missing`: the object that lacks the field). */
  readonly input?: unknown;
  /** Details the message draws on, e.g. `expected` for `literal_error`. */
  readonly ctx?: Readonly<Record<string, unknown>>;
}

/** The parts of a zod issue this module reads (zod's issue types all fit it). */
export interface ZodIssueLike {
  /** zod's issue code, e.g. `invalid_type` or `too_small`. */
  readonly code: string;
  /** The keys and indexes leading to the problem (without `"body"`). */
  readonly path: readonly PropertyKey[];
  /** zod's message, used when no pydantic message fits. */
  readonly message: string;
  /** The offending value, when zod reports it. */
  readonly input?: unknown;
  /** The expected type (`invalid_type`). */
  readonly expected?: unknown;
  /** The allowed values (`invalid_value`). */
  readonly values?: readonly unknown[];
  /** The kind of value a size check applies to (`too_big`, `too_small`), e.g. `array`. */
  readonly origin?: string;
  /** The lower bound (`too_small`). */
  readonly minimum?: unknown;
  /** The upper bound (`too_big`). */
  readonly maximum?: unknown;
  /** Whether the bound itself is allowed (`too_big`, `too_small`). */
  readonly inclusive?: boolean;
}

/** The issue for a body that is not JSON: FastAPI's `json_invalid` at `["body", position]`. */
export function jsonInvalid(position: number, error: string): ValidationIssue {
  return {
    type: "json_invalid",
    loc: ["body", position],
    msg: "JSON decode error",
    input: {},
    ctx: { error },
  };
}

/** The issue for an empty body: FastAPI's `missing` at `["body"]`. */
export function missingBody(): ValidationIssue {
  return { type: "missing", loc: ["body"], msg: "Field required", input: null };
}

const TYPE_ERRORS: Readonly<Record<string, readonly [string, string]>> = {
  number: ["float_type", "Input should be a valid number"],
  int: ["int_type", "Input should be a valid integer"],
  string: ["string_type", "Input should be a valid string"],
  boolean: ["bool_type", "Input should be a valid boolean"],
  record: ["dict_type", "Input should be a valid dictionary"],
  object: [
    "model_attributes_type",
    "Input should be a valid dictionary or object to extract fields from",
  ],
  array: ["list_type", "Input should be a valid list"],
  tuple: ["tuple_type", "Input should be a valid tuple"],
};

/**
 * Converts zod issues into FastAPI-shaped ones. `body` is the parsed JSON the issues are about:
 * it tells a missing field (pydantic's `missing`, with the containing object as `input`) from
 * a wrong value.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import * as z from "zod";
 * import { fromZodIssues } from "./issues.ts";
 * const body = {};
 * const result = z.object({ input_marking: z.record(z.string(), z.number()) }).safeParse(body);
 * assert.ok(!result.success);
 * assert.deepEqual(fromZodIssues(result.error.issues, body)[0]?.msg, "Field required");
 * ```
 */
export function fromZodIssues(issues: readonly ZodIssueLike[], body: unknown): ValidationIssue[] {
  return issues.flatMap((issue) => fromZodIssue(issue, body));
}

function fromZodIssue(issue: ZodIssueLike, body: unknown): ValidationIssue[] {
  const path = issue.path.map((key) => typeof key === "number" ? key : String(key));
  const loc = ["body", ...path];
  const at = lookup(body, path);
  const input = echoed(at.found ? at.value : issue.input);
  const make = (type: string, msg: string, ctx?: Record<string, unknown>): ValidationIssue => ({
    type,
    loc,
    msg,
    ...(input === undefined ? {} : { input }),
    ...(ctx === undefined ? {} : { ctx }),
  });

  if (!at.found && at.parent !== undefined) {
    return [{ type: "missing", loc, msg: "Field required", input: echoed(at.parent) }];
  }
  switch (issue.code) {
    case "invalid_type": {
      // JSON.parse turns an overflowing literal such as 1e999 into Infinity.
      if (issue.expected === "number" && typeof input === "number") {
        return [make("finite_number", "Input should be a finite number")];
      }
      const [type, msg] = TYPE_ERRORS[String(issue.expected)] ??
        [`${String(issue.expected)}_type`, issue.message];
      return [make(type, msg)];
    }
    case "invalid_value": {
      const expected = orList((issue.values ?? []).map(pythonRepr));
      return [make("literal_error", `Input should be ${expected}`, { expected })];
    }
    case "invalid_union":
      return [make("union_type", unionMessage(issue))];
    case "too_big":
      if (issue.origin === "array" && Array.isArray(input)) {
        const max = Number(issue.maximum);
        return [make(
          "too_long",
          `Tuple should have at most ${max} items after validation, not ${input.length}`,
          { field_type: "Tuple", max_length: max, actual_length: input.length },
        )];
      }
      return [bound(make, issue, "less_than", "less than")];
    case "too_small":
      if (issue.origin === "array" && Array.isArray(input)) {
        // pydantic reports each missing tuple item as a missing field
        const items = input;
        return Array.from(
          { length: Math.max(0, Number(issue.minimum) - items.length) },
          (_, i) => ({
            type: "missing",
            loc: [...loc, items.length + i],
            msg: "Field required",
            input: items,
          }),
        );
      }
      return [bound(make, issue, "greater_than", "greater than")];
    case "custom":
      return [make("value_error", `Value error, ${issue.message}`, { error: issue.message })];
    default:
      return [make(issue.code, issue.message)];
  }
}

function bound(
  make: (type: string, msg: string, ctx?: Record<string, unknown>) => ValidationIssue,
  issue: ZodIssueLike,
  type: string,
  words: string,
): ValidationIssue {
  const limit = Number(issue.code === "too_big" ? issue.maximum : issue.minimum);
  const inclusive = issue.inclusive === true;
  const key = (type === "greater_than" ? "g" : "l") + (inclusive ? "e" : "t");
  return make(
    inclusive ? `${type}_equal` : type,
    `Input should be ${words}${inclusive ? " or equal to" : ""} ${limit}`,
    { [key]: limit },
  );
}

function unionMessage(issue: ZodIssueLike): string {
  const expected = [...new Set(unionExpected(issue))];
  return expected.length > 0
    ? `Input should be ${orList(expected.map((e) => `a valid ${e}`))}`
    : issue.message;
}

function unionExpected(issue: ZodIssueLike): string[] {
  const branches = (issue as { errors?: readonly (readonly ZodIssueLike[])[] }).errors ?? [];
  return branches.flatMap((branch) =>
    branch.filter((i) => i.code === "invalid_type" && i.path.length === 0)
      .map((i) => String(i.expected))
  );
}

/** The value at `path` in `body`, or the object that lacks the last key. */
function lookup(
  body: unknown,
  path: readonly (string | number)[],
): { found: true; value: unknown } | { found: false; parent: unknown } {
  let value = body;
  for (let i = 0; i < path.length; i++) {
    const key = path[i]!;
    const container = value;
    if (typeof container !== "object" || container === null) {
      return { found: false, parent: undefined };
    }
    if (!Object.hasOwn(container, key)) {
      return {
        found: false,
        parent: i === path.length - 1 && !Array.isArray(container) ? container : undefined,
      };
    }
    value = (container as Record<string | number, unknown>)[key];
  }
  return { found: true, value };
}

function pythonRepr(value: unknown): string {
  return typeof value === "string" ? `'${value}'` : JSON.stringify(value);
}

function orList(items: readonly string[]): string {
  if (items.length <= 1) return items.join("");
  return `${items.slice(0, -1).join(", ")} or ${items.at(-1)}`;
}

/** Deepest nesting echoed back in `input`; deeper values are elided. */
const ECHO_DEPTH = 16;

/**
 * The offending value as echoed in an issue, elided past {@link ECHO_DEPTH}: a deeply nested
 * body must get a 422, not exhaust the stack when the response is written.
 */
function echoed(value: unknown, depth = 0): unknown {
  if (value === null || typeof value !== "object") return value;
  if (depth >= ECHO_DEPTH) return "...";
  if (Array.isArray(value)) return value.map((v) => echoed(v, depth + 1));
  // Object.fromEntries defines own properties, so a "__proto__" key stays an ordinary key.
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, echoed(v, depth + 1)]));
}
