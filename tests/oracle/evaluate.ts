/**
 * The oracle: a float64 reference evaluator of PETRA's compiled forward pass, written node by
 * node after docs/semantics.md (Acyclic mode, Time-unrolled mode).
 *
 * It shares no code with the ONNX compiler (it does not even use `core/net/structure.ts`), so
 * the compiled graph can be checked against it. The evaluation is generic over a number type
 * ({@link Arithmetic}): {@link float64} gives the reference numbers, {@link float32} rounds
 * every operation to float32 (as PETRA's torch graph does), and `gradient.ts` runs the same
 * code over a tape to get exact reverse-mode gradients.
 *
 * @example
 * ```ts
 * import { evaluate } from "./evaluate.ts";
 * declare const model: import("../../core/net/types.ts").PetriModel;
 * const out = evaluate(model, { marking: new Map([["p_in", 0.5]]), values: new Map() });
 * out.transitions.get("t_a");
 * ```
 *
 * @module
 */

import { arcKey, compareIds, type PetriModel, type PetriNet } from "../../core/net/types.ts";

/** The value-channel epsilon added to a place's activation before dividing. */
export const VALUE_EPSILON = 1e-6;

/**
 * The operations the forward pass needs, over some number type `N` (plain numbers, float32
 * emulation, or tape variables for reverse mode).
 */
export interface Arithmetic<N> {
  /** A constant (no gradient flows into it). */
  constant(x: number): N;
  /** `a + b`. */
  add(a: N, b: N): N;
  /** `a - b`. */
  sub(a: N, b: N): N;
  /** `a * b`. */
  mul(a: N, b: N): N;
  /** `a / b`. */
  div(a: N, b: N): N;
  /** `exp(a)`. */
  exp(a: N): N;
  /** The logistic function `1 / (1 + exp(-a))`. */
  sigmoid(a: N): N;
  /** STE firing: forward 1 if sigmoid(a) > 0.5 else 0; backward the sigmoid derivative. */
  ste(a: N): N;
  /** The plain value of `a`. */
  valueOf(a: N): number;
}

/** The numerically stable logistic function, in float64. */
export function sigmoid64(x: number): number {
  if (x >= 0) return 1 / (1 + Math.exp(-x));
  const e = Math.exp(x);
  return e / (1 + e);
}

/** Plain float64 arithmetic: the reference numbers. */
export const float64: Arithmetic<number> = {
  constant: (x) => x,
  add: (a, b) => a + b,
  sub: (a, b) => a - b,
  mul: (a, b) => a * b,
  div: (a, b) => a / b,
  exp: (a) => Math.exp(a),
  sigmoid: sigmoid64,
  ste: (a) => (sigmoid64(a) > 0.5 ? 1 : 0),
  valueOf: (a) => a,
};

const f32 = Math.fround;

/**
 * float32 emulation: every input, constant and result is rounded to float32 (exact for
 * `+ - * /`, a faithful approximation for `exp` and the sigmoid). Used to check that the random
 * nets keep float32 within the parity tolerance of float64.
 */
export const float32: Arithmetic<number> = {
  constant: (x) => f32(x),
  add: (a, b) => f32(a + b),
  sub: (a, b) => f32(a - b),
  mul: (a, b) => f32(a * b),
  div: (a, b) => f32(a / b),
  exp: (a) => f32(Math.exp(a)),
  sigmoid: (a) => f32(1 / f32(1 + f32(Math.exp(-a)))),
  ste: (a) => (f32(1 / f32(1 + f32(Math.exp(-a)))) > 0.5 ? 1 : 0),
  valueOf: (a) => a,
};

/** One request row: the supplied marking (clamps those places) and value-channel entries. */
export interface RequestRow {
  /** Place id -> supplied marking; every supplied place is clamped. */
  readonly marking: ReadonlyMap<string, number>;
  /** Place id -> supplied value-channel entry. */
  readonly values: ReadonlyMap<string, number>;
}

/** The oracle's answer for one row. */
export interface Evaluation {
  /** Every transition's output activation (post-duration in time-unrolled mode). */
  readonly transitions: Map<string, number>;
  /** Every place's activation (the final state in time-unrolled mode). */
  readonly places: Map<string, number>;
  /** Every place's value channel (the final state in time-unrolled mode). */
  readonly values: Map<string, number>;
}

/** {@link Evaluation} over a generic number type. */
export interface GenericEvaluation<N> {
  /** Every transition's output activation. */
  readonly transitions: Map<string, N>;
  /** Every place's activation. */
  readonly places: Map<string, N>;
  /** Every place's value channel. */
  readonly values: Map<string, N>;
}

