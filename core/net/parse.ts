/**
 * Reads and writes the model description `petri-net-model/1` (MODEL_FORMAT.md): the net, the
 * module settings and the trained parameters of a PETRA module, as one JSON document.
 *
 * {@link parseModelDescription} checks every rule of the format and reports all problems at
 * once in a {@link ModelDescriptionError}, each naming its JSON path and the offending id.
 * {@link describeModel} writes the canonical document back.
 *
 * ```ts
 * import { describeModel, parseModelDescription } from "./parse.ts";
 * const model = parseModelDescription({
 *   format: "petri-net-model/1",
 *   net: {
 *     places: ["p_in", "p_out"],
 *     transitions: ["t_go"],
 *     arcs: [{ from: "p_in", to: "t_go" }, { from: "t_go", to: "p_out" }],
 *   },
 *   parameters: {
 *     arc_weights: [
 *       { from: "p_in", to: "t_go", weight: 1.2 },
 *       { from: "t_go", to: "p_out", weight: 0.9 },
 *     ],
 *     transition_thresholds: { t_go: 0.1 },
 *   },
 * });
 * JSON.stringify(describeModel(model));
 * ```
 *
 * @module
 */

import { quoteId } from "./quote_id.ts";
import { findCycle, netStructure } from "./structure.ts";
import {
  type Arc,
  arcKey,
  type ArcOutputValue,
  compareIds,
  type Firing,
  type GuardOp,
  type InhibitorArc,
  type InputSpec,
  type InputSpecEntry,
  type ModuleSettings,
  type Parameters,
  type PetriModel,
  type PetriNet,
  type Routing,
  type StructuralGuard,
} from "./types.ts";

/**
 * The value of the `format` field this module reads and writes.
 *
 * @example
 * ```ts
 * import { MODEL_DESCRIPTION_FORMAT } from "./parse.ts";
 * MODEL_DESCRIPTION_FORMAT; // "petri-net-model/1"
 * ```
 */
export const MODEL_DESCRIPTION_FORMAT = "petri-net-model/1";

/**
 * One problem of a model description: where (`net.arcs[3]`,
 * `net.structural_guards.t_x.op`) and what, naming the offending id.
 *
 * @example
 * ```ts
 * import type { ModelIssue } from "./parse.ts";
 * const issue: ModelIssue = {
 *   path: "net.arcs[3]",
 *   message: "arc 'p_a' -> 'p_b' connects two places",
 * };
 * ```
 */
export interface ModelIssue {
  /** The JSON path of the offending value, e.g. `parameters.arc_weights[2].weight`. */
  readonly path: string;
  /** What is wrong, quoting the offending id as Python's `repr` would; no final period. */
  readonly message: string;
}

/**
 * Thrown by {@link parseModelDescription} with every problem found; the message holds one
 * `path: message` line per issue.
 *
 * @example
 * ```ts
 * import { ModelDescriptionError, parseModelDescription } from "./parse.ts";
 * try {
 *   parseModelDescription({ format: "petri-net-model/2" });
 * } catch (error) {
 *   if (error instanceof ModelDescriptionError) error.issues.map((i) => i.path);
 * }
 * ```
 */
export class ModelDescriptionError extends Error {
  /** Every problem found, in document order. */
  readonly issues: readonly ModelIssue[];

  /**
   * Builds the error from its issues (at least one).
   *
   * @example
   * ```ts
   * import { ModelDescriptionError } from "./parse.ts";
   * new ModelDescriptionError([{ path: "format", message: "expected 'petri-net-model/1'" }]);
   * ```
   */
  constructor(issues: readonly ModelIssue[]) {
    super(issues.map(({ path, message }) => `${path}: ${message}`).join("\n"));
    this.name = "ModelDescriptionError";
    this.issues = issues;
  }
}

