/**
 * Reads the `net` section of a model description, reporting each problem with its JSON path.
 * The result also says which arcs and transitions were listed, so that the parameter checks do
 * not report a net problem twice.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { readNet } from "./read_net.ts";
 * const problems: string[] = [];
 * const { net } = readNet({
 *   places: ["p_in", "p_out"],
 *   transitions: ["t_go"],
 *   arcs: [{ from: "p_in", to: "t_go" }, { from: "t_go", to: "p_out" }],
 * }, (path, message) => problems.push(`${path}: ${message}`));
 * assert.deepEqual(net.places, ["p_in", "p_out"]);
 * assert.deepEqual(problems, []);
 * ```
 *
 * @module
 */

import {
  arcLabel,
  compareArcs,
  expected,
  isAbsent,
  isFloat32,
  isId,
  isIntegerAtLeast,
  isObject,
  keyPath,
  optionalArray,
  optionalObject,
  own,
  type Report,
  show,
  sortedEntries,
} from "./json_checks.ts";
import { MODEL_LIMITS } from "./model_limits.ts";
import { quoteId } from "./quote_id.ts";
import {
  type Arc,
  arcKey,
  type ArcOutputValue,
  compareIds,
  type GuardOp,
  type InhibitorArc,
  type PetriNet,
  type StructuralGuard,
} from "./types.ts";

const GUARD_OPS: readonly GuardOp[] = [">", ">=", "<", "<="];

/** A read net plus what the parameter checks need to avoid repeating net problems. */
export interface NetReading {
  readonly net: PetriNet;
  /** Transitions with a `structural_guards` entry, valid or not. */
  readonly guarded: ReadonlySet<string>;
  /** Every `(from, to)` string pair listed in `net.arcs`, valid or not. */
  readonly listedArcs: ReadonlySet<string>;
  /** Every string listed in `net.transitions`, valid or not. */
  readonly listedTransitions: ReadonlySet<string>;
  /** Whether places, transitions and arcs were all arrays, so missing entries can be named. */
  readonly structureKnown: boolean;
  /** Whether `net.transitions` was an array. */
  readonly transitionsKnown: boolean;
}

/** The valid ids. A list that is not an array is reported once; ids are not checked against it. */
interface Ids {
  readonly places: ReadonlySet<string>;
  readonly transitions: ReadonlySet<string>;
  readonly placesKnown: boolean;
  readonly transitionsKnown: boolean;
}

type Kind = "place" | "transition";

/** Reads `net`, reporting every problem; the net holds whatever was valid. */
export function readNet(value: unknown, report: Report): NetReading {
  if (!isObject(value)) {
    expected(report, "net", "an object with places, transitions and arcs", value);
  }
  const src = isObject(value) ? value : {};
  const places = readIdList(own(src, "places"), "net.places", "place", new Set(), report);
  const transitions = readIdList(
    own(src, "transitions"),
    "net.transitions",
    "transition",
    new Set(places.ids),
    report,
  );
  const ids: Ids = {
    places: new Set(places.ids),
    transitions: new Set(transitions.ids),
    placesKnown: places.known,
    transitionsKnown: transitions.known,
  };
  // Read in document order, so the issues come out in that order too.
  const rawArcs = own(src, "arcs");
  const arcs = readArcs(rawArcs, ids, report);
  const structureKnown = places.known && transitions.known && Array.isArray(rawArcs);
  // Without the whole structure, arc-based checks would only echo the problem already reported.
  const flow = structureKnown ? new Set(arcs.arcs.map((a) => arcKey(a.from, a.to))) : undefined;
  if (structureKnown) checkConnected(transitions.firstIndex, arcs.arcs, report);
  const inhibitorArcs = readInhibitorArcs(own(src, "inhibitor_arcs"), ids, report);
  const initialMarking = readInitialMarking(own(src, "initial_marking"), ids, report);
  const labels = readLabels(own(src, "labels"), ids, report);
  const silentTransitions = readSilent(own(src, "silent_transitions"), ids, report);
  const guards = readGuards(own(src, "structural_guards"), ids, flow, report);
  const rates = readRates(own(src, "rates"), ids, report);
  const durations = readDurations(own(src, "durations"), ids, report);
  const outputs = readOutputValues(own(src, "arc_output_values"), ids, flow, report);
  readTorchTable(own(src, "torch_guards"), "net.torch_guards", "torch guards", report);
  const torchOutputs = "torch output values";
  readTorchTable(own(src, "torch_output_values"), "net.torch_output_values", torchOutputs, report);

  const net: PetriNet = {
    places: places.ids,
    transitions: transitions.ids,
    arcs: arcs.arcs,
    inhibitorArcs,
    initialMarking,
    labels,
    silentTransitions,
    structuralGuards: guards.guards,
    rates,
    durations,
    arcOutputValues: outputs,
  };
  return {
    net,
    guarded: guards.guarded,
    listedArcs: arcs.listed,
    listedTransitions: transitions.listed,
    structureKnown,
    transitionsKnown: transitions.known,
  };
}

