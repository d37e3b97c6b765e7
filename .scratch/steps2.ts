import { parseModelDescription } from "/work/wt/i27/core/net/parse.ts";
import { compileBundle, loadBundle } from "/work/wt/i27/core/bundle.ts";
import * as ort from "onnxruntime-web";
const doc = JSON.parse(await Deno.readTextFile("/work/wt/i27/tests/fixtures/conformance/paint_shop/model.json"));
for (const n of [160, 320]) {
  doc.module.num_steps = n;
  const m = parseModelDescription(doc);
  let t = performance.now();
  const b = await compileBundle(m);
  const tc = performance.now() - t;
  t = performance.now();
  await using model = await loadBundle(ort, { onnx: b.onnx, sidecar: b.sidecar, onnxName: "x", sidecarName: "y" });
  console.log(n, b.forwardNodes + b.gradientNodes, "compile", tc.toFixed(0), "load", (performance.now() - t).toFixed(0), "ms rss", (Deno.memoryUsage().rss/1e6).toFixed(0));
}