/**
 * Validates a parsed `petri-net-model/1` JSON document and turns it into a {@link PetriModel}
 * with sorted id lists and `Map` tables. Keys the format does not describe are ignored; an
 * optional field that is `null` counts as absent (Python writes `None` so).
 *
 * @throws {ModelDescriptionError} listing every problem found, not only the first.
 *
 * @example
 * ```ts
 * import { parseModelDescription } from "./parse.ts";
 * const model = parseModelDescription(JSON.parse(`{
 *   "format": "petri-net-model/1",
 *   "net": {"places": ["p_in", "p_out"], "transitions": ["t_go"],
 *           "arcs": [{"from": "p_in", "to": "t_go"}, {"from": "t_go", "to": "p_out"}]},
 *   "parameters": {"arc_weights": [{"from": "p_in", "to": "t_go", "weight": 1.0},
 *                                  {"from": "t_go", "to": "p_out", "weight": 1.0}],
 *                  "transition_thresholds": {"t_go": 0.0}}
 * }`));
 * model.net.places; // ["p_in", "p_out"]
 * ```
 */
export function parseModelDescription(json: unknown): PetriModel {
  const issues: ModelIssue[] = [];
  const report: Report = (path, message) => void issues.push({ path, message });
  if (!isObject(json)) {
    report("(root)", `expected a model description object, got ${show(json)}`);
    throw new ModelDescriptionError(issues);
  }
  readFormat(json, report);
  const sidecar = readSidecar(json, report);
  const reading = readNet(own(json, "net"), report);
  const module = readModule(own(json, "module"), reading.net, report);
  const parameters = readParameters(own(json, "parameters"), reading, report);
  if (issues.length > 0) throw new ModelDescriptionError(issues);
  return { net: reading.net, module, parameters, ...sidecar };
}

/**
 * Writes a model as its canonical `petri-net-model/1` document: keys in the documented order,
 * every table present, ids sorted, arcs sorted by `(from, to)`. {@link parseModelDescription}
 * reads it back to an equal model. Id-keyed objects are built with `Object.fromEntries`, so an
 * id such as `__proto__` stays an ordinary own key.
 *
 * @example
 * ```ts
 * import { describeModel, parseModelDescription } from "./parse.ts";
 * declare const json: unknown;
 * const text = JSON.stringify(describeModel(parseModelDescription(json)), null, 2);
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

// ---------------------------------------------------------------------------------------------
// Reading: shared helpers

type Report = (path: string, message: string) => void;
type JsonObject = Record<string, unknown>;

const GUARD_OPS: readonly GuardOp[] = [">", ">=", "<", "<="];
const FIRINGS: readonly Firing[] = ["sigmoid", "ste"];
const ROUTINGS: readonly Routing[] = ["independent", "softmax"];
const IDENTIFIER = /^[A-Za-z_$][\w$]*$/;

function isObject(value: unknown): value is JsonObject {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** Reads an own key only, so ids like `constructor` never reach `Object.prototype`. */
function own(object: JsonObject, key: string): unknown {
  return Object.hasOwn(object, key) ? object[key] : undefined;
}

function isAbsent(value: unknown): value is undefined | null {
  return value === undefined || value === null;
}

function isFiniteNumber(value: unknown): value is number {
  return typeof value === "number" && Number.isFinite(value);
}

function isIntegerAtLeast(value: unknown, min: number): value is number {
  return Number.isInteger(value) && (value as number) >= min;
}

function isId(value: unknown): value is string {
  return typeof value === "string" && value !== "";
}

/** The path of an id-keyed entry: `base.id`, or `base['a b']` when the id is no identifier. */
function keyPath(base: string, key: string): string {
  return IDENTIFIER.test(key) ? `${base}.${key}` : `${base}[${quoteId(key)}]`;
}

/** A short rendering of an offending value for a message. */
function show(value: unknown): string {
  if (value === undefined) return "nothing";
  if (typeof value === "string") return quoteId(value);
  if (typeof value === "number") return String(value);
  if (typeof value === "bigint" || typeof value === "function" || typeof value === "symbol") {
    return `a ${typeof value}`;
  }
  let text: string;
  try {
    text = JSON.stringify(value);
  } catch {
    return "an unserialisable object";
  }
  return text.length > 60 ? `${text.slice(0, 57)}...` : text;
}

/** Reports a value of the wrong shape; returns `undefined` so readers can `return` it. */
function expected(report: Report, path: string, what: string, value: unknown): undefined {
  report(path, `expected ${what}, got ${show(value)}`);
  return undefined;
}

