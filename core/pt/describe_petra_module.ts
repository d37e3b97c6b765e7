/**
 * From the object graph of a PETRA `.pt` to a `petri-net-model/1` description: the
 * `PetriNetModule`'s net, settings and parameters, checked for shape on the way (a
 * {@link PetraShapeError} names the field). The extra fields a PETRA export also holds are
 * kept, so the result can be compared with one.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { describePetraModule } from "./describe_petra_module.ts";
 * import { readTorchZip } from "./read_torch_zip.ts";
 * import { unpickle } from "./unpickle.ts";
 * const fixture = new URL("../../tests/fixtures/conformance/rest_serving/", import.meta.url);
 * const zip = readTorchZip(await Deno.readFile(new URL("model.pt", fixture)), "model.pt");
 * const description = describePetraModule(unpickle(zip.pickle), zip.storages) as {
 *   format: string;
 *   net: { transitions: string[] };
 * };
 * assert.equal(description.format, "petri-net-model/1");
 * assert.deepEqual(description.net.transitions, ["t_approve", "t_decline"]);
 * ```
 *
 * @module
 */

import { MODEL_DESCRIPTION_FORMAT } from "../net/describe_model.ts";
import { compareIds } from "../net/types.ts";
import { quoteId } from "../net/quote_id.ts";
import {
  type PickleValue,
  type PyDict,
  PyObject,
  PySet,
  PyTensor,
  PyTuple,
  typeOfValue,
} from "./pickle_values.ts";

const MODULE_CLASS = "petri_net_nn.compiler PetriNetModule";
const NET_CLASS = "petri_net_nn.petri_net PetriNet";
const PARAMETER_DICT = "torch.nn.modules.container ParameterDict";
const FLOAT_STORAGE = "torch FloatStorage";

/** The object graph is not the PETRA module this reader knows; the message names the field. */
export class PetraShapeError extends Error {
  /** Builds the error from a message naming the field and what it holds. */
  constructor(message: string) {
    super(message);
    this.name = "PetraShapeError";
  }
}

/**
 * Describes the `PetriNetModule` at the pickle's root as a `petri-net-model/1` document (a
 * plain JSON value; id-keyed tables built with `Object.fromEntries`, so any id is an own key).
 *
 * @throws {PetraShapeError} when the root is not a `PetriNetModule` or a field has the wrong
 * shape, a parameter is missing or not a 0-dimensional float32 tensor, or its storage entry
 * is missing or of the wrong size.
 */
export function describePetraModule(
  root: PickleValue,
  storages: ReadonlyMap<string, Uint8Array>,
): object {
  if (!(root instanceof PyObject) || root.className !== MODULE_CLASS) {
    const plain = root instanceof Map ? " (a plain state dict has no net)" : "";
    throw new PetraShapeError(
      `the pickle holds ${typeOfValue(root)}, not a PETRA PetriNetModule${plain}`,
    );
  }
  const module = stateOf(root, "the PetriNetModule");
  const net = describeNet(objectField(module, "net", NET_CLASS));
  const params = new Parameters(field(module, "_modules", "the PetriNetModule"), storages);
  const order = readOrder(module);
  if (order !== null) checkOrder(order, net as DescribedNet);
  return {
    format: MODEL_DESCRIPTION_FORMAT,
    net,
    module: {
      sharpness: num(module, "sharpness"),
      num_steps: int(module, "num_steps"),
      firing: str(module, "firing"),
      routing: str(module, "routing"),
      topological_order: order,
    },
    parameters: {
      arc_weights: sortedPairs(dict(module, "_arc_key"), "_arc_key").map(([[from, to], key]) => ({
        from,
        to,
        weight: params.get("arc_weights", key),
      })),
      transition_thresholds: Object.fromEntries(
        sortedEntries(dict(module, "_threshold_key"), "_threshold_key").map(([t, key]) => [
          t,
          params.get("transition_thresholds", text(key, `_threshold_key[${quoteId(t)}]`)),
        ]),
      ),
      guard_thresholds: Object.fromEntries(
        sortedEntries(dict(module, "_guard_meta"), "_guard_meta").map(([t, meta]) => {
          const where = `_guard_meta[${quoteId(t)}]`;
          const entry = asDict(meta, where);
          return [t, params.get("guard_thresholds", str(entry, "key", where))];
        }),
      ),
    },
  };
}

