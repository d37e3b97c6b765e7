/**
 * What a model may ask of the reader, the compiler and onnxruntime, checked when a
 * `model.json`, a `.pt` or a bundle is read, before any work that grows with it. The limits
 * are far above what PETRA trains (its nets are process models of tens to a few hundred
 * activities, unrolled for a handful of steps: the conformance models use at most 6) and low
 * enough that a model within them compiles and loads in seconds.
 *
 * Every number a model holds also fits float32: PETRA's parameters are float32 tensors and the
 * compiled graph runs in float32, so a larger number cannot come from a trained model and
 * would silently become infinity.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { isFiniteFloat32, MODEL_LIMITS } from "./model_limits.ts";
 * assert.equal(MODEL_LIMITS.maxNumSteps, 1000);
 * assert.equal(isFiniteFloat32(3.4e38), true);
 * assert.equal(isFiniteFloat32(3.5e38), false);
 * ```
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
 * The limits. Places and transitions: 10,000 each, 20 times the 500-place benchmark net;
 * arcs: 100,000 (ten per transition). `num_steps` and durations: 1,000 (PETRA backpropagates
 * through every step, which no one trains for thousands of steps). Graph nodes: 10,000,
 * which holds about 300 unrolled steps of a small net or 190 layers of an acyclic one;
 * onnxruntime's session creation grows faster than linearly with the node count (seconds at
 * 10,000 nodes, over half a minute at 30,000).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { MODEL_LIMITS } from "./model_limits.ts";
 * assert.equal(MODEL_LIMITS.maxGraphNodes, 10_000);
 * ```
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

/**
 * The largest finite float32, as a double.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { FLOAT32_MAX } from "./model_limits.ts";
 * assert.equal(Math.fround(FLOAT32_MAX), FLOAT32_MAX);
 * ```
 */
export const FLOAT32_MAX = 3.4028234663852886e38;

/**
 * Whether `x` becomes a finite float32 (rounding to nearest, as the graph's inputs do).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { isFiniteFloat32 } from "./model_limits.ts";
 * assert.equal(isFiniteFloat32(-1e30), true);
 * assert.equal(isFiniteFloat32(1e39), false);
 * assert.equal(isFiniteFloat32(Number.NaN), false);
 * ```
 */
export function isFiniteFloat32(x: number): boolean {
  return Number.isFinite(Math.fround(x));
}

/**
 * How a message says a number does not fit float32.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { beyondFloat32 } from "./model_limits.ts";
 * assert.equal(beyondFloat32(1e39), "1e+39 is beyond the float32 range of ±3.4028234663852886e+38");
 * ```
 */
export function beyondFloat32(x: number): string {
  return `${x} is beyond the float32 range of ±${FLOAT32_MAX}`;
}

/**
 * A model larger than {@link MODEL_LIMITS} allows, or one whose compiled graph would need a
 * number float32 cannot hold; the message names the limit and the model's figure.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { ModelLimitError } from "./model_limits.ts";
 * const error = new ModelLimitError("the compiled graph needs more than 10000 ONNX nodes");
 * assert.equal(error.name, "ModelLimitError");
 * ```
 */
export class ModelLimitError extends Error {
  /** Builds the error from a message naming the limit. */
  constructor(message: string) {
    super(message);
    this.name = "ModelLimitError";
  }
}
