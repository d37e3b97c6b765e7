/**
 * Small statistics the benchmark scripts share.
 *
 * @example
 * ```ts
 * import { median } from "./stats.ts";
 * median([3, 1, 2]); // 2
 * ```
 *
 * @module
 */

/**
 * The median of `xs` (not empty): the middle value once sorted, the upper middle one for an
 * even count.
 *
 * @example
 * ```ts
 * import { median } from "./stats.ts";
 * median([4, 1, 3, 2]); // 3
 * ```
 */
export function median(xs: readonly number[]): number {
  const sorted = [...xs].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}
