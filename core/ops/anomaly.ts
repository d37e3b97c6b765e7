/**
 * `anomaly`: per-transition residuals |predicted − observed| and their sum for one trace
 * (SEMANTICS.md Part B §3), and `scoreTraces` for many traces packed into one batched run.
 *
 * Scored transitions are those whose label lacks `->`, in sorted id order; an event counts for
 * the scored transition whose label equals its name exactly (when two share a label, the later
 * id wins); unknown names are ignored; repetitions count once.
 *
 * @example
 * ```ts
 * import { anomaly } from "./anomaly.ts";
 * declare const model: import("./model.ts").OpsModel;
 * const answer = await anomaly(model, {
 *   input_marking: new Map([["p_in", 0.5]]),
 *   events: [{ name: "Path A" }],
 * });
 * answer.trace_score;
 * ```
 *
 * @module
 */

import type { TraceEvent } from "../traces/types.ts";
import { checkPlaceKeys } from "./check.ts";
import type { IdMap, OpsModel } from "./model.ts";
import { scoringPlan } from "./anomaly_rows.ts";

/** One event of a trace; only its name matters for scoring, attributes are carried along. */
export type AnomalyEvent = Pick<TraceEvent, "name"> & Partial<Pick<TraceEvent, "attributes">>;

/** An anomaly request: the marking and values the trace was observed under, and its events. */
export interface AnomalyRequest {
  /** Marking by place id; each supplied place is clamped to its number. */
  readonly input_marking: IdMap;
  /** Value-channel inputs by place id; absent or null means no values. */
  readonly input_values?: IdMap | null;
  /** The trace's events, in order (order and repetitions do not change the score). */
  readonly events: readonly AnomalyEvent[];
  /** Trace-level attributes, carried along and not used for scoring. */
  readonly attributes?: ReadonlyMap<string, string>;
}

/** Residuals by scored transition id (sorted) and their sum. */
export interface AnomalyResponse {
  /** Sum of the residuals; higher is more anomalous. */
  readonly trace_score: number;
  /** |predicted − observed| firing of each scored transition, by id. */
  readonly per_transition_residuals: ReadonlyMap<string, number>;
}

/**
 * Scores one trace.
 *
 * @example
 * ```ts
 * import { anomaly } from "./anomaly.ts";
 * declare const model: import("./model.ts").OpsModel;
 * (await anomaly(model, { input_marking: new Map(), events: [] })).per_transition_residuals;
 * ```
 */
export async function anomaly(model: OpsModel, request: AnomalyRequest): Promise<AnomalyResponse> {
  checkPlaceKeys(model.net, "input_marking", request.input_marking);
  checkPlaceKeys(model.net, "input_values", request.input_values);
  const [answer] = await scoreTraces(model, [request]);
  return answer!;
}

/**
 * Scores many traces in one batched run (ids are assumed checked, e.g. by the batch command's
 * spec resolution); answers in input order.
 *
 * @example
 * ```ts
 * import { scoreTraces } from "./anomaly.ts";
 * declare const model: import("./model.ts").OpsModel;
 * const answers = await scoreTraces(model, [{ input_marking: new Map(), events: [] }]);
 * ```
 */
export async function scoreTraces(
  model: OpsModel,
  traces: readonly AnomalyRequest[],
): Promise<AnomalyResponse[]> {
  if (traces.length === 0) return [];
  const scoring = scoringPlan(model);
  const outputs = await model.run(
    traces.map((t) => ({ marking: t.input_marking, values: t.input_values ?? new Map() })),
    { withGradient: false },
  );
  return traces.map((trace, i) => {
    const observed = new Set<string>();
    for (const event of trace.events) {
      const id = scoring.byLabel.get(event.name);
      if (id !== undefined) observed.add(id);
    }
    const row = outputs[i]!.transitions;
    const residuals = new Map<string, number>();
    let score = 0;
    for (const [id, column] of scoring.columns) {
      // float32 subtraction, as PETRA computes the residual on float32 tensors
      const residual = Math.abs(Math.fround(row[column]! - (observed.has(id) ? 1 : 0)));
      residuals.set(id, residual);
      score += residual;
    }
    return { trace_score: score, per_transition_residuals: residuals };
  });
}
