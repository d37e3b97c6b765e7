/**
 * Reverse-mode gradients of the oracle: the forward pass of `evaluate.ts` runs over a tape of
 * float64 operations ({@link Tape}), then one backward sweep gives the vector-Jacobian product
 * Σ_t target[t]·∂transitions[t]/∂input for every supplied marking and value entry. STE firing
 * differentiates as the sigmoid (the straight-through surrogate), as PETRA does.
 *
 * @example
 * ```ts
 * import { gradient } from "./gradient.ts";
 * declare const model: import("../../core/net/types.ts").PetriModel;
 * const row = { marking: new Map([["p_in", 0.3]]), values: new Map() };
 * gradient(model, row, new Map([["t_a", 1]])).gradMarking.get("p_in"); // 2.0 on the XOR fixture
 * ```
 *
 * @module
 */

import type { PetriModel } from "../../core/net/types.ts";
import { type Arithmetic, evaluateWith, type RequestRow, sigmoid64 } from "./evaluate.ts";

/** A number recorded on a {@link Tape}: its index there and its float64 value. */
export interface Var {
  /** Index of the operation that produced it. */
  readonly id: number;
  /** Its float64 value. */
  readonly value: number;
}

/**
 * A tape of float64 operations with at most two operands each; every entry stores the local
 * partial derivatives, so {@link Tape.backward} is one reverse sweep.
 *
 * @example
 * ```ts
 * import { Tape } from "./gradient.ts";
 * const tape = new Tape();
 * const x = tape.variable(3);
 * const y = tape.mul(x, x);
 * tape.backward(new Map([[y.id, 1]]))[x.id]; // 6
 * ```
 */
export class Tape implements Arithmetic<Var> {
  #a: number[] = [];
  #da: number[] = [];
  #b: number[] = [];
  #db: number[] = [];

  #push(value: number, a = -1, da = 0, b = -1, db = 0): Var {
    const id = this.#a.length;
    this.#a.push(a);
    this.#da.push(da);
    this.#b.push(b);
    this.#db.push(db);
    return { id, value };
  }

  /** Number of recorded operations. */
  get length(): number {
    return this.#a.length;
  }

  /** An input whose adjoint is wanted. */
  variable(x: number): Var {
    return this.#push(x);
  }
  /** A constant. */
  constant(x: number): Var {
    return this.#push(x);
  }
  /** `a + b`. */
  add(a: Var, b: Var): Var {
    return this.#push(a.value + b.value, a.id, 1, b.id, 1);
  }
  /** `a - b`. */
  sub(a: Var, b: Var): Var {
    return this.#push(a.value - b.value, a.id, 1, b.id, -1);
  }
  /** `a * b`. */
  mul(a: Var, b: Var): Var {
    return this.#push(a.value * b.value, a.id, b.value, b.id, a.value);
  }
  /** `a / b`. */
  div(a: Var, b: Var): Var {
    const q = a.value / b.value;
    return this.#push(q, a.id, 1 / b.value, b.id, -q / b.value);
  }
  /** `exp(a)`. */
  exp(a: Var): Var {
    const e = Math.exp(a.value);
    return this.#push(e, a.id, e);
  }
  /** The logistic function. */
  sigmoid(a: Var): Var {
    const s = sigmoid64(a.value);
    return this.#push(s, a.id, s * (1 - s));
  }
  /** STE: hard 0/1 forward, sigmoid derivative backward. */
  ste(a: Var): Var {
    const s = sigmoid64(a.value);
    return this.#push(s > 0.5 ? 1 : 0, a.id, s * (1 - s));
  }
  /** The value of `a`. */
  valueOf(a: Var): number {
    return a.value;
  }

  /**
   * Reverse sweep: seeds the adjoints of the given tape entries (id -> seed) and returns the
   * adjoint of every entry.
   */
  backward(seeds: ReadonlyMap<number, number>): Float64Array {
    const adjoint = new Float64Array(this.#a.length);
    for (const [id, seed] of seeds) adjoint[id]! += seed;
    for (let i = this.#a.length - 1; i >= 0; i--) {
      const g = adjoint[i]!;
      if (g === 0) continue;
      const a = this.#a[i]!;
      if (a >= 0) adjoint[a]! += g * this.#da[i]!;
      const b = this.#b[i]!;
      if (b >= 0) adjoint[b]! += g * this.#db[i]!;
    }
    return adjoint;
  }
}

/** The forward results and the vector-Jacobian product for one row. */
export interface GradientResult {
  /** Every transition's activation (as `evaluate` gives it). */
  readonly transitions: Map<string, number>;
  /** Every place's activation. */
  readonly places: Map<string, number>;
  /** Every place -> Σ_t target[t]·∂transitions[t]/∂marking[p]; 0 for unsupplied places. */
  readonly gradMarking: Map<string, number>;
  /** Every place -> Σ_t target[t]·∂transitions[t]/∂values[p]; 0 for unsupplied entries. */
  readonly gradValues: Map<string, number>;
}

