/**
 * `sensitivity`: the exact gradient of one transition's activation with respect to every
 * input, in one run of the compiled reverse-mode graph. Keys are the supplied places plus every
 * source place of the net, sorted; an unsupplied source place is differentiated at its default.
 *
 * @module
 */

import { sourceDefault } from "../net/source_default.ts";
import { compareIds } from "../net/types.ts";
import { checkPlaceKeys, checkTransition } from "./check.ts";
import type { IdMap, OpsModel, Runner } from "./model.ts";
import { allocateInputs } from "../runtime/codec.ts";
import type { Operation } from "./operation.ts";

/** A sensitivity request: the base point and the transition to differentiate. */
export interface SensitivityRequest {
  /** Marking by place id; each supplied place is clamped to its number. */
  readonly input_marking: IdMap;
  /** Value-channel inputs by place id; absent or null means no values. */
  readonly input_values?: IdMap | null;
  /** The transition whose activation is differentiated. */
  readonly target_transition: string;
}

/** Gradients of the target's activation by place id, sorted. */
export interface SensitivityResponse {
  /** Echo of the request. */
  readonly target_transition: string;
  /** Label of the target transition. */
  readonly target_label: string;
  /** The target's activation at the base point. */
  readonly base_activation: number;
  /** ∂activation/∂marking for every supplied place and every source place. */
  readonly marking_gradients: ReadonlyMap<string, number>;
  /** ∂activation/∂value for every supplied value and every source place. */
  readonly value_gradients: ReadonlyMap<string, number>;
}

/**
 * Computes the gradients of the target transition's activation at the base point.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { sensitivity } from "./sensitivity.ts";
 * import { loadOrt } from "../../adapter/deno/ort.ts";
 * import { readBundle } from "../../adapter/deno/bundle_files.ts";
 * await using model = await readBundle(await loadOrt(), "examples/rest_serving");
 * const response = await sensitivity(model, {
 *   input_marking: new Map([["p_application", 0.5]]),
 *   target_transition: "t_approve",
 * });
 * // Near its threshold, approval rises steeply with the application's marking.
 * assert.ok(response.marking_gradients.get("p_application")! > 1);
 * ```
 */
export async function sensitivity(
  model: OpsModel,
  request: SensitivityRequest,
  runner: Runner = model,
): Promise<SensitivityResponse> {
  const { net, structure } = model;
  checkTransition(net, "target_transition", request.target_transition);
  checkPlaceKeys(net, "input_marking", request.input_marking);
  checkPlaceKeys(net, "input_values", request.input_values);

  // Supplying every source place at its default changes no activation but makes its gradient
  // an output of the graph.
  const marking = new Map(request.input_marking);
  const values = new Map(request.input_values ?? []);
  for (const p of structure.sourcePlaces) {
    const defaults = sourceDefault(net, p);
    if (!marking.has(p)) marking.set(p, defaults.marking);
    if (!values.has(p)) values.set(p, defaults.value);
  }
  const { placeIndex, transitionIndex } = model;
  const inputs = allocateInputs(1, net.places.length, net.transitions.length);
  for (const [p, x] of marking) {
    inputs.marking[placeIndex.get(p)!] = x;
    inputs.markingMask[placeIndex.get(p)!] = 1;
  }
  for (const [p, x] of values) {
    inputs.values[placeIndex.get(p)!] = x;
    inputs.valuesMask[placeIndex.get(p)!] = 1;
  }
  const target = transitionIndex.get(request.target_transition)!;
  inputs.target[target] = 1;
  const out = await runner.runPacked(inputs, { withGradient: true });
  const gradients = (keys: Iterable<string>, row: Float32Array) =>
    new Map([...keys].sort(compareIds).map((p) => [p, row[placeIndex.get(p)!]!]));
  return {
    target_transition: request.target_transition,
    target_label: model.label(request.target_transition),
    base_activation: out.transitions[target]!,
    marking_gradients: gradients(marking.keys(), out.gradMarking!),
    value_gradients: gradients(
      new Set([...(request.input_values?.keys() ?? []), ...structure.sourcePlaces]),
      out.gradValues!,
    ),
  };
}

/** The `sensitivity` row of the operations table: `POST /sensitivity`, schemas and documentation. */
export const sensitivityOperation: Operation<
  "sensitivity",
  SensitivityRequest,
  SensitivityResponse
> = {
  name: "sensitivity",
  path: "/sensitivity",
  summary: "Gradients of one transition's activation with respect to every input",
  description:
    "Exact gradients at the base point, for every supplied place and every source place.",
  badRequest: {
    description: "target_transition is not a transition, or an input id is not a place",
    detail: "target_transition 't_x' is not in the net's transition set",
  },
  requestSchema: ({ z, marking, values, transitionId, examples }) =>
    z.object({
      input_marking: marking,
      input_values: values,
      target_transition: transitionId(
        "The transition to differentiate; it must be a transition of the net",
      ),
    }).meta({
      id: "SensitivityRequest",
      description: "The base point and the transition whose activation is differentiated",
      example: {
        input_marking: examples.marking,
        input_values: examples.values,
        target_transition: "t_approve",
      },
    }),
  responseSchema: ({ z, activation, activations }) => {
    const gradients = (description: string) =>
      activations(description, { p_submitted: 7.520474173361436e-5 });
    return z.object({
      target_transition: z.string().meta({ description: "Echo of the request" }),
      target_label: z.string().meta({ description: "Label of the target transition" }),
      base_activation: activation("The target's activation at the base point", 0.97),
      marking_gradients: gradients(
        "d activation / d marking for every supplied place and every source place",
      ),
      value_gradients: gradients(
        "d activation / d value for every supplied value and every source place",
      ),
    }).meta({ id: "SensitivityResponse", description: "Gradients of one transition's activation" });
  },
  run: sensitivity,
};