interface IdList {
  /** Valid ids, sorted. */
  readonly ids: string[];
  /** Index of each valid id's first occurrence, for paths. */
  readonly firstIndex: Map<string, number>;
  /** Every string in the list. */
  readonly listed: Set<string>;
  /** Whether the list was an array. */
  readonly known: boolean;
}

/** Reads `net.places` or `net.transitions`; `others` are the ids of the other kind. */
function readIdList(
  value: unknown,
  path: string,
  kind: Kind,
  others: ReadonlySet<string>,
  report: Report,
): IdList {
  const firstIndex = new Map<string, number>();
  const listed = new Set<string>();
  if (!Array.isArray(value)) {
    expected(report, path, `an array of ${kind} ids`, value);
    return { ids: [], firstIndex, listed, known: false };
  }
  value.forEach((id, i) => {
    const at = `${path}[${i}]`;
    if (typeof id === "string") listed.add(id);
    if (!isId(id)) return expected(report, at, `a non-empty string ${kind} id`, id);
    if (id.length > MODEL_LIMITS.maxIdLength) {
      const limit = MODEL_LIMITS.maxIdLength;
      return report(at, `${kind} id of ${id.length} characters, over the limit of ${limit}`);
    }
    if (firstIndex.has(id)) return report(at, `duplicate ${kind} id ${quoteId(id)}`);
    if (others.has(id)) return report(at, `id ${quoteId(id)} is both a place and a transition`);
    firstIndex.set(id, i);
  });
  return { ids: [...firstIndex.keys()].sort(compareIds), firstIndex, listed, known: true };
}

function kindOf(id: string, ids: Ids): Kind | undefined {
  if (ids.places.has(id)) return "place";
  if (ids.transitions.has(id)) return "transition";
  return undefined;
}

/** Checks that `id` names a known node of `kind`; `what` starts the message. */
function checkKind(
  id: unknown,
  kind: Kind,
  ids: Ids,
  path: string,
  what: string,
  report: Report,
): id is string {
  if (typeof id !== "string") {
    expected(report, path, `a ${kind} id`, id);
    return false;
  }
  const actual = kindOf(id, ids);
  if (actual === kind || !(kind === "place" ? ids.placesKnown : ids.transitionsKnown)) return true;
  const why = actual === undefined ? `not a ${kind} of the net` : `a ${actual}, not a ${kind}`;
  report(path, `${what} names ${quoteId(id)}, which is ${why}`);
  return false;
}

function readArcs(
  value: unknown,
  ids: Ids,
  report: Report,
): { arcs: Arc[]; listed: Set<string> } {
  const arcs: Arc[] = [];
  const listed = new Set<string>();
  if (!Array.isArray(value)) {
    expected(report, "net.arcs", "an array of {from, to} arcs", value);
    return { arcs, listed };
  }
  const seen = new Set<string>();
  value.forEach((raw, i) => {
    const arc = readArc(raw, `net.arcs[${i}]`, ids, report);
    if (arc === undefined) return;
    listed.add(arcKey(arc.from, arc.to));
    if (!arc.valid) return;
    if (seen.has(arcKey(arc.from, arc.to))) {
      return report(`net.arcs[${i}]`, `duplicate arc ${arcLabel(arc.from, arc.to)}`);
    }
    seen.add(arcKey(arc.from, arc.to));
    arcs.push({ from: arc.from, to: arc.to });
  });
  return { arcs: arcs.sort(compareArcs), listed };
}