function describeNet(net: PyDict): object {
  const at = (key: string) => `net.${key}`;
  const arcs = (key: string) =>
    setOf(net, key).map((item, i) => pair(item, `${at(key)} item ${i}`)).sort(comparePairs);
  const byArc = (key: string) => sortedPairs(dict(net, key, "net"), at(key));
  return {
    places: strings(net, "places"),
    transitions: strings(net, "transitions"),
    arcs: arcs("flow").map(([from, to]) => ({ from, to })),
    inhibitor_arcs: arcs("inhibitor_arcs").map(([place, transition]) => ({ place, transition })),
    initial_marking: table(net, "initial_marking", (v, where) => count(v, where)),
    labels: table(net, "transition_labels", text),
    place_labels: table(net, "place_labels", text),
    silent_transitions: strings(net, "silent_transitions"),
    structural_guards: table(net, "transition_structural_guards", (v, where) => {
      const guard = asDict(v, where);
      return {
        place: str(guard, "place", where),
        op: str(guard, "op", where),
        value: num(guard, "value", where),
      };
    }),
    rates: table(net, "transition_rates", number),
    durations: table(net, "transition_durations", (v, where) => count(v, where)),
    arc_output_values: byArc("arc_output_values").map(([[transition, place], value]) => ({
      transition,
      place,
      value: outputValue(
        value,
        `net.arc_output_values[${quoteId(transition)} -> ${quoteId(place)}]`,
      ),
    })),
    arc_multiplicities: byArc("arc_multiplicities").map(([[from, to], weight]) => ({
      from,
      to,
      weight: count(weight, `net.arc_multiplicities[${quoteId(from)} -> ${quoteId(to)}]`),
    })),
    callable_guards: callableGuards(net),
    callable_arc_output_values: [],
    // Torch callables: listed by id so that parseModelDescription refuses them by name.
    torch_guards: sortedEntries(
      dict(net, "transition_torch_guards", "net"),
      at("transition_torch_guards"),
    ).map(([id]) => id),
    torch_output_values: byArc("arc_torch_output_values").map(([[transition, place]]) => ({
      transition,
      place,
    })),
  };
}

interface DescribedNet {
  readonly places: readonly string[];
  readonly transitions: readonly string[];
  readonly arcs: readonly { readonly from: string; readonly to: string }[];
}

/**
 * The recorded order must list every place and transition once, each arc's source before its
 * target; the compiler derives an equivalent order itself, so a file whose order disagrees
 * with its net is refused rather than served differently from how PETRA evaluated it.
 */
function checkOrder(order: readonly string[], net: DescribedNet): void {
  const position = new Map<string, number>();
  order.forEach((id, i) => position.set(id, i));
  const ids = [...net.places, ...net.transitions];
  const missing = ids.find((id) => !position.has(id));
  if (position.size !== order.length || order.length !== ids.length || missing !== undefined) {
    throw new PetraShapeError(
      `_order does not list each place and transition once` +
        (missing === undefined ? "" : ` (${quoteId(missing)} is missing)`),
    );
  }
  for (const { from, to } of net.arcs) {
    if (position.get(from)! > position.get(to)!) {
      throw new PetraShapeError(
        `_order puts ${quoteId(to)} before ${quoteId(from)}, against the arc between them`,
      );
    }
  }
}

/** Token-game guards are Python callables: none can be served, so any is refused by id. */
function callableGuards(net: PyDict): string[] {
  const where = "net.transition_guards";
  const ids = sortedEntries(dict(net, "transition_guards", "net"), where).map(([id]) => id);
  if (ids.length > 0) {
    throw new PetraShapeError(
      `${where} holds Python callables for ${ids.map(quoteId).join(", ")}: ` +
        "token-game guards cannot be compiled",
    );
  }
  return ids;
}

/** `_order`: the evaluation order PETRA recorded (acyclic mode), or `null`. */
function readOrder(module: PyDict): string[] | null {
  const order = module.get("_order");
  if (order === null || order === undefined) return null;
  if (!(order instanceof PyTuple) && !Array.isArray(order)) {
    throw new PetraShapeError(`_order is ${typeOfValue(order)}, expected a tuple of ids`);
  }
  const items = order instanceof PyTuple ? order.items : order;
  return items.map((id, i) => text(id, `_order item ${i}`));
}

/** The trained values: `_modules[name]._parameters[key]`, each a 0-dim float32 tensor. */
class Parameters {
  readonly #modules: PyDict;
  readonly #storages: ReadonlyMap<string, Uint8Array>;

  constructor(modules: PickleValue, storages: ReadonlyMap<string, Uint8Array>) {
    this.#modules = asDict(modules, "_modules");
    this.#storages = storages;
  }

  get(group: string, key: PickleValue): number {
    const name = text(key, `a ${group} key`);
    const holder = this.#modules.get(group);
    const where = `_modules[${quoteId(group)}]`;
    if (!(holder instanceof PyObject) || holder.className !== PARAMETER_DICT) {
      throw new PetraShapeError(`${where} is ${typeOfValue(holder)}, expected a ParameterDict`);
    }
    const parameters = asDict(field(stateOf(holder, where), "_parameters", where), where);
    const tensor = parameters.get(name);
    const at = `parameter ${group}.${name}`;
    if (!(tensor instanceof PyTensor)) {
      throw new PetraShapeError(`${at} is ${typeOfValue(tensor)}, expected a tensor`);
    }
    const { storage, offset, shape } = tensor;
    if (storage.type !== FLOAT_STORAGE) {
      throw new PetraShapeError(`${at} is stored as '${storage.type}', expected float32`);
    }
    if (shape.length !== 0 || offset >= storage.numel) {
      throw new PetraShapeError(`${at} has shape [${shape.join(", ")}], expected a scalar`);
    }
    const bytes = this.#storages.get(storage.key);
    if (bytes === undefined) {
      throw new PetraShapeError(`${at}: storage entry data/${storage.key} is missing`);
    }
    if (bytes.length !== storage.numel * 4) {
      throw new PetraShapeError(
        `${at}: storage entry data/${storage.key} is ${bytes.length} bytes, ` +
          `expected ${storage.numel * 4}`,
      );
    }
    // torch writes storages little-endian (the `byteorder` entry of newer files says so).
    return new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength)
      .getFloat32(offset * 4, true);
  }
}