/** Hooks called during an evaluation with the plain numbers at the fragile points. */
export interface EvaluationObserver {
  /** An STE firing of pre-activation `pre` (not called for softmax members). */
  ste?(transition: string, pre: number): void;
  /**
   * A value-channel division at a non-source, unclamped place: `denominator` = a(p) + 1e-6,
   * `termMagnitude` = Σ |w(t,p)·a(t)| over the place's preset.
   */
  valueDivision?(place: string, denominator: number, termMagnitude: number): void;
}

/** Presets and postsets of a net's flow relation, computed from the arc list. */
interface Flow {
  readonly preset: Map<string, string[]>;
  readonly postset: Map<string, string[]>;
}

function flowOf(net: PetriNet): Flow {
  const preset = new Map<string, string[]>();
  const postset = new Map<string, string[]>();
  for (const id of [...net.places, ...net.transitions]) {
    preset.set(id, []);
    postset.set(id, []);
  }
  for (const { from, to } of net.arcs) {
    preset.get(to)!.push(from);
    postset.get(from)!.push(to);
  }
  for (const list of preset.values()) list.sort(compareIds);
  for (const list of postset.values()) list.sort(compareIds);
  return { preset, postset };
}

/**
 * Longest-path depth of every node from a node with an empty preset (PETRA's `graphlib`
 * generations), by memoised recursion over presets. Throws when the flow relation has a cycle.
 *
 * @example
 * ```ts
 * import { longestPathDepths } from "./evaluate.ts";
 * declare const net: import("../../core/net/types.ts").PetriNet;
 * longestPathDepths(net).get("t_a"); // 1 for a transition fed by source places only
 * ```
 */
export function longestPathDepths(net: PetriNet): Map<string, number> {
  const { preset } = flowOf(net);
  const depth = new Map<string, number>();
  const visiting = new Set<string>();
  const visit = (id: string): number => {
    const known = depth.get(id);
    if (known !== undefined) return known;
    if (visiting.has(id)) throw new Error(`the flow relation has a cycle through '${id}'`);
    visiting.add(id);
    let d = 0;
    for (const src of preset.get(id)!) d = Math.max(d, visit(src) + 1);
    visiting.delete(id);
    depth.set(id, d);
    return d;
  };
  for (const id of [...net.places, ...net.transitions]) visit(id);
  return depth;
}

/**
 * Softmax groups: transitions bucketed by their (non-empty) preset as a set, buckets with at
 * least two members, each sorted by id. Keyed by every member.
 */
function softmaxGroupsOf(net: PetriNet, flow: Flow): Map<string, string[]> {
  const buckets = new Map<string, string[]>();
  for (const t of net.transitions) {
    const inputs = [...new Set(flow.preset.get(t)!)].sort(compareIds);
    if (inputs.length === 0) continue;
    const key = JSON.stringify(inputs);
    const members = buckets.get(key) ?? [];
    members.push(t);
    buckets.set(key, members);
  }
  const byMember = new Map<string, string[]>();
  for (const members of buckets.values()) {
    if (members.length < 2) continue;
    members.sort(compareIds);
    for (const m of members) byMember.set(m, members);
  }
  return byMember;
}

/**
 * Evaluates the forward pass of `model` for one row over the number type of `ar`. `marking`
 * and `values` hold the supplied entries as `N`s (so a tape can track them).
 *
 * @example
 * ```ts
 * import { evaluateWith, float32 } from "./evaluate.ts";
 * declare const model: import("../../core/net/types.ts").PetriModel;
 * evaluateWith(model, new Map([["p_in", 0.5]]), new Map(), float32).transitions;
 * ```
 */
