/**
 * What reading one `.pt` file may cost. A PETRA bundle of a net with a few thousand nodes
 * stays far below every limit; a file past one is refused with an error naming the limit.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { PT_LIMITS } from "./pt_limits.ts";
 * assert.equal(PT_LIMITS.maxEntries, 100_000);
 * ```
 *
 * @module
 */

/** Bounds on what a `.pt` file may make the reader do. */
export interface PtLimits {
  /** The `.pt` file's size in bytes. */
  readonly maxFileBytes: number;
  /** Entries in the zip's central directory. */
  readonly maxEntries: number;
  /** Uncompressed size of any one entry read. */
  readonly maxEntryBytes: number;
  /** Uncompressed size of all entries read together. */
  readonly maxTotalBytes: number;
  /** Length of `data.pkl`. */
  readonly maxPickleBytes: number;
  /** Distinct memo slots the pickle may fill. */
  readonly maxMemo: number;
  /** Values on the pickle machine's stack (all MARK levels together). */
  readonly maxStack: number;
  /** Nesting of MARKs and of containers inside containers. */
  readonly maxDepth: number;
}

/**
 * The default limits.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { PT_LIMITS } from "./pt_limits.ts";
 * assert.equal(PT_LIMITS.maxDepth, 64);
 * ```
 */
export const PT_LIMITS: PtLimits = {
  maxFileBytes: 256 * 1024 * 1024,
  maxEntries: 100_000,
  maxEntryBytes: 64 * 1024 * 1024,
  maxTotalBytes: 256 * 1024 * 1024,
  maxPickleBytes: 64 * 1024 * 1024,
  maxMemo: 1_000_000,
  maxStack: 1_000_000,
  maxDepth: 64,
};
