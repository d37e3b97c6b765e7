/**
 * The request bodies of the floods in issue 16, for the default example model
 * (credit_approval_coloured: places `p_approved`, `p_declined`, `p_submitted`; transitions
 * `t_approve` "approve loan", `t_decline` "decline loan"). Each stays under the default 1 MiB
 * body limit, as a legitimate large request would.
 *
 * @example
 * ```ts
 * import { inferBody } from "./flood_bodies.ts";
 * inferBody(60_000).length; // about 0.84 MB
 * ```
 *
 * @module
 */

/**
 * A `/v2/models/credit_approval_coloured/infer` body of `rows` rows: `marking` (0, 0.5 or 1)
 * and an all-ones `marking_mask`, flat; 60,000 rows make about 0.84 MB (answer: about 5.8 MB).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { inferBody } from "./flood_bodies.ts";
 * assert.equal(JSON.parse(inferBody(2)).inputs[0].shape[0], 2);
 * ```
 */
export function inferBody(rows: number): string {
  const marking = Array.from({ length: rows * 3 }, (_, i) => [0, 0.5, 1][i % 3]);
  const mask = new Array(rows * 3).fill(1);
  return JSON.stringify({
    inputs: [
      { name: "marking", datatype: "FP32", shape: [rows, 3], data: marking },
      { name: "marking_mask", datatype: "FP32", shape: [rows, 3], data: mask },
    ],
  });
}

/**
 * An `/anomaly` body with `events` events, each with one attribute; 17,500 make about 0.9 MB.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { anomalyBody } from "./flood_bodies.ts";
 * assert.equal(JSON.parse(anomalyBody(3)).events.length, 3);
 * ```
 */
export function anomalyBody(events: number): string {
  return JSON.stringify({
    input_marking: { p_submitted: 1 },
    input_values: { p_submitted: 4200 },
    events: Array.from({ length: events }, (_, i) => ({
      name: i % 2 ? "approve loan" : "decline loan",
      attributes: { clerk: `c${i % 100}` },
    })),
  });
}

/**
 * A `/counterfactual` body over a wide range of `p_submitted`'s value: a 129-point grid and
 * refinement batches, about 160 rows through the model.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { wideCounterfactualBody } from "./flood_bodies.ts";
 * assert.deepEqual(JSON.parse(wideCounterfactualBody()).search_range, [0, 1000000]);
 * ```
 */
export function wideCounterfactualBody(): string {
  return JSON.stringify({
    input_marking: { p_submitted: 1 },
    input_values: { p_submitted: 5000 },
    target_transition: "t_approve",
    flip_place: "p_submitted",
    flip_channel: "value",
    search_range: [0, 1_000_000],
  });
}
