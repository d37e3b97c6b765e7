/**
 * Writes a model as its canonical `petri-net-model/1` document, the inverse of
 * `parseModelDescription`.
 *
 * @module
 */

import { compareArcs, sortedEntries } from "./json_checks.ts";
import {
  arcKey,
  compareIds,
  type InputSpec,
  type ModuleSettings,
  type Parameters,
  type PetriModel,
  type PetriNet,
} from "./types.ts";

/** The value of the `format` field this module reads and writes. */
export const MODEL_DESCRIPTION_FORMAT = "petri-net-model/1";

/**
 * Writes a model as its canonical `petri-net-model/1` document: keys in the documented order,
 * every table present, ids sorted, arcs sorted by `(from, to)`. Id-keyed objects are built
 * with `Object.fromEntries`, so an id such as `__proto__` stays an ordinary own key.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { describeModel, parseModelDescription } from "./parse.ts";
 * const json = JSON.parse(
 *   await Deno.readTextFile("examples/rest_serving/rest_serving.model.json"),
 * );
 * const written = describeModel(parseModelDescription(json));
 * // Read back, the canonical document gives the same model.
 * assert.deepEqual(parseModelDescription(written), parseModelDescription(json));
 * ```
 */
export function describeModel(model: PetriModel): object {
  return Object.fromEntries([
    ["format", MODEL_DESCRIPTION_FORMAT],
    ...optionalEntry("scenario_name", model.scenarioName),
    ...optionalEntry("scenario_description", model.scenarioDescription),
    ["input_marking_spec", describeSpec(model.inputMarkingSpec)],
    ["input_values_spec", describeSpec(model.inputValuesSpec)],
    ...optionalEntry("petra_version", model.petraVersion),
    ["net", describeNet(model.net)],
    ["module", describeModule(model.module)],
    ["parameters", describeParameters(model.net, model.parameters)],
  ]);
}

function optionalEntry(key: string, value: string | undefined): [string, string][] {
  return value === undefined ? [] : [[key, value]];
}

function describeSpec(spec: InputSpec): object {
  return Object.fromEntries(
    sortedEntries(spec).map(([place, entry]) => [
      place,
      "constant" in entry ? { constant: entry.constant } : { attribute: entry.attribute },
    ]),
  );
}

function describeNet(net: PetriNet): object {
  return {
    places: [...net.places].sort(compareIds),
    transitions: [...net.transitions].sort(compareIds),
    arcs: [...net.arcs].sort(compareArcs).map(({ from, to }) => ({ from, to })),
    inhibitor_arcs: [...net.inhibitorArcs]
      .sort((a, b) => compareIds(a.place, b.place) || compareIds(a.transition, b.transition))
      .map(({ place, transition }) => ({ place, transition })),
    initial_marking: Object.fromEntries(sortedEntries(net.initialMarking)),
    labels: Object.fromEntries(sortedEntries(net.labels)),
    silent_transitions: [...net.silentTransitions].sort(compareIds),
    structural_guards: Object.fromEntries(
      sortedEntries(net.structuralGuards).map((
        [id, { place, op, value }],
      ) => [id, { place, op, value }]),
    ),
    rates: Object.fromEntries(sortedEntries(net.rates)),
    durations: Object.fromEntries(sortedEntries(net.durations)),
    arc_output_values: [...net.arcOutputValues]
      .sort((a, b) => compareIds(a.transition, b.transition) || compareIds(a.place, b.place))
      .map(({ transition, place, value }) => ({ transition, place, value })),
  };
}

function describeModule(module: ModuleSettings): object {
  return {
    sharpness: module.sharpness,
    num_steps: module.numSteps,
    firing: module.firing,
    routing: module.routing,
  };
}

/** A missing weight is written as `null`, so reading the document back names it. */
function describeParameters(net: PetriNet, parameters: Parameters): object {
  return {
    arc_weights: [...net.arcs].sort(compareArcs).map(({ from, to }) => ({
      from,
      to,
      weight: parameters.arcWeights.get(arcKey(from, to)) ?? null,
    })),
    transition_thresholds: Object.fromEntries(sortedEntries(parameters.transitionThresholds)),
    guard_thresholds: Object.fromEntries(sortedEntries(parameters.guardThresholds)),
  };
}
