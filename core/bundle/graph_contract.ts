/**
 * The graph contract of a compiled model: the names, element types, ranks and widths of the
 * ONNX graph's inputs and outputs that the runtime feeds and reads, so that a bundle whose
 * graph breaks it is refused at load time rather than at its first request.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { contractProblems } from "./graph_contract.ts";
 * const problems = contractProblems({ graph: { input: [], output: [] } });
 * assert.equal(problems[0], "input 'marking' is missing");
 * ```
 *
 * @module
 */

import { quoteId } from "../net/quote_id.ts";
import type { PetriNet } from "../net/types.ts";
import { DataType, type ModelProto, type ValueInfoProto } from "../onnx/proto.ts";
import { BundleError } from "./bundle_error.ts";

type ElemType = typeof DataType[keyof typeof DataType];

const CONTRACT_INPUTS: readonly [string, ElemType, number][] = [
  ["marking", DataType.FLOAT, 2],
  ["marking_mask", DataType.FLOAT, 2],
  ["values", DataType.FLOAT, 2],
  ["values_mask", DataType.FLOAT, 2],
  ["target", DataType.FLOAT, 2],
  ["with_gradient", DataType.BOOL, 0],
];

const CONTRACT_OUTPUTS: readonly [string, ElemType, number][] = [
  ["transitions", DataType.FLOAT, 2],
  ["places", DataType.FLOAT, 2],
  ["place_values", DataType.FLOAT, 2],
  ["grad_marking", DataType.FLOAT, 2],
  ["grad_values", DataType.FLOAT, 2],
];

/** `place_values` came later: older bundles still load, and the operations needing it say so. */
const OPTIONAL_OUTPUTS: ReadonlySet<string> = new Set(["place_values"]);

const TYPE_NAMES: Readonly<Record<number, string>> = {
  [DataType.FLOAT]: "float32",
  [DataType.BOOL]: "bool",
  [DataType.INT64]: "int64",
};

/** Names, element types and ranks of the inputs and outputs (widths need the net). */
export function contractProblems(proto: ModelProto): string[] {
  const problems: string[] = [];
  const check = (
    kind: "input" | "output",
    actual: readonly ValueInfoProto[],
    expected: readonly [string, ElemType, number][],
  ): void => {
    const byName = new Map(actual.map((info) => [info.name, info]));
    for (const [name, type, rank] of expected) {
      const info = byName.get(name);
      if (info === undefined) {
        if (!OPTIONAL_OUTPUTS.has(name)) problems.push(`${kind} ${quoteId(name)} is missing`);
        continue;
      }
      const tensor = info.type?.tensorType;
      const elemType = tensor?.elemType ?? 0;
      if (elemType !== type) {
        const got = TYPE_NAMES[elemType] ?? `element type ${elemType}`;
        problems.push(`${kind} ${quoteId(name)} is ${got}, expected ${TYPE_NAMES[type]}`);
      }
      const dims = tensor?.shape?.dim;
      if (tensor?.shape === undefined || (dims ?? []).length !== rank) {
        const got = tensor?.shape === undefined ? "unknown" : String(dims?.length ?? 0);
        problems.push(`${kind} ${quoteId(name)} has rank ${got}, expected ${rank}`);
      }
    }
    const known = new Set(expected.map(([name]) => name));
    for (const info of actual) {
      if (!known.has(info.name)) problems.push(`unexpected ${kind} ${quoteId(info.name)}`);
    }
  };
  check("input", proto.graph?.input ?? [], CONTRACT_INPUTS);
  check("output", proto.graph?.output ?? [], CONTRACT_OUTPUTS);
  return problems;
}

/** Fixed widths must be P (place columns) or T (transition columns) of the embedded net. */
export function widthProblems(proto: ModelProto, net: PetriNet): string[] {
  const places = [net.places.length, `${net.places.length} places`] as const;
  const transitions = [net.transitions.length, `${net.transitions.length} transitions`] as const;
  const widths = new Map<string, readonly [number, string]>([
    ["marking", places],
    ["marking_mask", places],
    ["values", places],
    ["values_mask", places],
    ["target", transitions],
    ["transitions", transitions],
    ["places", places],
    ["place_values", places],
    ["grad_marking", places],
    ["grad_values", places],
  ]);
  const problems: string[] = [];
  for (const info of [...proto.graph?.input ?? [], ...proto.graph?.output ?? []]) {
    const expected = widths.get(info.name);
    if (expected === undefined) continue;
    const width = info.type?.tensorType?.shape?.dim?.[1]?.dimValue;
    if (width !== expected[0]) {
      problems.push(
        `${quoteId(info.name)} has width ${width ?? "unknown"}, ` +
          `but the embedded net has ${expected[1]}`,
      );
    }
  }
  return problems;
}

/** The error for a graph that breaks the contract: the first problem and how many more. */
export function contractError(name: string, problems: readonly string[]): BundleError {
  const more = problems.length > 1 ? ` (and ${problems.length - 1} more problems)` : "";
  return new BundleError(`${name} breaks the petri-serve graph contract: ${problems[0]}${more}`);
}
