/**
 * Zeroed `Float32Array`s for the small arrays every request and run makes, carved from shared
 * 64 KiB slabs: allocating one `ArrayBuffer` each cost about 1.5 µs (it showed in the serving
 * thread's profile), a view of a fresh slab about 0.1 µs. A part is never handed out twice, so it
 * is zero; a slab is freed with its last view.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { freshFloats } from "./fresh_floats.ts";
 * const a = freshFloats(3);
 * const b = freshFloats(3);
 * a[0] = 1;
 * assert.deepEqual([...a, ...b], [1, 0, 0, 0, 0, 0]);
 * ```
 *
 * @module
 */

/** Floats in one slab (64 KiB). */
const SLAB_FLOATS = 16384;
/** Larger requests get an array of their own: a slab is for the many small ones. */
const MAX_PART_FLOATS = SLAB_FLOATS / 16;

let slab = new Float32Array(0);
let used = 0;

/**
 * `length` zeroed floats, as a view of a shared buffer when small: hand its `buffer` to no one
 * who would read or transfer all of it.
 */
export function freshFloats(length: number): Float32Array {
  if (length > MAX_PART_FLOATS) return new Float32Array(length);
  if (used + length > slab.length) {
    slab = new Float32Array(SLAB_FLOATS);
    used = 0;
  }
  const part = slab.subarray(used, used + length);
  used += length;
  return part;
}
