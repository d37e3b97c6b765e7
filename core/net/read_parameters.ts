/**
 * Reads the `parameters` section of a model description: one weight per arc, one threshold
 * per transition, one guard threshold per structural guard, each checked against the net.
 *
 * @module
 */

import {
  arcLabel,
  expected,
  isAbsent,
  isFloat32,
  isId,
  isObject,
  keyPath,
  own,
  type Report,
  sortedEntries,
} from "./json_checks.ts";
import { beyondFloat32, isFiniteFloat32 } from "./model_limits.ts";
import { quoteId } from "./quote_id.ts";
import type { NetReading } from "./read_net.ts";
import { arcKey, type Parameters } from "./types.ts";

/** Reads `parameters` against the net `reading` holds, reporting every problem. */
export function readParameters(value: unknown, reading: NetReading, report: Report): Parameters {
  const empty: Parameters = {
    arcWeights: new Map(),
    transitionThresholds: new Map(),
    guardThresholds: new Map(),
  };
  if (!isObject(value)) {
    const what = "an object {arc_weights, transition_thresholds, guard_thresholds}";
    expected(report, "parameters", what, value);
    return empty;
  }
  return {
    arcWeights: readArcWeights(own(value, "arc_weights"), reading, report),
    transitionThresholds: readThresholds(own(value, "transition_thresholds"), {
      path: "parameters.transition_thresholds",
      what: "threshold",
      required: reading.transitionsKnown ? reading.net.transitions : undefined,
      allowed: reading.listedTransitions,
      notAllowed: "not a transition of the net",
    }, report),
    guardThresholds: readThresholds(own(value, "guard_thresholds"), {
      path: "parameters.guard_thresholds",
      what: "guard threshold",
      required: reading.structureKnown ? [...reading.net.structuralGuards.keys()] : undefined,
      allowed: reading.guarded,
      notAllowed: "not structurally guarded",
    }, report),
  };
}

function readArcWeights(value: unknown, reading: NetReading, report: Report): Map<string, number> {
  const path = "parameters.arc_weights";
  const weights = new Map<string, number>();
  const named = new Set<string>();
  const outputs = new Map(
    reading.net.arcOutputValues.map((o) => [arcKey(o.transition, o.place), o.value]),
  );
  if (isAbsent(value) && reading.net.arcs.length === 0) return weights;
  if (!Array.isArray(value)) {
    expected(report, path, "an array of {from, to, weight}, one per arc", value);
    return weights;
  }
  value.forEach((raw, i) => {
    const at = `${path}[${i}]`;
    if (!isObject(raw)) return expected(report, at, "an arc weight {from, to, weight}", raw);
    const from = own(raw, "from");
    const to = own(raw, "to");
    const weight = own(raw, "weight");
    if (!isId(from)) expected(report, `${at}.from`, "a non-empty string node id", from);
    if (!isId(to)) expected(report, `${at}.to`, "a non-empty string node id", to);
    if (!isId(from) || !isId(to)) return;
    const key = arcKey(from, to);
    const label = arcLabel(from, to);
    if (reading.structureKnown && !reading.listedArcs.has(key)) {
      return report(at, `weight for ${label}, which is not an arc of the net`);
    }
    if (named.has(key)) return report(at, `duplicate weight for arc ${label}`);
    named.add(key);
    if (!isFloat32(weight)) {
      return expected(report, `${at}.weight`, `a finite float32 weight for arc ${label}`, weight);
    }
    checkScaledWeight(outputs, from, to, weight, `${at}.weight`, report);
    weights.set(key, weight);
  });
  if (reading.structureKnown) {
    for (const { from, to } of reading.net.arcs) {
      if (!named.has(arcKey(from, to))) report(path, `no weight for arc ${arcLabel(from, to)}`);
    }
  }
  // Keyed in the net's arc order, so iteration follows the sorted arcs.
  const byArc = reading.net.arcs.map(({ from, to }) => arcKey(from, to));
  return new Map(byArc.filter((key) => weights.has(key)).map((key) => [key, weights.get(key)!]));
}

/** The graph's value channel weighs the arc by `weight · output value` in float32: it must fit. */
function checkScaledWeight(
  outputs: ReadonlyMap<string, number>,
  from: string,
  to: string,
  weight: number,
  path: string,
  report: Report,
): void {
  const output = outputs.get(arcKey(from, to));
  if (output === undefined || isFiniteFloat32(weight * output)) return;
  report(
    path,
    `weight ${weight} times the output value ${output} of arc ${arcLabel(from, to)} is ` +
      beyondFloat32(weight * output),
  );
}

/** What a transition-keyed threshold table must hold. */
interface ThresholdTable {
  readonly path: string;
  /** The kind of threshold, for messages. */
  readonly what: string;
  /** Transitions that need one; `undefined` when the net could not be read. */
  readonly required: readonly string[] | undefined;
  /** Every key that is not extra (including ids whose net entry is itself faulty). */
  readonly allowed: ReadonlySet<string>;
  /** Why an extra key is refused. */
  readonly notAllowed: string;
}

function readThresholds(
  value: unknown,
  { path, what, required, allowed, notAllowed }: ThresholdTable,
  report: Report,
): Map<string, number> {
  const thresholds = new Map<string, number>();
  const named = new Set<string>();
  if (isAbsent(value) && (required ?? []).length === 0) return thresholds;
  if (!isObject(value)) {
    expected(report, path, `an object mapping transition ids to ${what}s`, value);
    return thresholds;
  }
  for (const [id, raw] of Object.entries(value)) {
    const at = keyPath(path, id);
    if (required !== undefined && !allowed.has(id)) {
      report(at, `${what} for ${quoteId(id)}, which is ${notAllowed}`);
      continue;
    }
    named.add(id);
    if (isFloat32(raw)) thresholds.set(id, raw);
    else expected(report, at, `a finite float32 ${what} for ${quoteId(id)}`, raw);
  }
  for (const id of required ?? []) {
    if (!named.has(id)) report(path, `no ${what} for transition ${quoteId(id)}`);
  }
  return new Map(sortedEntries(thresholds));
}
