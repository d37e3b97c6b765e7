/**
 * Seeded random generation of valid {@link PetriModel}s and request rows, for property tests
 * of the oracle and of the ONNX compiler against it.
 *
 * Consecutive seeds cycle through every combination of mode (acyclic / time-unrolled), firing
 * (sigmoid / STE) and routing (independent / softmax); every other feature (softmax groups,
 * inhibitor arcs at any depth, structural guards with all four ops and declared values from 0.1
 * to 1000, rates, durations, arc output values, initial marking, silent transitions, labels,
 * awkward ids such as `__proto__`) is drawn at random. Magnitudes are kept moderate so that a
 * float32 evaluation stays within 1e-5 of float64 on rows that {@link numericalAmbiguity} accepts.
 *
 * @example
 * ```ts
 * import { describeNet, isNumericallyAmbiguous, randomCase } from "./random_net.ts";
 * const { model, rows } = randomCase(42, { rows: 3 });
 * for (const row of rows) if (!isNumericallyAmbiguous(model, row)) console.log(describeNet(model));
 * ```
 *
 * @module
 */

import {
  type Arc,
  arcKey,
  type ArcOutputValue,
  compareIds,
  type Firing,
  type GuardOp,
  type InhibitorArc,
  type PetriModel,
  type Routing,
  type StructuralGuard,
} from "../../core/net/types.ts";
import { evaluate, type RequestRow, sigmoid64 } from "./evaluate.ts";
import { mulberry32 } from "../random.ts";

export { mulberry32 };

/**
 * Convenience draws over {@link mulberry32}.
 *
 * @example
 * ```ts
 * import { Rng } from "./random_net.ts";
 * const rng = new Rng(7);
 * rng.int(1, 6); // a die roll
 * ```
 */
