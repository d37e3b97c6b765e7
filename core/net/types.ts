/**
 * The Petri-net model types: a validated net, its module settings and trained parameters.
 * Id-keyed tables are `Map`s, so ids such as `__proto__` are ordinary keys; id lists are
 * sorted by {@link compareIds}, the order of every tensor column and response map.
 *
 * @module
 */

/** How a transition turns its pre-activation into a firing activation. */
export type Firing = "sigmoid" | "ste";

/** Whether transitions sharing a preset compete through a softmax. */
export type Routing = "independent" | "softmax";

/** Comparison of a structural guard; `>` equals `>=` and `<` equals `<=` in the math. */
export type GuardOp = ">" | ">=" | "<" | "<=";

/** A flow arc: place -> transition or transition -> place. */
export interface Arc {
  /** Source id: a place, or a transition for an output arc. */
  readonly from: string;
  /** Target id: a transition, or a place for an output arc. */
  readonly to: string;
}

/** An inhibitor arc from a place to a transition (not part of the flow relation). */
export interface InhibitorArc {
  /** The inhibiting place. */
  readonly place: string;
  /** The inhibited transition. */
  readonly transition: string;
}

/** A learnable soft guard on one input place's value channel. */
export interface StructuralGuard {
  /** The input place whose value channel the guard reads. */
  readonly place: string;
  /** Which side of the threshold lets the transition fire. */
  readonly op: GuardOp;
  /** The nominal threshold; the trained one is in {@link Parameters.guardThresholds}. */
  readonly value: number;
}

/** A constant token value produced on the arc `transition -> place`. */
export interface ArcOutputValue {
  /** The producing transition. */
  readonly transition: string;
  /** The place that receives the value. */
  readonly place: string;
  /** The token value produced. */
  readonly value: number;
}

/** The net structure. Lists are sorted; maps hold only entries that differ from the default. */
export interface PetriNet {
  /** Place ids, sorted. */
  readonly places: readonly string[];
  /** Transition ids, sorted. */
  readonly transitions: readonly string[];
  /** Flow arcs, sorted by `(from, to)`. */
  readonly arcs: readonly Arc[];
  /** Inhibitor arcs, sorted by `(place, transition)`. */
  readonly inhibitorArcs: readonly InhibitorArc[];
  /** Token counts of the initial marking (only places with tokens). */
  readonly initialMarking: ReadonlyMap<string, number>;
  /** Explicit transition labels; a transition without one is labelled by its id. */
  readonly labels: ReadonlyMap<string, string>;
  /** Silent (tau) transitions, sorted. */
  readonly silentTransitions: readonly string[];
  /** Structural guards by transition id. */
  readonly structuralGuards: ReadonlyMap<string, StructuralGuard>;
  /** Rates by transition id (default 1.0). */
  readonly rates: ReadonlyMap<string, number>;
  /** Durations by transition id (default 1). */
  readonly durations: ReadonlyMap<string, number>;
  /** Constant output values on transition -> place arcs, sorted by `(transition, place)`. */
  readonly arcOutputValues: readonly ArcOutputValue[];
}

/** Hyper-parameters that travel with a trained module. */
export interface ModuleSettings {
  /** Steepness of the firing and guard sigmoids (times each transition's rate for firing). */
  readonly sharpness: number;
  /** 0 = acyclic single pass; > 0 = time-unrolled for that many steps. */
  readonly numSteps: number;
  /** Sigmoid or straight-through firing. */
  readonly firing: Firing;
  /** Whether transitions sharing a preset compete through a softmax. */
  readonly routing: Routing;
}

/** Trained parameters. */
export interface Parameters {
  /** One weight per flow arc, keyed by {@link arcKey}. */
  readonly arcWeights: ReadonlyMap<string, number>;
  /** One threshold per transition. */
  readonly transitionThresholds: ReadonlyMap<string, number>;
  /** One threshold per structurally guarded transition. */
  readonly guardThresholds: ReadonlyMap<string, number>;
}

/** One entry of an input spec: a constant, or a trace attribute parsed as a number. */
export type InputSpecEntry = { readonly constant: number } | { readonly attribute: string };

/** Place id -> how to derive that place's input from a trace. */
export type InputSpec = ReadonlyMap<string, InputSpecEntry>;

/** A whole model description: the net, its module settings, parameters and sidecar material. */
export interface PetriModel {
  /** The net structure. */
  readonly net: PetriNet;
  /** The module's hyper-parameters. */
  readonly module: ModuleSettings;
  /** The trained parameters. */
  readonly parameters: Parameters;
  /** The scenario's name (`scenario_name`), when the description has one. */
  readonly scenarioName?: string;
  /** The scenario's description (`scenario_description`), when the description has one. */
  readonly scenarioDescription?: string;
  /** The PETRA version that wrote the description (`petra_version`), when recorded. */
  readonly petraVersion?: string;
  /** How each place's marking is derived from a trace (`input_marking_spec`). */
  readonly inputMarkingSpec: InputSpec;
  /** How each place's value-channel input is derived from a trace (`input_values_spec`). */
  readonly inputValuesSpec: InputSpec;
}

/** The key of an arc in {@link Parameters.arcWeights}: both ids JSON-encoded, so no pair collides. */
export function arcKey(from: string, to: string): string {
  return JSON.stringify([from, to]);
}

/**
 * Compares two ids by Unicode code points, as Python's `sorted` does; it differs from `<`
 * only for characters outside the BMP.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { compareIds } from "./types.ts";
 * assert.deepEqual(["\u{1F600}", "\uFFFF"].sort(compareIds), ["\uFFFF", "\u{1F600}"]);
 * assert.deepEqual(["\u{1F600}", "\uFFFF"].sort(), ["\u{1F600}", "\uFFFF"]);
 * ```
 */
export function compareIds(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a.codePointAt(i)!;
    const y = b.codePointAt(i)!;
    if (x !== y) return x - y;
    if (x > 0xffff) i++;
  }
  return a.length - b.length;
}