export function evaluateWith<N>(
  model: PetriModel,
  marking: ReadonlyMap<string, N>,
  values: ReadonlyMap<string, N>,
  ar: Arithmetic<N>,
  observer: EvaluationObserver = {},
): GenericEvaluation<N> {
  const { net, module, parameters } = model;
  const placeSet = new Set(net.places);
  for (const [field, map] of [["marking", marking], ["values", values]] as const) {
    const bad = [...map.keys()].filter((id) => !placeSet.has(id)).sort(compareIds);
    if (bad.length > 0) {
      throw new Error(
        `${field} has ids that are not places: ${bad.map((id) => `'${id}'`).join(", ")}`,
      );
    }
  }

  const flow = flowOf(net);
  const groups: Map<string, string[]> = module.routing === "softmax"
    ? softmaxGroupsOf(net, flow)
    : new Map();
  const inhibitorsOf = new Map<string, string[]>();
  for (const { place, transition } of net.inhibitorArcs) {
    inhibitorsOf.set(transition, [...(inhibitorsOf.get(transition) ?? []), place]);
  }

  const weight = (from: string, to: string): N => {
    const w = parameters.arcWeights.get(arcKey(from, to));
    if (w === undefined) throw new Error(`no weight for arc ${from} -> ${to}`);
    return ar.constant(w);
  };
  const threshold = (t: string): N => {
    const theta = parameters.transitionThresholds.get(t);
    if (theta === undefined) throw new Error(`no threshold for transition '${t}'`);
    return ar.constant(theta);
  };
  const outputValue = (t: string, p: string): N => {
    const spec = net.arcOutputValues.find((o) => o.transition === t && o.place === p);
    return ar.constant(spec === undefined ? 1.0 : spec.value);
  };
  const isSource = (p: string): boolean => flow.preset.get(p)!.length === 0;
  const sourceDefault = (p: string): N => ar.constant(net.initialMarking.has(p) ? 1.0 : 0.0);
  const sum = (terms: N[]): N => terms.reduce((acc, x) => ar.add(acc, x), ar.constant(0));

  // pre(t) = (rate·sharpness) · (Σ w(p,t)·a(p) − θ(t)); the scalar product is taken in double.
  const preActivation = (t: string, a: (p: string) => N): N => {
    const rate = net.rates.get(t) ?? 1.0;
    const weighted = sum(flow.preset.get(t)!.map((p) => ar.mul(weight(p, t), a(p))));
    return ar.mul(ar.constant(rate * module.sharpness), ar.sub(weighted, threshold(t)));
  };

  // Π (1 − a(p)) over the inhibitor places that `available` says have an activation.
  const inhibitorGate = (t: string, available: (p: string) => N | undefined): N | undefined => {
    let gate: N | undefined;
    for (const p of inhibitorsOf.get(t) ?? []) {
      const ap = available(p);
      if (ap === undefined) continue;
      const factor = ar.sub(ar.constant(1.0), ap);
      gate = gate === undefined ? factor : ar.mul(gate, factor);
    }
    return gate;
  };

  // sigmoid(±(sharpness·s)·(v(g) − θg)) with s = 1 / max(|declared value|, 1).
  const guardGate = (t: string, v: (p: string) => N | undefined): N | undefined => {
    const guard = net.structuralGuards.get(t);
    if (guard === undefined) return undefined;
    const vg = v(guard.place);
    if (vg === undefined) return undefined;
    const thetaG = parameters.guardThresholds.get(t);
    if (thetaG === undefined) throw new Error(`no guard threshold for transition '${t}'`);
    const scale = 1.0 / Math.max(Math.abs(guard.value), 1.0);
    const x = ar.mul(ar.constant(module.sharpness * scale), ar.sub(vg, ar.constant(thetaG)));
    return guard.op === ">" || guard.op === ">="
      ? ar.sigmoid(x)
      : ar.sigmoid(ar.sub(ar.constant(0), x));
  };

  const gated = (
    t: string,
    fired: N,
    inhibitors: (p: string) => N | undefined,
    v: (p: string) => N | undefined,
  ): N => {
    let out = fired;
    const gate = inhibitorGate(t, inhibitors);
    if (gate !== undefined) out = ar.mul(out, gate);
    const guard = guardGate(t, v);
    if (guard !== undefined) out = ar.mul(out, guard);
    return out;
  };

  const softmax = (xs: N[]): N[] => {
    const m = Math.max(...xs.map((x) => ar.valueOf(x)));
    const es = xs.map((x) => ar.exp(ar.sub(x, ar.constant(m))));
    const total = sum(es);
    return es.map((e) => ar.div(e, total));
  };

  /**
   * Fires `ts` (transitions evaluated at one moment): preset activations from `a`, inhibitor
   * places that `inhibitors` returns, guard values from `v`.
   */
  const fireTransitions = (
    ts: readonly string[],
    a: (p: string) => N,
    inhibitors: (p: string) => N | undefined,
    v: (p: string) => N | undefined,
  ): Map<string, N> => {
    const out = new Map<string, N>();
    for (const t of ts) {
      if (out.has(t)) continue;
      const group = groups.get(t);
      if (group !== undefined) {
        const soft = softmax(group.map((m) => preActivation(m, a)));
        group.forEach((m, i) => out.set(m, gated(m, soft[i]!, inhibitors, v)));
        continue;
      }
      const pre = preActivation(t, a);
      let fired: N;
      if (module.firing === "ste") {
        observer.ste?.(t, ar.valueOf(pre));
        fired = ar.ste(pre);
      } else {
        fired = ar.sigmoid(pre);
      }
      out.set(t, gated(t, fired, inhibitors, v));
    }
    return out;
  };

  // A non-source, unclamped place: a = Σ w·a(t); v = Σ w·a(t)·o(t,p) / (a + 1e-6).
  const collect = (p: string, at: (t: string) => N): { a: N; v: N } => {
    const preset = flow.preset.get(p)!;
    const contribs = preset.map((t) => ar.mul(weight(t, p), at(t)));
    const activation = sum(contribs);
    const numerator = sum(contribs.map((c, i) => ar.mul(c, outputValue(preset[i]!, p))));
    const denominator = ar.add(activation, ar.constant(VALUE_EPSILON));
    observer.valueDivision?.(
      p,
      ar.valueOf(denominator),
      contribs.reduce((acc, c) => acc + Math.abs(ar.valueOf(c)), 0),
    );
    return { a: activation, v: ar.div(numerator, denominator) };
  };

  const one = (): N => ar.constant(1.0);

  if (module.numSteps === 0) {
    // §2.4: visit the generations of the longest-path layering in order.
    const depth = longestPathDepths(net);
    const maxDepth = Math.max(0, ...depth.values());
    const act = new Map<string, N>();
    const val = new Map<string, N>();
    const get = (m: Map<string, N>, id: string): N => {
      const x = m.get(id);
      if (x === undefined) throw new Error(`'${id}' read before it was computed`);
      return x;
    };
    for (let d = 0; d <= maxDepth; d++) {
      for (const p of net.places) {
        if (depth.get(p) !== d) continue;
        const clamped = marking.get(p);
        if (clamped !== undefined) {
          act.set(p, clamped);
          val.set(p, values.get(p) ?? one());
        } else if (isSource(p)) {
          act.set(p, sourceDefault(p));
          val.set(p, values.get(p) ?? one());
        } else {
          const { a, v } = collect(p, (t) => get(act, t));
          act.set(p, a);
          val.set(p, v);
        }
      }
      const ts = net.transitions.filter((t) => depth.get(t) === d);
      const fired = fireTransitions(
        ts,
        (p) => get(act, p),
        // Only inhibitor places of an earlier generation have an activation yet.
        (p) => (depth.get(p)! < d ? get(act, p) : undefined),
        (p) => val.get(p),
      );
      for (const [t, x] of fired) act.set(t, x);
    }
    const transitions = new Map(net.transitions.map((t) => [t, get(act, t)]));
    const places = new Map(net.places.map((p) => [p, get(act, p)]));
    const placeValues = new Map(net.places.map((p) => [p, get(val, p)]));
    return { transitions, places, values: placeValues };
  }

  // §2.5: time-unrolled, synchronous steps.
  let act = new Map<string, N>();
  let val = new Map<string, N>();
  for (const p of net.places) {
    act.set(p, marking.get(p) ?? (isSource(p) ? sourceDefault(p) : ar.constant(0.0)));
    val.set(p, values.get(p) ?? ar.constant(isSource(p) ? 1.0 : 0.0));
  }
  let effective = new Map<string, N>(net.transitions.map((t) => [t, ar.constant(0.0)]));
  const inFlight = new Map<string, N[]>(net.transitions.map((t) => [t, []]));
  for (let step = 0; step < module.numSteps; step++) {
    const prevAct = act;
    const prevVal = val;
    const fired = fireTransitions(
      net.transitions,
      (p) => prevAct.get(p)!,
      (p) => prevAct.get(p)!,
      (p) => prevVal.get(p)!,
    );
    effective = new Map();
    for (const t of net.transitions) {
      const duration = net.durations.get(t) ?? 1;
      const x = fired.get(t)!;
      if (duration === 1) {
        effective.set(t, x);
        continue;
      }
      const queue = inFlight.get(t)!;
      queue.push(x);
      effective.set(t, queue.length >= duration ? queue.shift()! : ar.constant(0.0));
    }
    const eff = effective;
    act = new Map();
    val = new Map();
    for (const p of net.places) {
      const clamped = marking.get(p);
      if (clamped !== undefined) {
        act.set(p, clamped);
        val.set(p, values.get(p) ?? one());
      } else if (isSource(p)) {
        act.set(p, sourceDefault(p));
        val.set(p, values.get(p) ?? one());
      } else {
        // The value numerator uses the effective (post-duration) activation, as PETRA does.
        const { a, v } = collect(p, (t) => eff.get(t)!);
        act.set(p, a);
        val.set(p, v);
      }
    }
  }
  return {
    transitions: new Map(net.transitions.map((t) => [t, effective.get(t)!])),
    places: new Map(net.places.map((p) => [p, act.get(p)!])),
    values: new Map(net.places.map((p) => [p, val.get(p)!])),
  };
}

/**
 * Evaluates the forward pass of `model` for one request row in float64.
 *
 * @example
 * ```ts
 * import { evaluate } from "./evaluate.ts";
 * declare const model: import("../../core/net/types.ts").PetriModel;
 * evaluate(model, { marking: new Map([["p_in", 0.5]]), values: new Map() }).places;
 * ```
 */
export function evaluate(
  model: PetriModel,
  row: RequestRow,
  observer?: EvaluationObserver,
): Evaluation {
  return evaluateWith(model, row.marking, row.values, float64, observer);
}