/** Reads one arc; `valid` is false when its endpoints are unknown or of the same kind. */
function readArc(
  raw: unknown,
  path: string,
  ids: Ids,
  report: Report,
): (Arc & { valid: boolean }) | undefined {
  if (!isObject(raw)) return expected(report, path, "an arc object {from, to}", raw);
  const from = own(raw, "from");
  const to = own(raw, "to");
  if (!isId(from)) expected(report, `${path}.from`, "a non-empty string node id", from);
  if (!isId(to)) expected(report, `${path}.to`, "a non-empty string node id", to);
  if (!isId(from) || !isId(to)) return undefined;
  if (!ids.placesKnown || !ids.transitionsKnown) return { from, to, valid: false };
  const label = `arc ${arcLabel(from, to)}`;
  const unknown = [from, to].filter((id) => kindOf(id, ids) === undefined);
  if (unknown.length > 0) {
    report(path, `${label} references unknown node ${unknown.map(quoteId).join(" and ")}`);
    return { from, to, valid: false };
  }
  const kind = kindOf(from, ids);
  if (kind === kindOf(to, ids)) {
    report(path, `${label} connects two ${kind}s`);
    return { from, to, valid: false };
  }
  return { from, to, valid: true };
}

/** Every transition needs an input and an output place (PETRA's validate rule 2). */
function checkConnected(
  transitions: ReadonlyMap<string, number>,
  arcs: readonly Arc[],
  report: Report,
): void {
  const withInput = new Set(arcs.map((arc) => arc.to));
  const withOutput = new Set(arcs.map((arc) => arc.from));
  for (const [t, i] of transitions) {
    const path = `net.transitions[${i}]`;
    if (!withInput.has(t)) report(path, `transition ${quoteId(t)} has no input place`);
    if (!withOutput.has(t)) report(path, `transition ${quoteId(t)} has no output place`);
  }
}

function readInhibitorArcs(value: unknown, ids: Ids, report: Report): InhibitorArc[] {
  const arcs: InhibitorArc[] = [];
  const seen = new Set<string>();
  const path = "net.inhibitor_arcs";
  optionalArray(value, path, "an array of {place, transition} arcs", report).forEach((raw, i) => {
    const at = `${path}[${i}]`;
    if (!isObject(raw)) return expected(report, at, "an inhibitor arc {place, transition}", raw);
    const place = own(raw, "place");
    const transition = own(raw, "transition");
    const placeOk = checkKind(place, "place", ids, `${at}.place`, "inhibitor arc", report);
    const transitionOk = checkKind(
      transition,
      "transition",
      ids,
      `${at}.transition`,
      "inhibitor arc",
      report,
    );
    if (!placeOk || !transitionOk) return;
    const key = arcKey(place, transition);
    if (seen.has(key)) return report(at, `duplicate inhibitor arc ${arcLabel(place, transition)}`);
    seen.add(key);
    arcs.push({ place, transition });
  });
  return arcs.sort((a, b) =>
    compareIds(a.place, b.place) || compareIds(a.transition, b.transition)
  );
}

/**
 * Reads an id-keyed table whose keys must be nodes of `kind`; `read` checks one value and
 * returns it, or `undefined` after reporting.
 */
function readTable<V>(
  value: unknown,
  path: string,
  kind: Kind,
  ids: Ids,
  what: string,
  read: (raw: unknown, path: string, id: string) => V | undefined,
  report: Report,
): Map<string, V> {
  const table = new Map<string, V>();
  const shape = `an object mapping ${kind} ids to ${what}s`;
  for (const [id, raw] of optionalObject(value, path, shape, report)) {
    const at = keyPath(path, id);
    if (!checkKind(id, kind, ids, at, what, report)) continue;
    const entry = read(raw, at, id);
    if (entry !== undefined) table.set(id, entry);
  }
  return new Map(sortedEntries(table));
}

