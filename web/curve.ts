/**
 * The counterfactual chart's curve: the target transition's activation at evenly spaced inputs
 * over the search range, each point one `forward` call with the flipped input set (the session
 * packs the concurrent calls into one batched run).
 *
 * @example
 * ```ts
 * import { activationCurve } from "./curve.ts";
 * declare const model: import("../core/ops/model.ts").OpsModel;
 * const points = await activationCurve(model, {
 *   input_marking: new Map(),
 *   flip_place: "p_submitted",
 *   target_transition: "t_approve",
 *   flip_channel: "value",
 *   search_range: [0, 10000],
 * });
 * points.length; // 101
 * ```
 *
 * @module
 */

import type { CounterfactualRequest } from "../core/ops/counterfactual.ts";
import { forward } from "../core/ops/forward.ts";
import type { OpsModel } from "../core/ops/model.ts";
import type { CurvePoint } from "./charts.ts";

/**
 * Activation of `request.target_transition` at `count` inputs from `lo` to `hi` of the search
 * range, varying `flip_place` along `flip_channel` (defaults as the operation's).
 *
 * @example
 * ```ts
 * import { activationCurve } from "./curve.ts";
 * declare const model: import("../core/ops/model.ts").OpsModel;
 * declare const request: import("../core/ops/counterfactual.ts").CounterfactualRequest;
 * (await activationCurve(model, request, 11)).map((p) => p.x);
 * ```
 */
export async function activationCurve(
  model: OpsModel,
  request: CounterfactualRequest,
  count = 101,
): Promise<CurvePoint[]> {
  const [lo, hi] = request.search_range ?? [0, 1];
  const channel = request.flip_channel ?? "marking";
  const xs = Array.from(
    { length: count },
    (_, i) => i === count - 1 ? hi : lo + ((hi - lo) * i) / (count - 1),
  );
  const answers = await Promise.all(xs.map((x) => {
    const marking = new Map(request.input_marking);
    const values = new Map(request.input_values ?? []);
    (channel === "marking" ? marking : values).set(request.flip_place, x);
    return forward(model, { input_marking: marking, input_values: values });
  }));
  return xs.map((x, i) => ({
    x,
    y: answers[i]!.transition_activations.get(request.target_transition) ?? NaN,
  }));
}
