/**
 * The playground's table of operations: each runs one `core/ops` function on a validated
 * request and returns the rendered answer plus the activations that colour the net (the
 * forward pass at the request's base point).
 *
 * @example
 * ```ts
 * import { OPERATIONS } from "./operations.ts";
 * declare const model: import("../core/ops/model.ts").OpsModel;
 * const { element, activations } = await OPERATIONS.forward(model, {
 *   input_marking: new Map([["p_submitted", 1]]),
 * });
 * document.body.append(element);
 * activations.transition_activations;
 * ```
 *
 * @module
 */

import { anomaly } from "../core/ops/anomaly.ts";
import { counterfactual } from "../core/ops/counterfactual.ts";
import { forward, type ForwardResponse } from "../core/ops/forward.ts";
import type { IdMap, OpsModel } from "../core/ops/model.ts";
import { sensitivity } from "../core/ops/sensitivity.ts";
import type { RequestKind, RequestTypes } from "../core/schemas.ts";
import { activationCurve } from "./curve.ts";
import {
  anomalyResult,
  counterfactualResult,
  forwardResult,
  sensitivityResult,
} from "./results.ts";

/** What a run shows: the answer, and the activations to colour the net with. */
export interface RunOutcome {
  readonly element: HTMLElement;
  readonly activations: ForwardResponse;
}

/** Runs one operation on a request already validated by the schemas. */
export type Runner<K extends RequestKind> = (
  model: OpsModel,
  request: RequestTypes[K],
) => Promise<RunOutcome>;

/** The operations in the order the page lists them. */
export const OPERATION_KINDS: readonly RequestKind[] = [
  "forward",
  "anomaly",
  "counterfactual",
  "sensitivity",
];

/**
 * The runner of each operation.
 *
 * @example
 * ```ts
 * import { OPERATIONS } from "./operations.ts";
 * declare const model: import("../core/ops/model.ts").OpsModel;
 * await OPERATIONS.sensitivity(model, {
 *   input_marking: new Map(),
 *   target_transition: "t_approve",
 * });
 * ```
 */
export const OPERATIONS: { readonly [K in RequestKind]: Runner<K> } = {
  async forward(model, request) {
    const answer = await forward(model, request);
    return { element: forwardResult(answer, labelOf(model)), activations: answer };
  },
  async anomaly(model, request) {
    const answer = await anomaly(model, request);
    return {
      element: anomalyResult(answer, labelOf(model)),
      activations: await basePoint(model, request),
    };
  },
  async counterfactual(model, request) {
    const answer = await counterfactual(model, request);
    const boundary = answer.found ? answer.counterfactual_input : undefined;
    const curve = await activationCurve(model, request, undefined, boundary);
    const channel = request.flip_channel ?? "marking";
    return {
      element: counterfactualResult(
        answer,
        curve,
        `${request.flip_place} (${channel})`,
        request.target_transition,
        request.tolerance ?? 1e-3,
      ),
      activations: await basePoint(model, request),
    };
  },
  async sensitivity(model, request) {
    const answer = await sensitivity(model, request);
    return { element: sensitivityResult(answer), activations: await basePoint(model, request) };
  },
};

function labelOf(model: OpsModel): (transition: string) => string {
  return (transition) => model.label(transition);
}

function basePoint(
  model: OpsModel,
  request: { readonly input_marking: IdMap; readonly input_values?: IdMap | null },
): Promise<ForwardResponse> {
  return forward(model, {
    input_marking: request.input_marking,
    input_values: request.input_values ?? null,
  });
}