function readInitialMarking(value: unknown, ids: Ids, report: Report): Map<string, number> {
  return readTable(value, "net.initial_marking", "place", ids, "initial marking", (raw, at, id) => {
    if (isIntegerAtLeast(raw, 1)) return raw;
    return expected(report, at, `an integer token count >= 1 for ${quoteId(id)}`, raw);
  }, report);
}

/** A label equal to its id is the default, so it is not stored. */
function readLabels(value: unknown, ids: Ids, report: Report): Map<string, string> {
  const labels = readTable(value, "net.labels", "transition", ids, "label", (raw, at, id) => {
    if (typeof raw === "string") return raw;
    return expected(report, at, `a string label for ${quoteId(id)}`, raw);
  }, report);
  for (const [id, label] of labels) if (label === id) labels.delete(id);
  return labels;
}

function readRates(value: unknown, ids: Ids, report: Report): Map<string, number> {
  const rates = readTable(value, "net.rates", "transition", ids, "rate", (raw, at, id) => {
    if (isFloat32(raw) && raw > 0) return raw;
    return expected(report, at, `a finite float32 rate > 0 for ${quoteId(id)}`, raw);
  }, report);
  for (const [id, rate] of rates) if (rate === 1) rates.delete(id);
  return rates;
}

function readDurations(value: unknown, ids: Ids, report: Report): Map<string, number> {
  const durations = readTable(value, "net.durations", "transition", ids, "duration", (
    raw,
    at,
    id,
  ) => {
    if (isIntegerAtLeast(raw, 1) && raw <= MODEL_LIMITS.maxDuration) return raw;
    const most = MODEL_LIMITS.maxDuration;
    return expected(report, at, `an integer duration from 1 to ${most} for ${quoteId(id)}`, raw);
  }, report);
  for (const [id, duration] of durations) if (duration === 1) durations.delete(id);
  return durations;
}

function readSilent(value: unknown, ids: Ids, report: Report): string[] {
  const silent = new Set<string>();
  const path = "net.silent_transitions";
  optionalArray(value, path, "an array of transition ids", report).forEach((id, i) => {
    const at = `${path}[${i}]`;
    if (!checkKind(id, "transition", ids, at, "silent_transitions", report)) return;
    if (silent.has(id)) return report(at, `silent transition ${quoteId(id)} is listed twice`);
    silent.add(id);
  });
  return [...silent].sort(compareIds);
}

/** `flow` holds the arc keys, or is `undefined` when the net's structure could not be read. */
function readGuards(
  value: unknown,
  ids: Ids,
  flow: ReadonlySet<string> | undefined,
  report: Report,
): { guards: Map<string, StructuralGuard>; guarded: Set<string> } {
  const guarded = new Set<string>();
  const guards = readTable(value, "net.structural_guards", "transition", ids, "structural guard", (
    raw,
    at,
    id,
  ) => {
    guarded.add(id);
    return readGuard(raw, at, id, ids, flow, report);
  }, report);
  return { guards, guarded };
}

function readGuard(
  raw: unknown,
  path: string,
  transition: string,
  ids: Ids,
  flow: ReadonlySet<string> | undefined,
  report: Report,
): StructuralGuard | undefined {
  const t = quoteId(transition);
  if (!isObject(raw)) {
    return expected(report, path, `a guard {place, op, value} for ${t}`, raw);
  }
  const place = own(raw, "place");
  const op = own(raw, "op");
  const value = own(raw, "value");
  let ok = checkKind(place, "place", ids, `${path}.place`, `guard of ${t}`, report);
  if (ok && flow !== undefined && !flow.has(arcKey(place as string, transition))) {
    report(
      `${path}.place`,
      `guard of ${t} reads ${quoteId(place as string)}, which is not an input place of ${t}`,
    );
    ok = false;
  }
  if (!GUARD_OPS.includes(op as GuardOp)) {
    const choices = GUARD_OPS.map(quoteId).join(", ");
    expected(report, `${path}.op`, `a guard op of ${t} among ${choices}`, op);
    ok = false;
  }
  if (!isFloat32(value)) {
    expected(report, `${path}.value`, `a finite float32 guard value for ${t}`, value);
    ok = false;
  }
  return ok ? { place: place as string, op: op as GuardOp, value: value as number } : undefined;
}

