/**
 * Resolves a model's `input_marking_spec` / `input_values_spec` against one trace, as PETRA's
 * `_resolve_attribute_spec` does; a non-numeric attribute fails only its trace, where PETRA
 * aborts the whole command.
 *
 * @module
 */

import { quoteId } from "../net/quote_id.ts";
import type { InputSpec } from "../net/types.ts";
import { parsePythonFloat } from "./python_float.ts";
import type { Trace } from "./types.ts";

/** Which spec is being resolved; it appears in the error messages. */
export type SpecSection = "input_marking" | "input_values";

/** A trace a spec cannot be resolved against: the attribute is missing or not a number. */
export class SpecError extends Error {
  /** Always `"SpecError"`. */
  override readonly name = "SpecError";

  /**
   * Builds the error and its message.
   *
   * @param kind `"missing"` or `"not-a-number"`
   * @param section the spec being resolved
   * @param place the place whose entry failed
   * @param attribute the trace attribute the entry names
   * @param text the attribute's text (for `"not-a-number"`)
   */
  constructor(
    readonly kind: "missing" | "not-a-number",
    readonly section: SpecSection,
    readonly place: string,
    readonly attribute: string,
    readonly text?: string,
  ) {
    super(
      kind === "missing"
        ? `trace missing attribute ${quoteId(attribute)} required by ${section} for place ${
          quoteId(place)
        }`
        : `attribute ${quoteId(attribute)} is not a number: ${
          quoteId(text ?? "")
        } (required by ${section} for place ${quoteId(place)})`,
    );
  }
}

/**
 * Resolves `spec` against `trace`: place -> number, for every entry in spec order. Only
 * trace-level attributes are consulted.
 *
 * @throws {SpecError} for the first entry whose attribute is missing or not a number.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { resolveSpec, SpecError } from "./specs.ts";
 * const spec = new Map([["p_ticket", { constant: 1 }], ["p_triaged", { attribute: "severity" }]]);
 * const trace = { attributes: new Map([["severity", " 0.92 "]]), events: [] };
 * assert.deepEqual(
 *   resolveSpec(spec, trace, "input_marking"),
 *   new Map([["p_ticket", 1], ["p_triaged", 0.92]]),
 * );
 * assert.throws(() => resolveSpec(spec, { attributes: new Map() }, "input_marking"), SpecError);
 * ```
 */
export function resolveSpec(
  spec: InputSpec,
  trace: Pick<Trace, "attributes">,
  section: SpecSection,
): Map<string, number> {
  const resolved = new Map<string, number>();
  for (const [place, entry] of spec) {
    if ("constant" in entry) {
      resolved.set(place, entry.constant);
      continue;
    }
    const text = trace.attributes.get(entry.attribute);
    if (text === undefined) throw new SpecError("missing", section, place, entry.attribute);
    const value = parsePythonFloat(text);
    if (value === undefined) {
      throw new SpecError("not-a-number", section, place, entry.attribute, text);
    }
    resolved.set(place, value);
  }
  return resolved;
}

/**
 * The inputs PETRA's `score` derives from one trace: the marking, then the values when
 * `valuesSpec` is not empty (so the marking's error wins).
 *
 * @throws {SpecError} as {@link resolveSpec}.
 */
export function resolveTraceInputs(
  markingSpec: InputSpec,
  valuesSpec: InputSpec,
  trace: Pick<Trace, "attributes">,
): { marking: Map<string, number>; values: Map<string, number> | undefined } {
  const marking = resolveSpec(markingSpec, trace, "input_marking");
  const values = valuesSpec.size > 0 ? resolveSpec(valuesSpec, trace, "input_values") : undefined;
  return { marking, values };
}

/**
 * The `error` text of a scored log's entry for a trace whose spec failed: PETRA's exact text for
 * a missing attribute (a KeyError through `repr`), ours for a non-numeric one.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { SpecError, specErrorEntry } from "./specs.ts";
 * const error = new SpecError("not-a-number", "input_values", "p_submitted", "amount", "High");
 * assert.match(JSON.stringify(specErrorEntry(error, 7)), /'amount' is not a number: 'High'/);
 * ```
 */
export function specErrorEntry(error: SpecError, traceIndex: number): string {
  return error.kind === "missing"
    ? `missing attribute: ${quoteId(error.message)}`
    : `trace ${traceIndex}: ${error.message}`;
}
