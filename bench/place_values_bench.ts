/**
 * What the `place_values` output costs: layered nets of 100 to 5,000 places at batch 1 and
 * 256, the graph compiled without it (byte for byte what compilers wrote before it, the
 * baseline) against the graph with it. The output sits in the `with_gradient` branch, so a
 * forward run should cost the same; a gradient run pays for it.
 *
 * Run with `deno bench -A bench/place_values_bench.ts`.
 *
 * @module
 */

import * as ort from "onnxruntime-web";
import { compileModel } from "../core/compile/mod.ts";
import { layeredModel } from "./layered_net.ts";

ort.env.wasm.numThreads = 1;

const SIZES = [100, 1000, 5000];
const BATCHES = [1, 256];

for (const size of SIZES) {
  const model = layeredModel(size);
  const P = model.net.places.length;
  const T = model.net.transitions.length;
  const withValues = await ort.InferenceSession.create(compileModel(model).bytes);
  const without = await ort.InferenceSession.create(
    compileModel(model, { placeValues: false }).bytes,
  );
  for (const batch of BATCHES) {
    const half = (n: number) =>
      new ort.Tensor("float32", new Float32Array(batch * n).fill(0.5), [batch, n]);
    const mask = (n: number) =>
      new ort.Tensor("float32", new Float32Array(batch * n).map((_, i) => i % 2), [batch, n]);
    const feeds = (gradient: boolean) => ({
      marking: half(P),
      marking_mask: mask(P),
      values: half(P),
      values_mask: mask(P),
      target: half(T),
      with_gradient: new ort.Tensor("bool", [gradient], []),
    });
    for (const gradient of [false, true]) {
      const run = feeds(gradient);
      for (let i = 0; i < 10; i++) {
        await without.run(run);
        await withValues.run(run);
      }
      const kind = gradient ? "gradient" : "forward";
      const group = `${kind}, ${size} places, batch ${batch}`;
      Deno.bench(
        { name: `${kind}, compiled without place_values (${group})`, group, baseline: true },
        async () => {
          await without.run(run);
        },
      );
      Deno.bench({ name: `${kind}, with place_values (${group})`, group }, async () => {
        await withValues.run(run);
      });
    }
  }
}
