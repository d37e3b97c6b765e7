/**
 * Lowers a PETRA model to the IR of `ir.ts`, vectorised: one block of operations per
 * topological layer (acyclic mode) or per time step (time-unrolled mode), so graph size follows
 * depth or `num_steps`, never the number of places and transitions. The math is that of
 * `docs/semantics.md`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { lowerModel } from "./lower.ts";
 * import { parseModelDescription } from "../net/parse.ts";
 * const model = parseModelDescription(JSON.parse(
 *   await Deno.readTextFile("examples/rest_serving/rest_serving.model.json"),
 * ));
 * const { graph, transitions, places } = lowerModel(model);
 * assert.equal(places.width, 3);
 * assert.ok(graph.nodes.length > 0);
 * ```
 *
 * @module
 */

import { arcKey, type PetriModel } from "../net/types.ts";
import { HELD_VALUE, sourceDefault } from "../net/source_default.ts";
import { type NetStructure, netStructure, nodeDepths } from "../net/structure.ts";
import { Graph, type Value } from "./ir.ts";
import { type Entry, SparseMatrix } from "./sparse.ts";

/** The graph inputs of the contract, as IR values. */
export interface ContractInputs {
  readonly marking: Value;
  readonly markingMask: Value;
  readonly values: Value;
  readonly valuesMask: Value;
}

/** A lowered model: the IR graph, its inputs, its two forward outputs and `place_values`. */
export interface LoweredModel {
  readonly graph: Graph;
  readonly inputs: ContractInputs;
  /** Firing activation per transition, sorted id order. */
  readonly transitions: Value;
  /** Place activation at the end of the pass, sorted id order. */
  readonly places: Value;
  /**
   * Lowers the value channel per place at the end of the pass, sorted id order. Its nodes are
   * added when called, so that the compiler can put them in the gradient branch.
   */
  placeValues(): Value;
}

/** A tensor together with the column of each id it holds. */
interface Columns {
  readonly value: Value;
  readonly column: ReadonlyMap<string, number>;
}

/** Lowers a model's forward pass to IR. */
export function lowerModel(model: PetriModel, maxNodes = Infinity): LoweredModel {
  const graph = new Graph(maxNodes);
  const { places, transitions } = model.net;
  const inputs: ContractInputs = {
    marking: graph.input("marking", places.length),
    markingMask: graph.input("marking_mask", places.length),
    values: graph.input("values", places.length),
    valuesMask: graph.input("values_mask", places.length),
  };
  const lowering = new Lowering(model, graph, inputs);
  const out = transitions.length === 0
    ? lowering.withoutTransitions()
    : model.module.numSteps > 0
    ? lowering.unrolled()
    : lowering.acyclic();
  if (out.transitions.width !== transitions.length || out.places.width !== places.length) {
    throw new Error("lowering produced outputs of the wrong width");
  }
  return { graph, inputs, ...out, placeValues: () => lowering.placeValues(out) };
}

class Lowering {
  readonly structure: NetStructure;
  readonly placeIndex: Map<string, number>;
  readonly clamped: Value;
  #valueSupplied: Value | undefined;
  #isSource: Value | undefined;
  /** Places whose value channel some structural guard reads: the only values worth computing. */
  readonly guardPlaces: ReadonlySet<string>;
  readonly sources: ReadonlySet<string>;

  constructor(
    readonly model: PetriModel,
    readonly graph: Graph,
    readonly inputs: ContractInputs,
  ) {
    this.structure = netStructure(model.net);
    this.placeIndex = indexOf(model.net.places);
    this.clamped = graph.toBool(inputs.markingMask);
    this.guardPlaces = new Set([...model.net.structuralGuards.values()].map((g) => g.place));
    this.sources = new Set(this.structure.sourcePlaces);
  }

  /** The values mask as bool, built on first use: most nets never read the value channel. */
  get valueSupplied(): Value {
    return this.#valueSupplied ??= this.graph.toBool(this.inputs.valuesMask);
  }

