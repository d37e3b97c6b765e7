/**
 * The first check of a model description: how many entries each list and table holds, before
 * any entry is read, so that validating a huge description never costs more than counting.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { checkSizes } from "./size_gate.ts";
 * const problems: string[] = [];
 * const places = Array.from({ length: 10_001 }, (_, i) => `p${i}`);
 * checkSizes({ net: { places } }, (path, message) => problems.push(`${path}: ${message}`));
 * assert.deepEqual(problems, ["net.places: 10001 places, over the limit of 10000"]);
 * ```
 *
 * @module
 */

import { isObject, own, type Report } from "./json_checks.ts";
import { MODEL_LIMITS, type ModelLimits } from "./model_limits.ts";

/** Reports every list or table of `json` longer than its limit; returns whether none is. */
export function checkSizes(
  json: unknown,
  report: Report,
  limits: ModelLimits = MODEL_LIMITS,
): boolean {
  if (!isObject(json)) return true;
  let within = true;
  const check = (path: string, value: unknown, limit: number, what: string) => {
    const count = Array.isArray(value) ? value.length : isObject(value) ? countKeys(value) : 0;
    if (count <= limit) return;
    report(path, `${count} ${what}, over the limit of ${limit}`);
    within = false;
  };
  const section = (key: string) => {
    const value = own(json, key);
    return isObject(value) ? value : {};
  };
  const net = section("net");
  const parameters = section("parameters");
  const { maxPlaces: places, maxTransitions: transitions, maxArcs: arcs } = limits;
  check("net.places", own(net, "places"), places, "places");
  check("net.transitions", own(net, "transitions"), transitions, "transitions");
  check("net.arcs", own(net, "arcs"), arcs, "arcs");
  check("net.inhibitor_arcs", own(net, "inhibitor_arcs"), arcs, "inhibitor arcs");
  check("net.arc_output_values", own(net, "arc_output_values"), arcs, "output values");
  check("net.initial_marking", own(net, "initial_marking"), places, "entries");
  check("net.labels", own(net, "labels"), transitions, "labels");
  check("net.silent_transitions", own(net, "silent_transitions"), transitions, "entries");
  check("net.structural_guards", own(net, "structural_guards"), transitions, "guards");
  check("net.rates", own(net, "rates"), transitions, "rates");
  check("net.durations", own(net, "durations"), transitions, "durations");
  check("parameters.arc_weights", own(parameters, "arc_weights"), arcs, "weights");
  const thresholds = own(parameters, "transition_thresholds");
  check("parameters.transition_thresholds", thresholds, transitions, "thresholds");
  check("parameters.guard_thresholds", own(parameters, "guard_thresholds"), transitions, "entries");
  check("input_marking_spec", own(json, "input_marking_spec"), places, "entries");
  check("input_values_spec", own(json, "input_values_spec"), places, "entries");
  return within;
}

/** Own keys, counted without building their list. */
function countKeys(object: Record<string, unknown>): number {
  let count = 0;
  for (const key in object) if (Object.hasOwn(object, key)) count++;
  return count;
}
