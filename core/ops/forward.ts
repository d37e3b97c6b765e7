/**
 * `forward`: every transition's firing activation and every place's activation for one marking.
 *
 * @module
 */

import { checkPlaceKeys } from "./check.ts";
import type { IdMap, OpsModel, Runner } from "./model.ts";
import { allocateInputs } from "../runtime/codec.ts";
import { IdValues } from "./id_values.ts";
import type { Operation } from "./operation.ts";

/** A forward request: the marking (clamping the places it names) and optional values. */
export interface ForwardRequest {
  /** Marking by place id; each supplied place is clamped to its number. */
  readonly input_marking: IdMap;
  /** Value-channel inputs by place id; absent or null means no values. */
  readonly input_values?: IdMap | null;
}

/** Activations by id, in sorted id order. */
export interface ForwardResponse {
  /** Firing activation of each transition. */
  readonly transition_activations: ReadonlyMap<string, number>;
  /** Activation of each place at the end of the pass. */
  readonly place_activations: ReadonlyMap<string, number>;
}

/**
 * Runs the model once on the request's marking and values.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { forward } from "./forward.ts";
 * import { loadOrt } from "../../adapter/deno/ort.ts";
 * import { readBundle } from "../../adapter/deno/bundle_files.ts";
 * await using model = await readBundle(await loadOrt(), "examples/rest_serving");
 * const response = await forward(model, { input_marking: new Map([["p_application", 1]]) });
 * assert.ok(response.transition_activations.get("t_approve")! > 0.99);
 * // An absent source place holding tokens initially takes marking 1.
 * const { place_activations } = await forward(model, { input_marking: new Map() });
 * assert.equal(place_activations.get("p_application"), 1);
 * ```
 */
export async function forward(
  model: OpsModel,
  request: ForwardRequest,
  runner: Runner = model,
): Promise<ForwardResponse> {
  const { net, placeIndex, transitionIndex } = model;
  checkPlaceKeys(net, "input_marking", request.input_marking);
  checkPlaceKeys(net, "input_values", request.input_values);
  // Straight into the run's arrays: the ids were checked above.
  const inputs = allocateInputs(1, net.places.length, net.transitions.length);
  for (const [id, x] of request.input_marking) {
    const column = placeIndex.get(id)!;
    inputs.marking[column] = x;
    inputs.markingMask[column] = 1;
  }
  for (const [id, x] of request.input_values ?? []) {
    const column = placeIndex.get(id)!;
    inputs.values[column] = x;
    inputs.valuesMask[column] = 1;
  }
  const out = await runner.runPacked(inputs, { withGradient: false });
  // Views of the run's arrays: no Map is built, and the response is written from them.
  return {
    transition_activations: new IdValues(net.transitions, transitionIndex, out.transitions),
    place_activations: new IdValues(net.places, placeIndex, out.places),
  };
}

/** The `forward` row of the operations table: `POST /forward`, its schemas and its documentation. */
export const forwardOperation: Operation<"forward", ForwardRequest, ForwardResponse> = {
  name: "forward",
  path: "/forward",
  summary: "Activations of every transition and place for one input marking",
  description: "Runs the model once (batch size 1). Supplied places are clamped; absent source " +
    "places take their initial-marking default.",
  badRequest: {
    description: "An id in input_marking or input_values is not a place of the net",
    detail: "input_marking has ids that are not in the net's place set: 'p_x'",
  },
  requestSchema: ({ z, marking, values, examples }) =>
    z.object({ input_marking: marking, input_values: values }).meta({
      id: "ForwardRequest",
      description: "One input marking (and optional values) to run the model on",
      example: { input_marking: examples.marking, input_values: examples.values },
    }),
  responseSchema: ({ z, activations }) =>
    z.object({
      transition_activations: activations("Firing activation of each transition", {
        t_approve: 0.9744884371757507,
        t_decline: 0.02521030604839325,
      }),
      place_activations: activations("Activation of each place at the end of the pass", {
        p_approved: 0.9213,
        p_declined: 0.0267,
        p_submitted: 1,
      }),
    }).meta({ id: "ForwardResponse", description: "Activations of every transition and place" }),
  run: forward,
};