  /** Source places as a bool row over all places, built on first use. */
  get isSource(): Value {
    const { places } = this.model.net;
    return this.#isSource ??= this.graph.constant(
      places.map((p) => (this.sources.has(p) ? 1 : 0)),
      "bool",
    );
  }

  /** Selects the given places' columns from a full-width `[batch, P]` input. */
  pick(full: Value, ids: readonly string[]): Value {
    const cols = ids.map((p) => this.placeIndex.get(p)!);
    return this.graph.linear(full, SparseMatrix.selection(cols, full.width));
  }

  /** Initial-marking default of source places (`sourceDefault`); 0 for the others. */
  defaultActivation(ids: readonly string[]): Value {
    const { net } = this.model;
    const marked = ids.map((p) => this.sources.has(p) ? sourceDefault(net, p).marking : 0);
    return this.graph.constant(marked);
  }

  /** The supplied value where there is one, else {@link HELD_VALUE} (clamped and sources). */
  heldValue(ids: readonly string[]): Value {
    const g = this.graph;
    return g.where(
      this.pick(this.valueSupplied, ids),
      this.pick(this.inputs.values, ids),
      g.scalar(HELD_VALUE),
    );
  }

  /**
   * The `place_values` output: held places (clamped or source) keep their supplied value or
   * {@link HELD_VALUE}; the others take Σ w·a(t)·o / (a(p) + 1e-6) from the pass's final
   * transition and place activations, which in both modes are the ones that place's value
   * is computed from.
   */
  placeValues(out: { transitions: Value; places: Value }): Value {
    const g = this.graph;
    const { places, transitions } = this.model.net;
    const held = this.heldValue(places);
    if (transitions.length === 0) return held;
    const acts = { value: out.transitions, column: indexOf(transitions) };
    return g.where(
      g.or(this.clamped, this.isSource),
      held,
      this.computedValue(places, acts, out.places),
    );
  }

  /**
   * Firing activations of `ids` (one layer, or all transitions in a step) from the place
   * activations `acts` and the guard places' values `vals`; `inhibits(p, t)` says whether an
   * inhibitor place counts for `t` (acyclic mode: only places already computed).
   */
  fire(
    ids: readonly string[],
    acts: Columns,
    vals: Columns | undefined,
    inhibits: (place: string, transition: string) => boolean,
  ): Value {
    const g = this.graph;
    const { net, module, parameters } = this.model;
    const weighted: Entry[] = [];
    ids.forEach((t, row) => {
      for (const p of this.structure.preset.get(t)!) {
        const weight = parameters.arcWeights.get(arcKey(p, t))!;
        weighted.push({ row, col: acts.column.get(p)!, weight });
      }
    });
    const sums = g.linear(acts.value, new SparseMatrix(ids.length, acts.value.width, weighted));
    const theta = g.constant(ids.map((t) => parameters.transitionThresholds.get(t)!));
    // PETRA multiplies by the double `rate * sharpness`, rounded once to float32.
    const scale = g.constant(ids.map((t) => (net.rates.get(t) ?? 1) * module.sharpness));
    const pre = g.mul(g.sub(sums, theta), scale);

    let fired = this.#squash(ids, pre);
    const gates = [
      ...this.#inhibitorGates(ids, acts, inhibits),
      ...(vals ? this.#guardGate(ids, vals) : []),
    ];
    for (const gate of gates) fired = g.mul(fired, gate);
    return fired;
  }

  /** Sigmoid / straight-through per transition, softmax across each group (softmax routing). */
  #squash(ids: readonly string[], pre: Value): Value {
    const g = this.graph;
    const position = indexOf(ids);
    const groups = this.model.module.routing === "softmax"
      ? this.structure.softmaxGroups
        .filter((group) => position.has(group[0]!))
        .map((group) => group.map((t) => position.get(t)!))
      : [];
    const grouped = new Set(groups.flat());
    const single = ids.map((_, i) => i).filter((i) => !grouped.has(i));
    const sigmoidal = (x: Value) => {
      const s = g.sigmoid(x);
      return this.model.module.firing === "ste" ? g.step(s) : s;
    };
    if (grouped.size === 0) return sigmoidal(pre);
    const members = groups.flat();
    const local = new Map(members.map((col, i) => [col, i]));
    const soft = g.groupSoftmax(
      g.linear(pre, SparseMatrix.selection(members, pre.width)),
      groups.map((group) => group.map((col) => local.get(col)!)),
    );
    if (single.length === 0) {
      return g.linear(soft, SparseMatrix.selection(ids.map((_, i) => local.get(i)!), soft.width));
    }
    const plain = sigmoidal(g.linear(pre, SparseMatrix.selection(single, pre.width)));
    const both = g.concat([plain, soft]);
    const back = ids.map((_, i) =>
      grouped.has(i) ? single.length + local.get(i)! : single.indexOf(i)
    );
    return g.linear(both, SparseMatrix.selection(back, both.width));
  }

  /** One factor `1 − a(p)` per inhibitor slot; a transition with fewer places gets 1. */
  #inhibitorGates(
    ids: readonly string[],
    acts: Columns,
    inhibits: (place: string, transition: string) => boolean,
  ): Value[] {
    const g = this.graph;
    const lists = ids.map((t) =>
      (this.structure.inhibitors.get(t) ?? []).filter((p) => inhibits(p, t))
    );
    const slots = lists.reduce((n, l) => Math.max(n, l.length), 0);
    const gates: Value[] = [];
    for (let s = 0; s < slots; s++) {
      const cols = lists.map((l) => {
        const place = l[s];
        return place === undefined ? -1 : acts.column.get(place)!;
      });
      const occupied = g.linear(acts.value, SparseMatrix.selection(cols, acts.value.width));
      gates.push(g.sub(g.scalar(1), occupied));
    }
    return gates;
  }

  /** sigmoid(±(sharpness·s)·(v(g) − θg)) for guarded transitions, 1 for the others. */
  #guardGate(ids: readonly string[], vals: Columns): Value[] {
    const g = this.graph;
    const { net, module, parameters } = this.model;
    const guards = ids.map((t) => net.structuralGuards.get(t));
    if (guards.every((x) => x === undefined)) return [];
    const cols = guards.map((x) => (x ? vals.column.get(x.place)! : -1));
    const v = g.linear(vals.value, SparseMatrix.selection(cols, vals.value.width));
    const theta = g.constant(ids.map((t) => parameters.guardThresholds.get(t) ?? 0));
    const coef = g.constant(guards.map((x) => {
      if (!x) return 0;
      const scale = 1 / Math.max(Math.abs(x.value), 1);
      const sign = x.op === "<" || x.op === "<=" ? -1 : 1;
      return sign * (module.sharpness * scale);
    }));
    const gate = g.sigmoid(g.mul(g.sub(v, theta), coef));
    if (guards.every((x) => x !== undefined)) return [gate];
    return [g.where(g.constant(guards.map((x) => (x ? 1 : 0)), "bool"), gate, g.scalar(1))];
  }

  /** Σ w(t,p)·a(t) for `placeIds`, reading transition activations from `acts`. */
  inflow(placeIds: readonly string[], acts: Columns, withOutputValue: boolean): Value {
    const { parameters } = this.model;
    const outputValue = new Map(
      this.model.net.arcOutputValues.map((o) => [arcKey(o.transition, o.place), o.value]),
    );
    const entries: Entry[] = [];
    placeIds.forEach((p, row) => {
      for (const t of this.structure.preset.get(p)!) {
        const key = arcKey(t, p);
        const w = parameters.arcWeights.get(key)!;
        const weight = withOutputValue ? w * (outputValue.get(key) ?? 1) : w;
        entries.push({ row, col: acts.column.get(t)!, weight });
      }
    });
    return this.graph.linear(
      acts.value,
      new SparseMatrix(placeIds.length, acts.value.width, entries),
    );
  }

  /** Value channel of computed places: Σ w·a(t)·o(t,p) / (a(p) + 1e-6). */
  computedValue(placeIds: readonly string[], acts: Columns, activation: Value): Value {
    const g = this.graph;
    return g.div(this.inflow(placeIds, acts, true), g.add(activation, g.scalar(1e-6)));
  }

  /** A net of source places only: every place is its input or its default, in both modes. */
  withoutTransitions(): { transitions: Value; places: Value } {
    const { places } = this.model.net;
    return {
      transitions: this.pick(this.inputs.marking, []),
      places: this.graph.where(this.clamped, this.inputs.marking, this.defaultActivation(places)),
    };
  }

  /**
   * Acyclic mode: one block per longest-path layer. Transitions at depth 2k+1 read the place
   * layers they need (presets, and inhibitor places already computed); places at depth 2k+2
   * sum the transition layers feeding them, unless clamped.
   */
  acyclic(): { transitions: Value; places: Value } {
    const { net } = this.model;
    const depth = nodeDepths(net, this.structure);
    if (!depth) throw new Error("the net has a cycle: compile it with num_steps > 0");
    const layers: AcyclicLayers = {
      depth,
      places: [],
      values: [],
      transitions: [],
      placeLayerOf: new Map(),
      transitionLayerOf: new Map(),
    };
    const maxDepth = Math.max(0, ...depth.values());
    this.#sourceLayer(layers);
    for (let d = 2; d <= maxDepth; d += 2) {
      this.#transitionLayer(layers, net.transitions.filter((t) => depth.get(t) === d - 1));
      this.#placeLayer(layers, net.places.filter((p) => depth.get(p) === d));
    }
    return {
      transitions: inSortedOrder(this.graph, layers.transitions, net.transitions),
      places: inSortedOrder(this.graph, layers.places, net.places),
    };
  }

  /** Depth 0: source (and isolated) places take their input or their default. */
  #sourceLayer(layers: AcyclicLayers): void {
    const ps = this.model.net.places.filter((p) => layers.depth.get(p) === 0);
    const guarded = ps.filter((p) => this.guardPlaces.has(p));
    ps.forEach((p) => layers.placeLayerOf.set(p, 0));
    const activation = this.graph.where(
      this.pick(this.clamped, ps),
      this.pick(this.inputs.marking, ps),
      this.defaultActivation(ps),
    );
    layers.places.push({ value: activation, column: indexOf(ps) });
    layers.values.push(
      guarded.length > 0 ? { value: this.heldValue(guarded), column: indexOf(guarded) } : undefined,
    );
  }

  #transitionLayer(layers: AcyclicLayers, ts: readonly string[]): void {
    const { net } = this.model;
    const { depth, placeLayerOf } = layers;
    const earlier = (p: string, t: string) => depth.get(p)! < depth.get(t)!;
    const reads = new Set<number>();
    const guardReads = new Set<number>();
    for (const t of ts) {
      for (const p of this.structure.preset.get(t)!) reads.add(placeLayerOf.get(p)!);
      for (const p of this.structure.inhibitors.get(t) ?? []) {
        if (earlier(p, t)) reads.add(placeLayerOf.get(p)!);
      }
      const guard = net.structuralGuards.get(t);
      if (guard) guardReads.add(placeLayerOf.get(guard.place)!);
    }
    const acts = concatLayers(this.graph, layers.places, reads);
    const vals = guardReads.size > 0
      ? concatLayers(this.graph, layers.values, guardReads)
      : undefined;
    ts.forEach((t) => layers.transitionLayerOf.set(t, layers.transitions.length));
    layers.transitions.push({ value: this.fire(ts, acts, vals, earlier), column: indexOf(ts) });
  }

  #placeLayer(layers: AcyclicLayers, ps: readonly string[]): void {
    const g = this.graph;
    ps.forEach((p) => layers.placeLayerOf.set(p, layers.places.length));
    const feeding = new Set(
      ps.flatMap((p) => this.structure.preset.get(p)!.map((t) => layers.transitionLayerOf.get(t)!)),
    );
    const tacts = concatLayers(g, layers.transitions, feeding);
    const computed = this.inflow(ps, tacts, false);
    const activation = g.where(
      this.pick(this.clamped, ps),
      this.pick(this.inputs.marking, ps),
      computed,
    );
    layers.places.push({ value: activation, column: indexOf(ps) });
    const guarded = ps.filter((p) => this.guardPlaces.has(p));
    if (guarded.length === 0) {
      layers.values.push(undefined);
      return;
    }
    const local = indexOf(ps);
    const unclamped = g.linear(
      computed,
      SparseMatrix.selection(guarded.map((p) => local.get(p)!), computed.width),
    );
    const value = g.where(
      this.pick(this.clamped, guarded),
      this.heldValue(guarded),
      this.computedValue(guarded, tacts, unclamped),
    );
    layers.values.push({ value, column: indexOf(guarded) });
  }

  /**
   * Time-unrolled mode: `num_steps` synchronous steps over all transitions at once; clamped
   * and source places hold their start value, the others sum the effective activations.
   */
  unrolled(): { transitions: Value; places: Value } {
    const g = this.graph;
    const { net, module } = this.model;
    const start = g.where(this.clamped, this.inputs.marking, this.defaultActivation(net.places));
    const held = g.or(this.clamped, this.isSource);
    const guarded = net.places.filter((p) => this.guardPlaces.has(p));
    const guardValues = guarded.length > 0 ? this.#guardValueChannel(guarded, held) : undefined;
    const durations = [...new Set(net.transitions.map((t) => net.durations.get(t) ?? 1))]
      .sort((a, b) => b - a);
    const firings: Value[] = [];
    const transitionColumns = indexOf(net.transitions);
    let acts = start;
    let vals = guardValues?.initial;
    let effective: Value | undefined;
    for (let step = 1; step <= module.numSteps; step++) {
      const fired = this.fire(
        net.transitions,
        { value: acts, column: this.placeIndex },
        vals ? { value: vals, column: indexOf(guarded) } : undefined,
        () => true,
      );
      firings.push(fired);
      effective = this.#delayed(firings, durations);
      const tacts: Columns = { value: effective, column: transitionColumns };
      const computed = this.inflow(net.places, tacts, false);
      acts = g.where(held, start, computed);
      if (guardValues) vals = guardValues.next(tacts, computed);
    }
    return { transitions: effective!, places: acts };
  }

  /**
   * The value channel of the guard places in unrolled mode: its initial state (supplied, else
   * 1.0 for sources, else 0.0) and its update (held places keep supplied-or-1.0).
   */
  #guardValueChannel(guarded: readonly string[], held: Value) {
    const g = this.graph;
    const supplied = this.pick(this.valueSupplied, guarded);
    const values = this.pick(this.inputs.values, guarded);
    const { net } = this.model;
    const initialDefault = g.constant(
      guarded.map((p) => (this.sources.has(p) ? sourceDefault(net, p).value : 0)),
    );
    const heldGuarded = this.pick(held, guarded);
    const fixed = g.where(supplied, values, g.scalar(HELD_VALUE));
    return {
      initial: g.where(supplied, values, initialDefault),
      next: (tacts: Columns, computed: Value) =>
        g.where(
          heldGuarded,
          fixed,
          this.computedValue(guarded, tacts, this.pick(computed, guarded)),
        ),
    };
  }

  /** Effective activations of the latest step: the firing from `d − 1` steps back, or 0. */
  #delayed(firings: readonly Value[], durations: readonly number[]): Value {
    const g = this.graph;
    const { net } = this.model;
    const step = firings.length;
    if (durations.length === 1 && durations[0] === 1) return firings[step - 1]!;
    let out: Value | undefined;
    for (const d of durations.filter((d) => d <= step)) {
      const hasDuration = net.transitions.map((t) => ((net.durations.get(t) ?? 1) === d ? 1 : 0));
      out = g.where(g.constant(hasDuration, "bool"), firings[step - d]!, out ?? g.scalar(0));
    }
    return out ?? g.zerosLike(firings[0]!);
  }
}