export class Rng {
  #next: () => number;
  /** Seeds the generator. */
  constructor(seed: number) {
    this.#next = mulberry32(seed);
  }
  /** A float in [0, 1). */
  next(): number {
    return this.#next();
  }
  /** A float in [lo, hi). */
  float(lo: number, hi: number): number {
    return lo + (hi - lo) * this.#next();
  }
  /** An integer in [lo, hi] (both included). */
  int(lo: number, hi: number): number {
    return lo + Math.floor(this.#next() * (hi - lo + 1));
  }
  /** True with probability `p`. */
  chance(p: number): boolean {
    return this.#next() < p;
  }
  /** One element of a non-empty list. */
  pick<T>(xs: readonly T[]): T {
    return xs[Math.floor(this.#next() * xs.length)]!;
  }
  /** `n` distinct elements (fewer if the list is shorter), in random order. */
  sample<T>(xs: readonly T[], n: number): T[] {
    const pool = [...xs];
    const out: T[] = [];
    while (out.length < n && pool.length > 0) {
      out.push(pool.splice(Math.floor(this.#next() * pool.length), 1)[0]!);
    }
    return out;
  }
}

/** Which features a random net must have; anything left out is drawn from the seed. */
export interface RandomNetOptions {
  /** `acyclic` (num_steps 0, a DAG) or `unrolled` (num_steps 1..6, cycles allowed). */
  readonly mode?: "acyclic" | "unrolled";
  /** Firing rule. */
  readonly firing?: Firing;
  /** Routing rule. */
  readonly routing?: Routing;
  /** Use awkward ids (`__proto__`, quotes, astral characters) for some nodes. */
  readonly oddIds?: boolean;
}

const ODD_IDS = [
  "__proto__",
  "constructor",
  "toString",
  "hasOwnProperty",
  "it's",
  'say "hi"',
  "with space",
  "ünïcödé",
  "\u{1F600}emoji",
  "a\\b",
  "0",
  "-1",
];

const GUARD_OPS: readonly GuardOp[] = [">", ">=", "<", "<="];
const GUARD_VALUES = [0, 0.1, 0.5, 1, -1, 2.5, -7, 10, 40, -300, 1000];

/** Rounds to float32 so that a compiled float32 graph sees exactly the oracle's parameters. */
const f32 = Math.fround;

/**
 * A random valid model drawn from `rng`.
 *
 * @example
 * ```ts
 * import { randomModel, Rng } from "./random_net.ts";
 * randomModel(new Rng(3), { mode: "unrolled", firing: "ste" }).module.numSteps; // 1..6
 * ```
 */
export function randomModel(rng: Rng, options: RandomNetOptions = {}): PetriModel {
  const mode = options.mode ?? (rng.chance(0.5) ? "acyclic" : "unrolled");
  const firing = options.firing ?? (rng.chance(0.5) ? "sigmoid" : "ste");
  const routing = options.routing ?? (rng.chance(0.5) ? "independent" : "softmax");
  const oddIds = options.oddIds ?? rng.chance(0.15);
  const groupChance = routing === "softmax" ? 0.7 : 0.3;

  const places: string[] = [];
  const transitions: string[] = [];
  const arcs: [string, string][] = [];
  const newPlace = () => {
    const id = `p${places.length}`;
    places.push(id);
    return id;
  };
  const newTransition = (preset: readonly string[], postset: readonly string[]) => {
    const id = `t${transitions.length}`;
    transitions.push(id);
    for (const p of preset) arcs.push([p, id]);
    for (const p of postset) arcs.push([id, p]);
    return id;
  };

  if (mode === "acyclic") {
    // Place layers L0..LK; the transitions of layer i read from layers <= i (at least one place
    // of layer i) and write to layers > i, so every arc points forward: a DAG.
    const k = rng.int(1, 3);
    const layers: string[][] = [];
    for (let i = 0; i <= k; i++) {
      layers.push(Array.from({ length: i === 0 ? rng.int(1, 3) : rng.int(1, 2) }, newPlace));
    }
    for (let i = 0; i < k; i++) {
      const earlier = layers.slice(0, i + 1).flat();
      const later = layers.slice(i + 1).flat();
      const drawPostset = () => {
        const out = [rng.pick(layers[i + 1]!)];
        if (rng.chance(0.3)) out.push(...rng.sample(later.filter((p) => !out.includes(p)), 1));
        return out;
      };
      const count = rng.int(1, 3);
      for (let j = 0; j < count; j++) {
        const preset = [rng.pick(layers[i]!)];
        const extra = rng.int(0, 2);
        preset.push(...rng.sample(earlier.filter((p) => !preset.includes(p)), extra));
        newTransition(preset, drawPostset());
        // Clones with the same preset form a softmax group.
        if (rng.chance(groupChance)) {
          for (let c = rng.int(1, 2); c > 0; c--) newTransition(preset, drawPostset());
        }
      }
    }
    if (rng.chance(0.15)) newPlace(); // an isolated place
  } else {
    const n = rng.int(2, 6);
    for (let i = 0; i < n; i++) newPlace();
    const count = rng.int(1, 5);
    for (let j = 0; j < count; j++) {
      const preset = rng.sample(places, rng.int(1, Math.min(3, n)));
      const drawPostset = () => rng.sample(places, rng.int(1, 2));
      newTransition(preset, drawPostset());
      if (rng.chance(groupChance)) {
        for (let c = rng.int(1, 2); c > 0; c--) newTransition(preset, drawPostset());
      }
    }
  }

  // Rename some nodes to awkward ids (keeping every id unique).
  const rename = new Map<string, string>();
  if (oddIds) {
    const nodes = [...places, ...transitions];
    for (const [i, id] of rng.sample(ODD_IDS, rng.int(1, 4)).entries()) {
      const node = nodes[(i * 7 + rng.int(0, nodes.length - 1)) % nodes.length]!;
      if (!rename.has(node)) rename.set(node, id);
    }
  }
  const name = (id: string) => rename.get(id) ?? id;
  const P = places.map(name).sort(compareIds);
  const T = transitions.map(name).sort(compareIds);
  const flow: Arc[] = arcs
    .map(([from, to]) => ({ from: name(from), to: name(to) }))
    .sort((a, b) => compareIds(a.from, b.from) || compareIds(a.to, b.to));
  const presetOf = (t: string) => flow.filter((a) => a.to === t).map((a) => a.from);

  const inhibitorArcs: InhibitorArc[] = [];
  for (const t of T) {
    if (!rng.chance(0.3)) continue;
    for (const place of rng.sample(P, rng.chance(0.2) ? 2 : 1)) {
      inhibitorArcs.push({ place, transition: t });
    }
  }
  inhibitorArcs.sort((a, b) =>
    compareIds(a.place, b.place) || compareIds(a.transition, b.transition)
  );

  const structuralGuards = new Map<string, StructuralGuard>();
  const guardThresholds = new Map<string, number>();
  for (const t of T) {
    if (!rng.chance(0.35)) continue;
    const value = rng.pick(GUARD_VALUES);
    structuralGuards.set(t, { place: rng.pick(presetOf(t)), op: rng.pick(GUARD_OPS), value });
    guardThresholds.set(t, f32(value + Math.max(Math.abs(value), 1) * rng.float(-0.5, 0.5)));
  }

  const rates = new Map<string, number>();
  const durations = new Map<string, number>();
  const labels = new Map<string, string>();
  const silent: string[] = [];
  for (const t of T) {
    if (rng.chance(0.3)) rates.set(t, f32(rng.float(0.5, 2)));
    if (rng.chance(mode === "unrolled" ? 0.35 : 0.1)) durations.set(t, rng.int(2, 4));
    if (rng.chance(0.5)) labels.set(t, rng.chance(0.2) ? `${t} -> gateway` : `do ${t}`);
    if (rng.chance(0.15)) silent.push(t);
  }

  const arcOutputValues: ArcOutputValue[] = [];
  for (const { from, to } of flow) {
    if (T.includes(from) && rng.chance(0.25)) {
      arcOutputValues.push({ transition: from, place: to, value: rng.pick([0, 2, -1, 0.5, 3]) });
    }
  }

  const initialMarking = new Map<string, number>();
  for (const p of P) if (rng.chance(0.4)) initialMarking.set(p, rng.int(1, 3));

  const arcWeights = new Map<string, number>();
  for (const { from, to } of flow) {
    const w = P.includes(from) ? rng.float(-2, 2) : rng.float(-1.5, 1.5);
    arcWeights.set(arcKey(from, to), f32(w));
  }
  const transitionThresholds = new Map(T.map((t) => [t, f32(rng.float(-1.5, 1.5))]));

  return {
    net: {
      places: P,
      transitions: T,
      arcs: flow,
      inhibitorArcs,
      initialMarking,
      labels,
      silentTransitions: silent.sort(compareIds),
      structuralGuards,
      rates,
      durations,
      arcOutputValues,
    },
    module: {
      sharpness: f32(rng.float(0.5, 4)),
      numSteps: mode === "acyclic" ? 0 : rng.int(1, 6),
      firing,
      routing,
    },
    parameters: { arcWeights, transitionThresholds, guardThresholds },
    scenarioName: "random",
    inputMarkingSpec: new Map(),
    inputValuesSpec: new Map(),
  };
}

/**
 * A random request row: a random subset of places clamped to [0, 1], random value-channel
 * entries (near a guard's threshold for guard places, else in [-2, 2]). Numbers are float32.
 *
 * @example
 * ```ts
 * import { randomModel, randomRow, Rng } from "./random_net.ts";
 * const rng = new Rng(5);
 * randomRow(rng, randomModel(rng)).marking;
 * ```
 */
export function randomRow(rng: Rng, model: PetriModel): RequestRow {
  const { net, parameters } = model;
  const sources = new Set(net.places.filter((p) => !net.arcs.some((a) => a.to === p)));
  const marking = new Map<string, number>();
  const values = new Map<string, number>();
  for (const p of net.places) {
    if (rng.chance(sources.has(p) ? 0.5 : 0.25)) {
      marking.set(p, f32(rng.chance(0.1) ? rng.pick([0, 1]) : rng.next()));
    }
    if (!rng.chance(0.4)) continue;
    const guards = [...net.structuralGuards].filter(([, g]) => g.place === p);
    if (guards.length > 0 && rng.chance(0.85)) {
      const [t, g] = rng.pick(guards);
      const theta = parameters.guardThresholds.get(t)!;
      values.set(p, f32(theta + Math.max(Math.abs(g.value), 1) * rng.float(-1, 1)));
    } else {
      values.set(p, f32(rng.chance(0.1) ? 0 : rng.float(-2, 2)));
    }
  }
  return { marking, values };
}

/**
 * A random cotangent over the transitions: weights in [-1, 1] on a random non-empty subset.
 *
 * @example
 * ```ts
 * import { randomModel, randomTarget, Rng } from "./random_net.ts";
 * const rng = new Rng(5);
 * randomTarget(rng, randomModel(rng)).size; // >= 1
 * ```
 */
export function randomTarget(rng: Rng, model: PetriModel): Map<string, number> {
  const target = new Map<string, number>();
  for (const t of model.net.transitions) if (rng.chance(0.6)) target.set(t, rng.float(-1, 1));
  if (target.size === 0) target.set(rng.pick(model.net.transitions), 1);
  return target;
}

/** Options of {@link randomCase}. */
export interface RandomCaseOptions extends RandomNetOptions, AmbiguityOptions {
  /** How many rows to draw (default 3). */
  readonly rows?: number;
  /**
   * Redraw rows that {@link numericalAmbiguity} rejects (up to 20 times; a row still ambiguous
   * after that is dropped).
   */
  readonly redrawAmbiguous?: boolean;
}

/** One random model with some rows and cotangents. */
export interface RandomCase {
  /** The seed it was drawn from. */
  readonly seed: number;
  /** The model. */
  readonly model: PetriModel;
  /** Request rows with a cotangent each. */
  readonly rows: (RequestRow & { readonly target: Map<string, number> })[];
  /** How many ambiguous rows were redrawn. */
  readonly redrawn: number;
}

/**
 * The random case of a seed: `seed % 8` picks mode, firing and routing (so any 8 consecutive
 * seeds cover every combination) unless `options` fixes them. Rows are drawn after the model
 * from the same stream, so a seed reproduces its whole case.
 *
 * @example
 * ```ts
 * import { randomCase } from "./random_net.ts";
 * randomCase(0).model.module; // acyclic, sigmoid, independent
 * ```
 */
export function randomCase(seed: number, options: RandomCaseOptions = {}): RandomCase {
  const rng = new Rng(seed);
  const combo = ((seed % 8) + 8) % 8;
  const model = randomModel(rng, {
    mode: combo & 1 ? "unrolled" : "acyclic",
    firing: combo & 2 ? "ste" : "sigmoid",
    routing: combo & 4 ? "softmax" : "independent",
    ...options,
  });
  const rows: RandomCase["rows"] = [];
  let redrawn = 0;
  for (let i = 0; i < (options.rows ?? 3); i++) {
    let row = randomRow(rng, model);
    for (let tries = 0; options.redrawAmbiguous && tries < 20; tries++) {
      if (!isNumericallyAmbiguous(model, row, options)) break;
      row = randomRow(rng, model);
      redrawn++;
    }
    if (options.redrawAmbiguous && isNumericallyAmbiguous(model, row, options)) continue;
    rows.push({ ...row, target: randomTarget(rng, model) });
  }
  return { seed, model, rows, redrawn };
}

/**
 * The model as a `petri-net-model/1` JSON document (docs/model_format.md), indented: readable in a
 * failure message and loadable by `compile`.
 *
 * @example
 * ```ts
 * import { describeNet, randomCase } from "./random_net.ts";
 * console.log(describeNet(randomCase(1).model));
 * ```
 */
export function describeNet(model: PetriModel): string {
  const { net, module, parameters } = model;
  const obj = <V>(m: ReadonlyMap<string, V>) => Object.fromEntries(m);
  const weights = net.arcs.map(({ from, to }) => ({
    from,
    to,
    weight: parameters.arcWeights.get(arcKey(from, to)),
  }));
  return JSON.stringify(
    {
      format: "petri-net-model/1",
      scenario_name: model.scenarioName ?? "random",
      net: {
        places: net.places,
        transitions: net.transitions,
        arcs: net.arcs,
        inhibitor_arcs: net.inhibitorArcs,
        initial_marking: obj(net.initialMarking),
        labels: obj(net.labels),
        silent_transitions: net.silentTransitions,
        structural_guards: obj(net.structuralGuards),
        rates: obj(net.rates),
        durations: obj(net.durations),
        arc_output_values: net.arcOutputValues,
      },
      module: {
        sharpness: module.sharpness,
        num_steps: module.numSteps,
        firing: module.firing,
        routing: module.routing,
      },
      parameters: {
        arc_weights: weights,
        transition_thresholds: obj(parameters.transitionThresholds),
        guard_thresholds: obj(parameters.guardThresholds),
      },
    },
    null,
    2,
  );
}

/**
 * A request row (and optional cotangent) as one line of JSON, for failure messages.
 *
 * @example
 * ```ts
 * import { describeRow } from "./random_net.ts";
 * describeRow({ marking: new Map([["p0", 0.5]]), values: new Map() });
 * ```
 */
export function describeRow(
  row: RequestRow & { readonly target?: ReadonlyMap<string, number> },
): string {
  return JSON.stringify({
    input_marking: Object.fromEntries(row.marking),
    input_values: Object.fromEntries(row.values),
    ...(row.target ? { target: Object.fromEntries(row.target) } : {}),
  });
}

/** Margins of {@link numericalAmbiguity}. */
export interface AmbiguityOptions {
  /** An STE firing is ambiguous when |sigmoid(pre) − 0.5| is below this (default 1e-4). */
  readonly steMargin?: number;
  /**
   * A guard place's value is ambiguous when its division has |a + 1e-6| below this and a
   * non-zero contribution (default 1e-3).
   */
  readonly denominator?: number;
  /**
   * A guard place's value is ambiguous when Σ |w·a(t)| over its preset exceeds |a + 1e-6| by
   * more than this factor (default 100): the sum cancels, so rounding is amplified.
   */
  readonly cancellation?: number;
  /**
   * A row is ambiguous when some activation exceeds this in magnitude (default 10): float32
   * rounding grows with the numbers, and inhibitor gates (1 − a) above 1 feed back on each
   * other in time-unrolled cycles.
   */
  readonly magnitude?: number;
}

/**
 * Why float32 evaluation of this row may legitimately differ from float64 beyond tolerance,
 * or `undefined` when it may not: an STE firing whose sigmoid is within `steMargin` of 0.5 (the
 * hard threshold may flip), a value-channel division at a guard place (the only places whose
 * value is read) with |a(p) + 1e-6| < `denominator` or < Σ |w·a(t)| / `cancellation`, where
 * some contribution w·a(t) is non-zero (cancellation there amplifies rounding; an exact
 * 0 / 1e-6 is harmless), or an output
 * activation larger than `magnitude` (or not finite).
 *
 * @example
 * ```ts
 * import { numericalAmbiguity, randomCase } from "./random_net.ts";
 * const { model, rows } = randomCase(9);
 * numericalAmbiguity(model, rows[0]!); // e.g. "STE firing of 't1' has sigmoid(pre) − 0.5 = 3e-5"
 * ```
 */
export function numericalAmbiguity(
  model: PetriModel,
  row: RequestRow,
  options: AmbiguityOptions = {},
): string | undefined {
  const steMargin = options.steMargin ?? 1e-4;
  const denominator = options.denominator ?? 1e-3;
  const cancellation = options.cancellation ?? 100;
  const magnitude = options.magnitude ?? 10;
  const guardPlaces = new Set([...model.net.structuralGuards.values()].map((g) => g.place));
  let reason: string | undefined;
  const out = evaluate(model, row, {
    ste(t, pre) {
      const gap = sigmoid64(pre) - 0.5;
      if (reason === undefined && Math.abs(gap) < steMargin) {
        reason = `STE firing of '${t}' has sigmoid(pre) − 0.5 = ${gap}`;
      }
    },
    valueDivision(p, den, terms) {
      if (reason !== undefined || !guardPlaces.has(p) || terms === 0) return;
      if (Math.abs(den) < denominator || terms > cancellation * Math.abs(den)) {
        reason = `value channel of guard place '${p}' divides by a + 1e-6 = ${den}` +
          ` (Σ |w·a(t)| = ${terms})`;
      }
    },
  });
  if (reason !== undefined) return reason;
  for (const [id, x] of [...out.transitions, ...out.places]) {
    if (!(Math.abs(x) <= magnitude)) return `activation of '${id}' is ${x}`;
  }
  return undefined;
}

/**
 * Whether {@link numericalAmbiguity} finds a reason: property tests redraw such rows.
 *
 * @example
 * ```ts
 * import { isNumericallyAmbiguous, randomCase } from "./random_net.ts";
 * const { model, rows } = randomCase(9);
 * rows.filter((row) => !isNumericallyAmbiguous(model, row));
 * ```
 */
export function isNumericallyAmbiguous(
  model: PetriModel,
  row: RequestRow,
  options?: AmbiguityOptions,
): boolean {
  return numericalAmbiguity(model, row, options) !== undefined;
}