function readOutputValues(
  value: unknown,
  ids: Ids,
  flow: ReadonlySet<string> | undefined,
  report: Report,
): ArcOutputValue[] {
  const seen = new Set<string>();
  const values: ArcOutputValue[] = [];
  const path = "net.arc_output_values";
  const shape = "an array of {transition, place, value} entries";
  optionalArray(value, path, shape, report).forEach((raw, i) => {
    const entry = readOutputValue(raw, `${path}[${i}]`, ids, flow, report);
    if (entry === undefined) return;
    const key = arcKey(entry.transition, entry.place);
    if (seen.has(key)) {
      return report(
        `${path}[${i}]`,
        `duplicate output value on arc ${arcLabel(entry.transition, entry.place)}`,
      );
    }
    seen.add(key);
    values.push(entry);
  });
  return values.sort((a, b) =>
    compareIds(a.transition, b.transition) || compareIds(a.place, b.place)
  );
}

function readOutputValue(
  raw: unknown,
  path: string,
  ids: Ids,
  flow: ReadonlySet<string> | undefined,
  report: Report,
): ArcOutputValue | undefined {
  if (!isObject(raw)) {
    return expected(report, path, "an output value {transition, place, value}", raw);
  }
  const transition = own(raw, "transition");
  const place = own(raw, "place");
  const value = own(raw, "value");
  const what = "output value";
  const tOk = checkKind(transition, "transition", ids, `${path}.transition`, what, report);
  const pOk = checkKind(place, "place", ids, `${path}.place`, what, report);
  let ok = tOk && pOk;
  if (ok && flow !== undefined && !flow.has(arcKey(transition as string, place as string))) {
    const label = arcLabel(transition as string, place as string);
    report(path, `output value on ${label}, which is not an arc of the net`);
    ok = false;
  }
  if (!isFloat32(value)) {
    const on = tOk && pOk ? ` on ${arcLabel(transition as string, place as string)}` : "";
    expected(report, `${path}.value`, `a finite float32 output value${on}`, value);
    ok = false;
  }
  return ok
    ? { transition: transition as string, place: place as string, value: value as number }
    : undefined;
}

/** PETRA's tensor callables cannot be serialised into a graph, so any entry is refused. */
function readTorchTable(value: unknown, path: string, what: string, report: Report): void {
  const names = torchEntryNames(value);
  if (names === undefined) return;
  report(path, `cannot compile ${what} (Python callables no ONNX graph can hold): ${names}`);
}

/** Names of a non-empty torch table's entries, or `undefined` when it is empty. */
function torchEntryNames(value: unknown): string | undefined {
  if (isAbsent(value)) return undefined;
  if (isObject(value)) {
    const keys = Object.keys(value);
    return keys.length === 0 ? undefined : keys.map(quoteId).join(", ");
  }
  if (!Array.isArray(value)) return show(value);
  if (value.length === 0) return undefined;
  return value.map(torchEntryName).join(", ");
}

function torchEntryName(entry: unknown): string {
  if (typeof entry === "string") return quoteId(entry);
  if (!isObject(entry)) return show(entry);
  // PETRA keys guards by transition and output values by (transition, place) arc.
  const [transition, place] = [own(entry, "transition"), own(entry, "place")];
  const [from, to] = [own(entry, "from"), own(entry, "to")];
  if (typeof transition === "string" && typeof place === "string") {
    return arcLabel(transition, place);
  }
  if (typeof from === "string" && typeof to === "string") return arcLabel(from, to);
  if (typeof transition === "string") return quoteId(transition);
  return show(entry);
}