/** The layers built so far in acyclic mode (values: guard places only, per place layer). */
interface AcyclicLayers {
  readonly depth: ReadonlyMap<string, number>;
  readonly places: Columns[];
  readonly values: (Columns | undefined)[];
  readonly transitions: Columns[];
  readonly placeLayerOf: Map<string, number>;
  readonly transitionLayerOf: Map<string, number>;
}

/** Concatenates the chosen layers (in layer order) and maps each id to its column. */
function concatLayers(
  g: Graph,
  layers: readonly (Columns | undefined)[],
  chosen: ReadonlySet<number>,
): Columns {
  const picked = [...chosen].sort((a, b) => a - b).map((i) => layers[i]!);
  const column = new Map<string, number>();
  let offset = 0;
  for (const layer of picked) {
    for (const [id, c] of layer.column) column.set(id, offset + c);
    offset += layer.value.width;
  }
  return { value: g.concat(picked.map((l) => l.value)), column };
}

/** All layers' columns gathered into the sorted order of `ids`. */
function inSortedOrder(g: Graph, layers: readonly Columns[], ids: readonly string[]): Value {
  const all = concatLayers(g, layers, new Set(layers.map((_, i) => i)));
  const cols = ids.map((id) => all.column.get(id)!);
  return g.linear(all.value, SparseMatrix.selection(cols, all.value.width));
}

function indexOf(ids: readonly string[]): Map<string, number> {
  return new Map(ids.map((id, i) => [id, i]));
}
