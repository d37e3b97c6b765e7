/**
 * mulberry32: the one small seeded pseudo-random generator of the tests and benchmarks, so
 * generated nets, logs and fuzz inputs are reproducible from a seed.
 *
 * @example
 * ```ts
 * import { mulberry32 } from "./random.ts";
 * const next = mulberry32(1);
 * next(); // always the same first number in [0, 1) for seed 1
 * ```
 *
 * @module
 */

/** A generator of floats in [0, 1), deterministic for a given seed. */
export function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
