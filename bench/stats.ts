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
  return quantile([...xs].sort((a, b) => a - b), 0.5);
}

/**
 * The `q` quantile (0 to 1) of `sorted` (ascending, not empty): the value at `⌊q × length⌋`,
 * the last one for `q` = 1.
 *
 * @example
 * ```ts
 * import { quantile } from "./stats.ts";
 * quantile([1, 2, 3, 4], 0.99); // 4
 * ```
 */
export function quantile(sorted: readonly number[], q: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
}