function arcLabel(from: string, to: string): string {
  return `${quoteId(from)} -> ${quoteId(to)}`;
}

function compareArcs(a: Arc, b: Arc): number {
  return compareIds(a.from, b.from) || compareIds(a.to, b.to);
}

function sortedEntries<V>(map: ReadonlyMap<string, V>): [string, V][] {
  return [...map].sort(([a], [b]) => compareIds(a, b));
}

/** An object for an optional table: absent or `null` reads as empty. */
function optionalObject(
  value: unknown,
  path: string,
  what: string,
  report: Report,
): [string, unknown][] {
  if (isAbsent(value)) return [];
  if (!isObject(value)) {
    expected(report, path, what, value);
    return [];
  }
  return Object.entries(value);
}

/** An array for an optional list: absent or `null` reads as empty. */
function optionalArray(value: unknown, path: string, what: string, report: Report): unknown[] {
  if (isAbsent(value)) return [];
  if (!Array.isArray(value)) {
    expected(report, path, what, value);
    return [];
  }
  return value;
}

// ---------------------------------------------------------------------------------------------
// Reading: format and sidecar material

type Sidecar = Pick<
  PetriModel,
  "scenarioName" | "scenarioDescription" | "petraVersion" | "inputMarkingSpec" | "inputValuesSpec"
>;

function readFormat(json: JsonObject, report: Report): void {
  const format = own(json, "format");
  if (format !== MODEL_DESCRIPTION_FORMAT) {
    expected(report, "format", quoteId(MODEL_DESCRIPTION_FORMAT), format);
  }
}

function readSidecar(json: JsonObject, report: Report): Sidecar {
  const scenarioName = readOptionalString(json, "scenario_name", report);
  const scenarioDescription = readOptionalString(json, "scenario_description", report);
  const petraVersion = readOptionalString(json, "petra_version", report);
  return {
    ...(scenarioName === undefined ? {} : { scenarioName }),
    ...(scenarioDescription === undefined ? {} : { scenarioDescription }),
    ...(petraVersion === undefined ? {} : { petraVersion }),
    inputMarkingSpec: readInputSpec(own(json, "input_marking_spec"), "input_marking_spec", report),
    inputValuesSpec: readInputSpec(own(json, "input_values_spec"), "input_values_spec", report),
  };
}

function readOptionalString(json: JsonObject, key: string, report: Report): string | undefined {
  const value = own(json, key);
  if (isAbsent(value)) return undefined;
  if (typeof value === "string") return value;
  expected(report, key, "a string", value);
  return undefined;
}

/** Spec keys are not checked against the net: PETRA passes unknown places through. */
function readInputSpec(value: unknown, path: string, report: Report): InputSpec {
  const spec = new Map<string, InputSpecEntry>();
  const what = "an object mapping place ids to {constant} or {attribute}";
  for (const [place, raw] of optionalObject(value, path, what, report)) {
    const entry = readSpecEntry(raw, keyPath(path, place), place, report);
    if (entry !== undefined) spec.set(place, entry);
  }
  return new Map(sortedEntries(spec));
}

function readSpecEntry(
  raw: unknown,
  path: string,
  place: string,
  report: Report,
): InputSpecEntry | undefined {
  const shape = `{constant: number} or {attribute: string} for place ${quoteId(place)}`;
  if (!isObject(raw)) return expected(report, path, shape, raw);
  // `constant` wins when both are present, as in PETRA's _resolve_attribute_spec.
  if (Object.hasOwn(raw, "constant")) {
    const constant = raw.constant;
    if (isFiniteNumber(constant)) return { constant };
    return expected(
      report,
      `${path}.constant`,
      `a finite number for ${quoteId(place)}`,
      constant,
    );
  }
  if (Object.hasOwn(raw, "attribute")) {
    const attribute = raw.attribute;
    if (typeof attribute === "string") return { attribute };
    return expected(report, `${path}.attribute`, `a string for ${quoteId(place)}`, attribute);
  }
  return expected(report, path, shape, raw);
}

// ---------------------------------------------------------------------------------------------
// Reading: the net

