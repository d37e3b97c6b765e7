/**
 * What reading one `.pt` file may cost: far above any PETRA bundle, so a file past a limit is
 * a hostile or broken one, refused with an error naming the limit.
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

/** The default limits. */
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
