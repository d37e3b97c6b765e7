/**
 * Picks log scoring's batch size (rows per model run) by measuring on the loaded model at
 * start-up: larger runs spread a run's fixed cost over more rows until the cost per row stops
 * falling, and past that knee only hold more traces in memory. The knee depends on the net and
 * the machine, hence no constant.
 *
 * @module
 */

import type { ModelSession } from "../runtime/mod.ts";

/** The sizes tried, smallest first; larger runs keep traces alive long enough to grow V8's heap. */
const SIZES = [64, 128, 256, 512] as const;
/** Past the knee: the cost per row this far above the cheapest so far (not noise). */
const RISE = 1.5;
/** A size whose cost per row is within this factor of the best is good enough. */
const TOLERANCE = 1.1;
/** Stop trying larger sizes once one run takes this long (a wide net). */
const RUN_BUDGET_MS = 25;
/** Runs per size; the fastest counts (the machine may be busy). */
const REPEATS = 3;

/** What {@link measureBatchSize} found. */
export interface BatchSizeMeasurement {
  /** The chosen rows per run. */
  readonly size: number;
  /** Microseconds per row at each size tried. */
  readonly perRow: ReadonlyMap<number, number>;
}

/**
 * Times runs of empty rows at growing batch sizes and returns the smallest size whose cost per
 * row is within 10% of the cheapest measured.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { measureBatchSize } from "./measure_batch_size.ts";
 * import { loadOrt } from "../../adapter/deno/ort.ts";
 * import { readBundle } from "../../adapter/deno/bundle_files.ts";
 * await using model = await readBundle(await loadOrt(), "examples/rest_serving");
 * const { perRow } = await measureBatchSize(model.session);
 * assert.ok(perRow.get(64)! > 0); // µs per row at 64 rows
 * ```
 */
export async function measureBatchSize(session: ModelSession): Promise<BatchSizeMeasurement> {
  const P = session.places.length;
  const T = session.transitions.length;
  const perRow = new Map<number, number>();
  for (const size of SIZES) {
    let best = Infinity;
    for (let i = 0; i < REPEATS; i++) {
      const zeros = () => new Float32Array(size * P);
      const inputs = {
        batch: size,
        marking: zeros(),
        markingMask: zeros(),
        values: zeros(),
        valuesMask: zeros(),
        target: new Float32Array(size * T),
      };
      const started = performance.now();
      await session.runPacked(inputs, { withGradient: false });
      best = Math.min(best, performance.now() - started);
    }
    const cost = (best * 1000) / size;
    // Past the knee the cost per row rises again (a wide net's tensors outgrow the caches).
    const rising = cost > RISE * Math.min(...perRow.values());
    perRow.set(size, cost);
    if (rising || best > RUN_BUDGET_MS) break;
  }
  const cheapest = Math.min(...perRow.values());
  const size = [...perRow].find(([, cost]) => cost <= cheapest * TOLERANCE)![0];
  return { size, perRow };
}