/**
 * Reverse-mode gradient of Σ_t target[t]·transitions[t] with respect to the supplied marking
 * and value entries of `row` (the cotangent `target` maps transition ids to weights; absent
 * transitions weigh 0).
 *
 * @example
 * ```ts
 * import { gradient } from "./gradient.ts";
 * declare const model: import("../../core/net/types.ts").PetriModel;
 * const row = { marking: new Map([["p_in", 0.3]]), values: new Map() };
 * gradient(model, row, new Map([["t_a", 1]])).gradValues;
 * ```
 */
export function gradient(
  model: PetriModel,
  row: RequestRow,
  target: ReadonlyMap<string, number>,
): GradientResult {
  const transitionSet = new Set(model.net.transitions);
  for (const t of target.keys()) {
    if (!transitionSet.has(t)) throw new Error(`target has an id that is not a transition: '${t}'`);
  }
  const tape = new Tape();
  const markingVars = new Map([...row.marking].map(([p, x]) => [p, tape.variable(x)]));
  const valueVars = new Map([...row.values].map(([p, x]) => [p, tape.variable(x)]));
  const out = evaluateWith(model, markingVars, valueVars, tape);
  const seeds = new Map<number, number>();
  for (const [t, w] of target) {
    const id = out.transitions.get(t)!.id;
    seeds.set(id, (seeds.get(id) ?? 0) + w);
  }
  const adjoint = tape.backward(seeds);
  const read = (vars: Map<string, Var>, p: string): number => {
    const v = vars.get(p);
    return v === undefined ? 0 : adjoint[v.id]!;
  };
  return {
    transitions: new Map([...out.transitions].map(([t, v]) => [t, v.value])),
    places: new Map([...out.places].map(([p, v]) => [p, v.value])),
    gradMarking: new Map(model.net.places.map((p) => [p, read(markingVars, p)])),
    gradValues: new Map(model.net.places.map((p) => [p, read(valueVars, p)])),
  };
}

/** A dual number: a value and its derivative along one input direction. */
export interface Dual {
  /** The value. */
  readonly v: number;
  /** The derivative. */
  readonly d: number;
}

/** Forward-mode arithmetic over {@link Dual} numbers (STE differentiates as the sigmoid). */
export const dual: Arithmetic<Dual> = {
  constant: (x) => ({ v: x, d: 0 }),
  add: (a, b) => ({ v: a.v + b.v, d: a.d + b.d }),
  sub: (a, b) => ({ v: a.v - b.v, d: a.d - b.d }),
  mul: (a, b) => ({ v: a.v * b.v, d: a.d * b.v + a.v * b.d }),
  div: (a, b) => ({ v: a.v / b.v, d: (a.d * b.v - a.v * b.d) / (b.v * b.v) }),
  exp: (a) => {
    const e = Math.exp(a.v);
    return { v: e, d: e * a.d };
  },
  sigmoid: (a) => {
    const s = sigmoid64(a.v);
    return { v: s, d: s * (1 - s) * a.d };
  },
  ste: (a) => {
    const s = sigmoid64(a.v);
    return { v: s > 0.5 ? 1 : 0, d: s * (1 - s) * a.d };
  },
  valueOf: (a) => a.v,
};

/**
 * Forward-mode derivative of Σ_t target[t]·transitions[t] with respect to one supplied input
 * (`channel` entry of `place`): an independent check of {@link gradient}, which must agree with
 * it to rounding.
 *
 * @example
 * ```ts
 * import { forwardModeDerivative } from "./gradient.ts";
 * declare const model: import("../../core/net/types.ts").PetriModel;
 * const row = { marking: new Map([["p_in", 0.3]]), values: new Map() };
 * forwardModeDerivative(model, row, new Map([["t_a", 1]]), "marking", "p_in"); // 2.0 on XOR
 * ```
 */
export function forwardModeDerivative(
  model: PetriModel,
  row: RequestRow,
  target: ReadonlyMap<string, number>,
  channel: "marking" | "values",
  place: string,
): number {
  if (!row[channel].has(place)) return 0;
  const seed = (ch: "marking" | "values") =>
    new Map([...row[ch]].map(([p, x]) => [p, { v: x, d: ch === channel && p === place ? 1 : 0 }]));
  const out = evaluateWith(model, seed("marking"), seed("values"), dual);
  let total = 0;
  for (const [t, w] of target) total += w * out.transitions.get(t)!.d;
  return total;
}
