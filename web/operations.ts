/**
 * The playground's side of the operations table: runs one row's function on a validated
 * request and returns the rendered result plus the activations that colour the net. Rows
 * without a renderer of their own show their JSON, so a new operation gets a working panel
 * without touching this file.
 *
 * @example
 * ```ts
 * import { OPERATIONS } from "../core/ops/mod.ts";
 * import { runOperation } from "./operations.ts";
 * declare const model: import("../core/ops/mod.ts").OpsModel;
 * const { element, activations } = await runOperation(OPERATIONS[0], model, {
 *   input_marking: new Map([["p_submitted", 1]]),
 * });
 * document.body.append(element);
 * activations.transition_activations;
 * ```
 *
 * @module
 */

import {
  type AnomalyResponse,
  type AnyOperation,
  type CounterfactualRequest,
  type CounterfactualResponse,
  DEFAULT_TOLERANCE,
  forward,
  type ForwardResponse,
  type IdMap,
  type OpsModel,
  type SensitivityResponse,
} from "../core/ops/mod.ts";
import { type ChartRoom, DEFAULT_ROOM } from "./charts.ts";
import { activationCurve } from "./curve.ts";
import { html } from "./dom.ts";
import {
  anomalyResult,
  counterfactualResult,
  forwardResult,
  jsonText,
  sensitivityResult,
} from "./results.ts";

/** What a run shows: the response, and the activations to colour the net with. */
export interface RunOutcome {
  readonly element: HTMLElement;
  readonly activations: ForwardResponse;
}

/** A request as the schemas hand it over: at least the base point. */
type BaseRequest = { readonly input_marking?: IdMap; readonly input_values?: IdMap | null };

/** Renders one operation's answer. */
type Renderer = (
  model: OpsModel,
  request: never,
  answer: never,
  room: ChartRoom,
) => Promise<HTMLElement>;

const label = (model: OpsModel) => (transition: string) => model.label(transition);

const RENDERERS: Readonly<Record<string, Renderer>> = {
  forward: (model, _request, answer: ForwardResponse) =>
    Promise.resolve(forwardResult(answer, label(model))),
  anomaly: (model, _request, answer: AnomalyResponse) =>
    Promise.resolve(anomalyResult(answer, label(model))),
  counterfactual: async (
    model,
    request: CounterfactualRequest,
    answer: CounterfactualResponse,
    room,
  ) =>
    counterfactualResult(
      answer,
      await activationCurve(
        model,
        request,
        undefined,
        answer.found ? answer.counterfactual_input : undefined,
      ),
      `${request.flip_place} (${request.flip_channel ?? "marking"})`,
      request.target_transition,
      request.tolerance ?? DEFAULT_TOLERANCE,
      room,
    ),
  sensitivity: (_model, _request, answer: SensitivityResponse, room) =>
    Promise.resolve(sensitivityResult(answer, room)),
};

/**
 * Runs one row of the operations table on a request already validated by its schema; charts
 * are drawn for `room` (the width of the box the result goes in).
 */
export async function runOperation(
  operation: AnyOperation,
  model: OpsModel,
  request: unknown,
  room: ChartRoom = DEFAULT_ROOM,
): Promise<RunOutcome> {
  const answer = await operation.run(model, request);
  const render = Object.hasOwn(RENDERERS, operation.name) ? RENDERERS[operation.name] : undefined;
  const element = render ? await render(model, request as never, answer as never, room) : html(
    "div",
    { class: "result", "data-kind": operation.name },
    html("pre", {}, jsonText(answer)),
  );
  // A forward answer colours the net itself; every other operation, its base point's pass.
  const activations = operation.name === "forward"
    ? answer as ForwardResponse
    : await basePoint(model, request as BaseRequest);
  return { element, activations };
}

function basePoint(model: OpsModel, request: BaseRequest): Promise<ForwardResponse> {
  return forward(model, {
    input_marking: request.input_marking ?? new Map(),
    input_values: request.input_values ?? null,
  });
}
