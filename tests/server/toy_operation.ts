/**
 * A fifth operation written only for tests, as a new operation would be written in `core/ops`:
 * one file with the pure function and its table row. `markingTotal` sums the supplied marking
 * after checking its ids against the net (so it has a 400 case like the real operations).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { markingTotalOperation } from "./toy_operation.ts";
 * assert.equal(markingTotalOperation.path, "/marking_total");
 * ```
 *
 * @module
 */

import { checkPlaceKeys } from "../../core/ops/check.ts";
import type { IdMap, OpsModel } from "../../core/ops/model.ts";
import { defineOperation } from "../../core/ops/operation.ts";

/** The request: a marking. */
export interface MarkingTotalRequest {
  readonly input_marking: IdMap;
}

/** The answer: the sum of the marking and how many places it names. */
export interface MarkingTotalResponse {
  readonly total: number;
  readonly n_supplied: number;
}

/** Sums the marking; refuses ids that are not places. */
export function markingTotal(
  model: OpsModel,
  request: MarkingTotalRequest,
): Promise<MarkingTotalResponse> {
  checkPlaceKeys(model.net, "input_marking", request.input_marking);
  let total = 0;
  for (const value of request.input_marking.values()) total += value;
  return Promise.resolve({ total, n_supplied: request.input_marking.size });
}

/** Its row of the operations table. */
export const markingTotalOperation = defineOperation({
  name: "marking_total",
  path: "/marking_total",
  summary: "The sum of one input marking",
  description: "Adds the supplied marking's numbers.",
  badRequest: {
    description: "An id in input_marking is not a place of the net",
    detail: "input_marking has ids that are not in the net's place set: 'p_x'",
  },
  requestSchema: ({ z, marking }) =>
    z.object({ input_marking: marking }).meta({
      id: "MarkingTotalRequest",
      description: "A marking to add up",
      example: { input_marking: { p_in: 1 } },
    }),
  responseSchema: ({ z }) =>
    z.object({ total: z.number(), n_supplied: z.int().nonnegative() }).meta({
      id: "MarkingTotalResponse",
      description: "The sum and the count",
    }),
  run: markingTotal,
});
