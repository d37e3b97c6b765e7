/**
 * The anomaly score of many traces straight from the `transitions` output of one packed run, as
 * flat arrays (no map per trace); the residual is |predicted − observed| in float32, as PETRA's.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { scoreRows } from "./anomaly_rows.ts";
 * import { loadOrt } from "../../adapter/deno/ort.ts";
 * import { readBundle } from "../../adapter/deno/bundle_files.ts";
 * await using model = await readBundle(await loadOrt(), "examples/rest_serving");
 * // The `transitions` output of a packed run of two rows, [2, T]: t_approve, t_decline.
 * const transitions = Float32Array.of(0.75, 0.25, 0.5, 0.125);
 * const scored = scoreRows(model, transitions, [[{ name: "approve loan" }], []]);
 * assert.deepEqual(scored.ids, ["t_approve", "t_decline"]);
 * assert.deepEqual([...scored.scores], [0.5, 0.625]); // each trace's score
 * ```
 *
 * @module
 */

import type { OpsModel } from "./model.ts";

/** The scores of a batch: row `r`'s residual of `ids[j]` is `residuals[r * ids.length + j]`. */
export interface ScoredRows {
  /** The scored transition ids, in the plan's (sorted) order. */
  readonly ids: readonly string[];
  /** Residuals, row-major `[rows, ids.length]`. */
  readonly residuals: Float64Array;
  /** Each row's score: the sum of its residuals. */
  readonly scores: Float64Array;
}

/** Which output columns are scored, and which label observes which (computed once per model). */
interface RowPlan {
  /** The scored transition ids, sorted. */
  readonly ids: readonly string[];
  /** The output column of each of `ids`. */
  readonly columns: Int32Array;
  /** Label -> position in `ids`. */
  readonly positions: ReadonlyMap<string, number>;
}

const rowPlans = new WeakMap<OpsModel, RowPlan>();

function rowPlan(model: OpsModel): RowPlan {
  const known = rowPlans.get(model);
  if (known) return known;
  const ids: string[] = [];
  const columns: number[] = [];
  const positions = new Map<string, number>();
  model.net.transitions.forEach((t, column) => {
    const label = model.label(t);
    if (label.includes("->")) return;
    positions.set(label, ids.length); // sorted ids: a later id with the same label wins
    ids.push(t);
    columns.push(column);
  });
  const made = { ids, columns: Int32Array.from(columns), positions };
  rowPlans.set(model, made);
  return made;
}

/**
 * Scores `events.length` traces from `transitions`, the `[rows, T]` output of their packed
 * run, row `r` being the trace with events `events[r]`.
 */
export function scoreRows(
  model: OpsModel,
  transitions: Float32Array,
  events: readonly (readonly { readonly name: string }[])[],
): ScoredRows {
  const { ids, columns, positions } = rowPlan(model);
  const T = model.net.transitions.length;
  const k = ids.length;
  const residuals = new Float64Array(events.length * k);
  const scores = new Float64Array(events.length);
  const observed = new Uint8Array(k);
  for (let r = 0; r < events.length; r++) {
    observed.fill(0);
    for (const event of events[r]!) {
      const j = positions.get(event.name);
      if (j !== undefined) observed[j] = 1;
    }
    let score = 0;
    for (let j = 0; j < k; j++) {
      // float32 subtraction, as PETRA computes the residual on float32 tensors
      const residual = Math.abs(Math.fround(transitions[r * T + columns[j]!]! - observed[j]!));
      residuals[r * k + j] = residual;
      score += residual;
    }
    scores[r] = score;
  }
  return { ids, residuals, scores };
}
