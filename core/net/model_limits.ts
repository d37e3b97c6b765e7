/**
 * What a model may ask of the reader, the compiler and onnxruntime, checked before any work
 * that grows with it: far above what PETRA trains, low enough that a model within them
 * compiles and loads in seconds. Every number must also fit float32, as the graph runs in it.
 *
 * @module
 */

/** Bounds on the size of a model. */
export interface ModelLimits {
  /** Places of the net. */
  readonly maxPlaces: number;
  /** Transitions of the net. */
  readonly maxTransitions: number;
  /** Entries of each arc list: flow arcs, inhibitor arcs, arc output values. */
  readonly maxArcs: number;
  /** Characters of a place or transition id. */
  readonly maxIdLength: number;
  /** `module.num_steps`: each step is a copy of the net in the graph. */
  readonly maxNumSteps: number;
  /** A transition's duration in steps (one beyond `num_steps` could never complete). */
  readonly maxDuration: number;
  /** ONNX nodes of the compiled graph, forward and gradient together. */
  readonly maxGraphNodes: number;
}

/**
 * The limits; graph nodes are bounded because onnxruntime's session creation grows faster than
 * linearly with them.
 */
export const MODEL_LIMITS: ModelLimits = {
  maxPlaces: 10_000,
  maxTransitions: 10_000,
  maxArcs: 100_000,
  maxIdLength: 1_000,
  maxNumSteps: 1_000,
  maxDuration: 1_000,
  maxGraphNodes: 10_000,
};

/** The largest finite float32, as a double. */
export const FLOAT32_MAX = 3.4028234663852886e38;

/**
 * Whether `x` becomes a finite float32 (rounding to nearest, as the graph's inputs do).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { isFiniteFloat32 } from "./model_limits.ts";
 * assert.equal(isFiniteFloat32(3.4e38), true);
 * assert.equal(isFiniteFloat32(3.5e38), false);
 * assert.equal(isFiniteFloat32(Number.NaN), false);
 * ```
 */
export function isFiniteFloat32(x: number): boolean {
  return Number.isFinite(Math.fround(x));
}

/** How a message says a number does not fit float32. */
export function beyondFloat32(x: number): string {
  return `${x} is beyond the float32 range of ±${FLOAT32_MAX}`;
}

/** A model larger than {@link MODEL_LIMITS} allows, or needing a number float32 cannot hold. */
export class ModelLimitError extends Error {
  /** Builds the error from a message naming the limit. */
  constructor(message: string) {
    super(message);
    this.name = "ModelLimitError";
  }
}
