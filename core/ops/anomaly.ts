/**
 * `anomaly`: per-transition residuals |predicted − observed| and their sum for one trace, and
 * `scoreTraces` for many traces packed into one batched run. Scored transitions are those whose
 * label lacks `->`; an event observes the one whose label equals its name.
 *
 * @module
 */

import type { TraceEvent } from "../event_log/types.ts";
import { checkPlaceKeys } from "./check.ts";
import { type IdMap, type OpsModel, type Runner, runRows } from "./model.ts";
import type { Operation } from "./operation.ts";
import { scoreRows } from "./anomaly_rows.ts";

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
 * import assert from "node:assert/strict";
 * import { anomaly } from "./anomaly.ts";
 * import { loadOrt } from "../../adapter/deno/ort.ts";
 * import { readBundle } from "../../adapter/deno/bundle_files.ts";
 * await using model = await readBundle(await loadOrt(), "examples/rest_serving");
 * const approved = await anomaly(model, {
 *   input_marking: new Map([["p_application", 1]]),
 *   events: [{ name: "approve loan" }],
 * });
 * assert.ok(approved.trace_score < 1e-3); // the model expected the approval
 * ```
 */
export async function anomaly(
  model: OpsModel,
  request: AnomalyRequest,
  runner: Runner = model,
): Promise<AnomalyResponse> {
  checkPlaceKeys(model.net, "input_marking", request.input_marking);
  checkPlaceKeys(model.net, "input_values", request.input_values);
  const [answer] = await scoreTraces(model, [request], runner);
  return answer!;
}

/** Scores many traces in one batched run (ids already checked); responses in input order. */
export async function scoreTraces(
  model: OpsModel,
  traces: readonly AnomalyRequest[],
  runner: Runner = model,
): Promise<AnomalyResponse[]> {
  if (traces.length === 0) return [];
  const outputs = await runRows(
    model,
    runner,
    traces.map((t) => ({ marking: t.input_marking, values: t.input_values ?? new Map() })),
    { withGradient: false },
  );
  return traces.map((trace, i) => {
    const { ids, residuals, scores } = scoreRows(model, outputs[i]!.transitions, [trace.events]);
    return {
      trace_score: scores[0]!,
      per_transition_residuals: new Map(ids.map((id, j) => [id, residuals[j]!])),
    };
  });
}

/** The `anomaly` row of the operations table: `POST /anomaly`, its schemas and its documentation. */
export const anomalyOperation: Operation<"anomaly", AnomalyRequest, AnomalyResponse> = {
  name: "anomaly",
  path: "/anomaly",
  summary: "Residuals and a score for one trace",
  description: "Predicts the firing of every scored transition under the request's marking " +
    "and values and compares it with the transitions the events name; trace_score is the sum " +
    "of the residuals.",
  badRequest: {
    description: "An id in input_marking or input_values is not a place of the net",
    detail: "input_marking has ids that are not in the net's place set: 'p_x'",
  },
  requestSchema: ({ z, marking, values, attributes, examples }) => {
    const traceEvent = z.object({
      name: z.string().meta({
        description: "Matched exactly against the transition labels; an event whose name " +
          "matches no label is ignored",
        example: "approve loan",
      }),
      attributes: attributes("Event attributes (carried, not used for scoring)", {}),
    }).meta({ id: "TraceEvent", description: "One event of a trace" });
    return z.object({
      input_marking: marking,
      input_values: values,
      events: z.array(traceEvent).meta({
        description: "The events of the trace, in order (order and repetitions do not matter)",
        example: [{ name: "approve loan" }],
      }),
      attributes: attributes("Trace-level attributes (carried, not used for scoring)", {
        case_id: "loan-1",
      }),
    }).meta({
      id: "AnomalyRequest",
      description: "A trace to score under the marking and values it was observed with",
      example: {
        input_marking: examples.marking,
        input_values: examples.values,
        events: [{ name: "approve loan", attributes: {} }],
        attributes: { case_id: "loan-1" },
      },
    });
  },
  responseSchema: ({ z, activation, activations }) =>
    z.object({
      trace_score: activation("Sum of the residuals; higher is more anomalous", 0.05),
      per_transition_residuals: activations(
        '|predicted - observed| firing of each scored transition (labels without "->")',
        { t_approve: 0.0255, t_decline: 0.0252 },
      ),
    }).meta({ id: "AnomalyResponse", description: "Per-transition residuals and their sum" }),
  run: anomaly,
};