// ---------------------------------------------------------------------------------------------
// Shape helpers: each names the field it reads in its error.

function stateOf(object: PyObject, where: string): PyDict {
  if (object.state === undefined) throw new PetraShapeError(`${where} has no state`);
  return object.state;
}

function field(dictionary: PyDict, key: string, where: string): PickleValue {
  const value = dictionary.get(key);
  if (value === undefined) throw new PetraShapeError(`${where} has no ${key} field`);
  return value;
}

function objectField(module: PyDict, key: string, className: string): PyDict {
  const value = field(module, key, "the PetriNetModule");
  if (!(value instanceof PyObject) || value.className !== className) {
    throw new PetraShapeError(`${key} is ${typeOfValue(value)}, expected a '${className}'`);
  }
  return stateOf(value, key);
}

function asDict(value: PickleValue, where: string): PyDict {
  if (!(value instanceof Map)) {
    throw new PetraShapeError(`${where} is ${typeOfValue(value)}, expected a dict`);
  }
  return value;
}

function dict(from: PyDict, key: string, where = "the PetriNetModule"): PyDict {
  return asDict(field(from, key, where), where === "net" ? `net.${key}` : key);
}

function text(value: PickleValue, where: string): string {
  if (typeof value !== "string") {
    throw new PetraShapeError(`${where} is ${typeOfValue(value)}, expected a string`);
  }
  return value;
}

function number(value: PickleValue, where: string): number {
  if (typeof value !== "number") {
    throw new PetraShapeError(`${where} is ${typeOfValue(value)}, expected a number`);
  }
  return value;
}

function count(value: PickleValue, where: string): number {
  if (typeof value !== "number" || !Number.isSafeInteger(value)) {
    throw new PetraShapeError(`${where} is ${typeOfValue(value)}, expected an int`);
  }
  return value;
}

function str(from: PyDict, key: string, where?: string): string {
  return text(field(from, key, where ?? "the PetriNetModule"), where ? `${where}.${key}` : key);
}

function num(from: PyDict, key: string, where?: string): number {
  return number(field(from, key, where ?? "the PetriNetModule"), where ? `${where}.${key}` : key);
}

function int(from: PyDict, key: string): number {
  return count(field(from, key, "the PetriNetModule"), key);
}

function setOf(net: PyDict, key: string): readonly PickleValue[] {
  const value = field(net, key, "net");
  if (!(value instanceof PySet)) {
    throw new PetraShapeError(`net.${key} is ${typeOfValue(value)}, expected a set`);
  }
  return value.items;
}

function strings(net: PyDict, key: string): string[] {
  return setOf(net, key).map((id, i) => text(id, `net.${key} item ${i}`)).sort(compareIds);
}

function pair(value: PickleValue, where: string): [string, string] {
  if (!(value instanceof PyTuple) || value.items.length !== 2) {
    throw new PetraShapeError(`${where} is ${typeOfValue(value)}, expected a pair of ids`);
  }
  return [text(value.items[0]!, where), text(value.items[1]!, where)];
}

function comparePairs(a: [string, string], b: [string, string]): number {
  return compareIds(a[0], b[0]) || compareIds(a[1], b[1]);
}

/** A dict keyed by id, as `[id, value]` sorted by id. */
function sortedEntries(value: PyDict, where: string): [string, PickleValue][] {
  return [...value].map(([key, v]): [string, PickleValue] => [text(key, `a key of ${where}`), v])
    .sort((a, b) => compareIds(a[0], b[0]));
}

/** A dict keyed by `(id, id)` tuples, as `[[id, id], value]` sorted by the pair. */
function sortedPairs(value: PyDict, where: string): [[string, string], PickleValue][] {
  return [...value].map(([key, v]): [[string, string], PickleValue] => [
    pair(key, `a key of ${where}`),
    v,
  ]).sort((a, b) => comparePairs(a[0], b[0]));
}

function table<T>(
  net: PyDict,
  key: string,
  read: (value: PickleValue, where: string) => T,
): Record<string, T> {
  const where = `net.${key}`;
  return Object.fromEntries(
    sortedEntries(dict(net, key, "net"), where).map((
      [id, value],
    ) => [id, read(value, `${where}[${quoteId(id)}]`)]),
  );
}

/** A constant output value; a callable one cannot be served, so it is refused by its arc. */
function outputValue(value: PickleValue, where: string): number {
  if (typeof value === "number") return value;
  throw new PetraShapeError(
    `${where} is ${typeOfValue(value)}: only constant output values can be served ` +
      "(a Python callable cannot be compiled)",
  );
}
