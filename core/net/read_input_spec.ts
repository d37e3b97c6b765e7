/**
 * Reads `input_marking_spec` and `input_values_spec`: how log scoring fills each place from a
 * trace (a constant, or a trace attribute).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { readInputSpec } from "./read_input_spec.ts";
 * const problems: string[] = [];
 * const spec = readInputSpec(
 *   { p_b: { attribute: "amount" }, p_a: { constant: 1 } },
 *   "input_values_spec",
 *   (path, message) => problems.push(`${path}: ${message}`),
 * );
 * assert.deepEqual([...spec.keys()], ["p_a", "p_b"]);
 * assert.deepEqual(problems, []);
 * ```
 *
 * @module
 */

import {
  expected,
  isFloat32,
  isObject,
  keyPath,
  optionalObject,
  type Report,
  sortedEntries,
} from "./json_checks.ts";
import { quoteId } from "./quote_id.ts";
import type { InputSpec, InputSpecEntry } from "./types.ts";

/** Spec keys are not checked against the net: PETRA passes unknown places through. */
export function readInputSpec(value: unknown, path: string, report: Report): InputSpec {
  const spec = new Map<string, InputSpecEntry>();
  const what = "an object mapping place ids to {constant} or {attribute}";
  for (const [place, raw] of optionalObject(value, path, what, report)) {
    const entry = readSpecEntry(raw, keyPath(path, place), place, report);
    if (entry !== undefined) spec.set(place, entry);
  }
  return new Map(sortedEntries(spec));
}

function readSpecEntry(
  raw: unknown,
  path: string,
  place: string,
  report: Report,
): InputSpecEntry | undefined {
  const shape = `{constant: number} or {attribute: string} for place ${quoteId(place)}`;
  if (!isObject(raw)) return expected(report, path, shape, raw);
  // `constant` wins when both are present, as in PETRA's _resolve_attribute_spec.
  if (Object.hasOwn(raw, "constant")) {
    const constant = raw.constant;
    if (isFloat32(constant)) return { constant };
    return expected(
      report,
      `${path}.constant`,
      `a finite float32 number for ${quoteId(place)}`,
      constant,
    );
  }
  if (Object.hasOwn(raw, "attribute")) {
    const attribute = raw.attribute;
    if (typeof attribute === "string") return { attribute };
    return expected(report, `${path}.attribute`, `a string for ${quoteId(place)}`, attribute);
  }
  return expected(report, path, shape, raw);
}
