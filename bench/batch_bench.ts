/**
 * What batching buys `cli.ts batch`: scoring 256 traces of the credit-approval example with
 * `scoreTraces` in one batched ORT run, against one run per trace (`--batch-size 1`). The
 * end-to-end throughput and memory on large logs are measured by `batch_rss.ts`.
 *
 * Run with `deno task bench` (or `deno bench -A bench/batch_bench.ts`).
 *
 * @module
 */

import * as ort from "onnxruntime-web";
import { type AnomalyRequest, scoreTraces } from "../core/ops/mod.ts";
import { EXAMPLE_BUNDLE_URL, readBundle } from "../adapter/deno/bundle_files.ts";

ort.env.wasm.numThreads = 1;

const model = await readBundle(ort, EXAMPLE_BUNDLE_URL);
const EVENTS = ["approve loan", "decline loan"];
const traces: AnomalyRequest[] = Array.from({ length: 256 }, (_, i) => ({
  input_marking: new Map([["p_submitted", 1]]),
  input_values: new Map([["p_submitted", 100 * (1 + (i % 150))]]),
  events: [{ name: EVENTS[i % 2]! }],
}));

Deno.bench("scoreTraces: 256 traces in one batched run", { group: "256 traces" }, async () => {
  await scoreTraces(model, traces);
});

Deno.bench(
  "scoreTraces: 256 traces, one run each",
  { group: "256 traces", baseline: true },
  async () => {
    for (const trace of traces) await scoreTraces(model, [trace]);
  },
);
