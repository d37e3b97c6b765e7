/**
 * Cost of one ONNX run of compiled nets of 10 to 5,000 places: forward and gradient runs at
 * batch 1 and 256, and the forward run of the same net compiled without gradient outputs (the
 * baseline showing that the `If`-guarded gradient branch costs a forward run nothing).
 *
 * Run with `deno task bench` (or `deno bench -A bench/compile_bench.ts`).
 *
 * @module
 */

import * as ort from "onnxruntime-web";
import { compileModel } from "../core/compile/mod.ts";
import { layeredModel } from "./layered_net.ts";

ort.env.wasm.numThreads = 1;

const SIZES = [10, 100, 1000, 5000];
const BATCHES = [1, 256];

for (const size of SIZES) {
  const model = layeredModel(size);
  const P = model.net.places.length;
  const T = model.net.transitions.length;
  const withGradient = compileModel(model);
  const forwardOnly = compileModel(model, { gradient: false });
  const session = await ort.InferenceSession.create(withGradient.bytes);
  const plain = await ort.InferenceSession.create(forwardOnly.bytes);
  console.error(
    `${size} places: ${T} transitions, ${model.net.arcs.length} arcs, ` +
      `${withGradient.forwardNodes} forward + ${withGradient.gradientNodes} gradient nodes, ` +
      `${(withGradient.bytes.length / 1024).toFixed(0)} KiB`,
  );
  for (const batch of BATCHES) {
    const feeds = (gradient: boolean) => {
      const half = (n: number) =>
        new ort.Tensor("float32", new Float32Array(batch * n).fill(0.5), [batch, n]);
      const ones = (n: number) =>
        new ort.Tensor("float32", new Float32Array(batch * n).fill(1), [batch, n]);
      return {
        marking: half(P),
        marking_mask: ones(P),
        values: half(P),
        values_mask: ones(P),
        target: ones(T),
        with_gradient: new ort.Tensor("bool", [gradient], []),
      };
    };
    const forwardFeeds = feeds(false);
    const gradientFeeds = feeds(true);
    // Warm both sessions up front, so the first measured benchmark is not the one paying for it.
    for (let i = 0; i < 20; i++) {
      await plain.run(forwardFeeds);
      await session.run(forwardFeeds);
      await session.run(gradientFeeds);
    }
    const group = `${size} places, batch ${batch}`;
    Deno.bench(
      { name: `forward, compiled without gradient (${group})`, group, baseline: true },
      async () => {
        await plain.run(forwardFeeds);
      },
    );
    Deno.bench({ name: `forward, with_gradient false (${group})`, group }, async () => {
      await session.run(forwardFeeds);
    });
    Deno.bench({ name: `gradient, with_gradient true (${group})`, group }, async () => {
      await session.run(gradientFeeds);
    });
  }
}
