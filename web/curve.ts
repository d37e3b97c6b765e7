/**
 * The counterfactual chart's curve: the target transition's activation at evenly spaced
 * inputs over the search range, one `forward` call each (the session packs them into one
 * batched run). Points one closing width either side of the boundary found make a jump over
 * 0.5 show as a step, not a slope between samples.
 *
 * @module
 */

import {
  CLOSING_WIDTH,
  type CounterfactualRequest,
  forward,
  type OpsModel,
} from "../core/ops/mod.ts";
import type { CurvePoint } from "./charts.ts";

/**
 * Activation of `request.target_transition` at `count` inputs from `lo` to `hi` of the search
 * range, varying `flip_place` along `flip_channel` (defaults as the operation's); with
 * `boundary`, also at the boundary and one closing width either side of it (inside the range).
 * Points are sorted by x.
 *
 * @example
 * ```ts
 * import { activationCurve } from "./curve.ts";
 * declare const model: import("../core/ops/mod.ts").OpsModel;
 * declare const request: import("../core/ops/mod.ts").CounterfactualRequest;
 * (await activationCurve(model, request, 11, 0.3)).map((p) => p.x); // 14 inputs
 * ```
 */
export async function activationCurve(
  model: OpsModel,
  request: CounterfactualRequest,
  count = 101,
  boundary?: number,
): Promise<CurvePoint[]> {
  const [lo, hi] = request.search_range ?? [0, 1];
  const channel = request.flip_channel ?? "marking";
  const grid = Array.from(
    { length: count },
    (_, i) => i === count - 1 ? hi : lo + ((hi - lo) * i) / (count - 1),
  );
  const width = (hi - lo) * CLOSING_WIDTH;
  const near = boundary === undefined ? [] : [boundary - width, boundary, boundary + width];
  const xs = [...new Set([...grid, ...near.filter((x) => lo <= x && x <= hi)])]
    .sort((a, b) => a - b);
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
