/**
 * Measures the playground's time from page load to its first forward result (the performance
 * entry `petri:first-forward`, in ms since navigation start) in headless Chromium, five fresh
 * browser contexts (empty caches) per backend, and prints each run and the median.
 *
 * ```sh
 * deno run -A tests/web/first_forward.ts          # both backends
 * deno run -A tests/web/first_forward.ts wasm 9   # one backend, nine runs
 * ```
 *
 * @module
 */

// Callbacks passed to page.evaluate run in the page: type them with the DOM's names.
/// <reference lib="dom" />

import { type BackendName, launchChromium } from "./browser.ts";
import { waitReady } from "./page.ts";
import { startSite } from "./site.ts";

/**
 * The time to the first forward result of `runs` fresh page loads, in ms.
 *
 * @example
 * ```ts
 * import { measureFirstForward } from "./first_forward.ts";
 * const times = await measureFirstForward("wasm", 5);
 * ```
 */
export async function measureFirstForward(backend: BackendName, runs: number): Promise<number[]> {
  await using site = await startSite();
  await using browser = await launchChromium(backend);
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const context = await browser.newContext();
    try {
      const page = await context.newPage();
      await page.goto(site.pageUrl(backend));
      await waitReady(page);
      const backendUsed = await page.evaluate(() => document.body.dataset.backend);
      if (backendUsed !== backend) {
        throw new Error(`The page ran on ${backendUsed}, not ${backend}`);
      }
      times.push(
        await page.evaluate(() =>
          performance.getEntriesByName("petri:first-forward")[0]!.startTime
        ),
      );
    } finally {
      await context.close();
    }
  }
  return times;
}

/**
 * The median of a list of numbers.
 *
 * @example
 * ```ts
 * import { median } from "./first_forward.ts";
 * median([3, 1, 2]); // 2
 * ```
 */
export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

if (import.meta.main) {
  const backends: BackendName[] = Deno.args[0] === "wasm" || Deno.args[0] === "webgpu"
    ? [Deno.args[0]]
    : ["wasm", "webgpu"];
  const runs = Number(Deno.args[1] ?? 5);
  for (const backend of backends) {
    const times = await measureFirstForward(backend, runs);
    console.log(
      `${backend}: median ${median(times).toFixed(0)} ms to the first forward result ` +
        `(runs: ${times.map((t) => t.toFixed(0)).join(", ")} ms)`,
    );
  }
}
