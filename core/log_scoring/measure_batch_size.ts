/**
 * Picks log scoring's rows per model run (the batch size) by measuring, not by a constant:
 * larger runs spread the fixed cost of a run (packing, the hand-over to the worker, ORT's own set-up) over more rows,
 * until the cost per row stops falling; beyond that knee a larger batch only holds more
 * traces in memory. The knee depends on the net (a wide net's row costs more, so its fixed
 * cost is spread sooner) and on the machine, so it is measured at start-up on the loaded
 * model, in a few short runs of empty rows, packed as log scoring packs them.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { measureBatchSize } from "./measure_batch_size.ts";
 * import { loadOrt } from "../../adapter/deno/ort.ts";
 * import { readBundle } from "../../adapter/deno/bundle_files.ts";
 * await using model = await readBundle(await loadOrt(), "examples/rest_serving");
 * const { size } = await measureBatchSize(model.session);
 * assert.ok([64, 128, 256, 512].includes(size));
 * ```
 *
 * @module
 */

import type { ModelSession } from "../runtime/mod.ts";

/**
 * The sizes tried, smallest first. Larger runs cost ORT a little less per row still, but the
 * traces they keep alive across garbage collections make V8 grow its heap: a 1M-trace log
 * peaked at 1.57× the RSS of a 10k one at 4,096 rows, 1.3–1.4× at 1,024, 1.2× at 256.
 */
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
 * Times runs of empty rows at growing batch sizes (64 to 512; stopping once the cost per row
 * rises by half or a run takes 25 ms) and returns the smallest size whose cost per row is within 10% of
 * the cheapest measured.
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