/** A read net plus what the parameter checks need to avoid repeating net problems. */
interface NetReading {
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

function readNet(value: unknown, report: Report): NetReading {
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
    if (isFiniteNumber(raw) && raw > 0) return raw;
    return expected(report, at, `a finite rate > 0 for ${quoteId(id)}`, raw);
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
    if (isIntegerAtLeast(raw, 1)) return raw;
    return expected(report, at, `an integer duration >= 1 for ${quoteId(id)}`, raw);
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
  if (!isFiniteNumber(value)) {
    expected(report, `${path}.value`, `a finite guard value for ${t}`, value);
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
  if (!isFiniteNumber(value)) {
    const on = tOk && pOk ? ` on ${arcLabel(transition as string, place as string)}` : "";
    expected(report, `${path}.value`, `a finite output value${on}`, value);
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

// ---------------------------------------------------------------------------------------------
// Reading: module settings

const DEFAULT_MODULE: ModuleSettings = {
  sharpness: 1.0,
  numSteps: 0,
  firing: "sigmoid",
  routing: "independent",
};

function readModule(value: unknown, net: PetriNet, report: Report): ModuleSettings {
  if (!isAbsent(value) && !isObject(value)) {
    expected(report, "module", "an object {sharpness, num_steps, firing, routing}", value);
  }
  const src = isObject(value) ? value : {};
  const d = DEFAULT_MODULE;
  const settings: ModuleSettings = {
    sharpness: readSetting(
      src,
      "sharpness",
      "a finite number",
      isFiniteNumber,
      d.sharpness,
      report,
    ),
    numSteps: readSetting(src, "num_steps", "an integer >= 0", isStepCount, d.numSteps, report),
    firing: readSetting(src, "firing", oneOf(FIRINGS), isMember(FIRINGS), d.firing, report),
    routing: readSetting(src, "routing", oneOf(ROUTINGS), isMember(ROUTINGS), d.routing, report),
  };
  // An invalid num_steps is already reported; a cycle message would only add noise.
  const steps = own(src, "num_steps");
  if (settings.numSteps === 0 && (isAbsent(steps) || isStepCount(steps))) checkAcyclic(net, report);
  return settings;
}

/** Reads one optional module setting; absent or `null` gives `fallback`. */
function readSetting<T>(
  src: JsonObject,
  key: string,
  what: string,
  valid: (value: unknown) => value is T,
  fallback: T,
  report: Report,
): T {
  const value = own(src, key);
  if (isAbsent(value)) return fallback;
  if (valid(value)) return value;
  expected(report, `module.${key}`, what, value);
  return fallback;
}

function isStepCount(value: unknown): value is number {
  return isIntegerAtLeast(value, 0);
}

function isMember<T extends string>(choices: readonly T[]): (value: unknown) => value is T {
  return (value): value is T => choices.includes(value as T);
}

function oneOf(choices: readonly string[]): string {
  return `one of ${choices.map(quoteId).join(", ")}`;
}

/** Acyclic mode evaluates in topological order, which a cycle does not have. */
function checkAcyclic(net: PetriNet, report: Report): void {
  const cycle = findCycle(net, netStructure(net));
  if (cycle === undefined) return;
  report(
    "module.num_steps",
    `the net has a cycle ${cycle.map(quoteId).join(" -> ")}, which num_steps 0 (acyclic mode) ` +
      "cannot evaluate: use num_steps > 0",
  );
}

// ---------------------------------------------------------------------------------------------
// Reading: trained parameters

function readParameters(value: unknown, reading: NetReading, report: Report): Parameters {
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
    if (!isFiniteNumber(weight)) {
      return expected(report, `${at}.weight`, `a finite weight for arc ${label}`, weight);
    }
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
    if (isFiniteNumber(raw)) thresholds.set(id, raw);
    else expected(report, at, `a finite ${what} for ${quoteId(id)}`, raw);
  }
  for (const id of required ?? []) {
    if (!named.has(id)) report(path, `no ${what} for transition ${quoteId(id)}`);
  }
  return new Map(sortedEntries(thresholds));
}

// ---------------------------------------------------------------------------------------------
// Writing

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
