import { compileBundle, loadBundle } from "../core/bundle.ts";
import { layeredModel } from "../bench/layered_net.ts";
import * as ort from "onnxruntime-web";
for (const [p, layers] of [[500, 6], [10000, 6], [10000, 50], [2000, 400]] as const) {
  const m = layeredModel(p, { layers });
  let t = performance.now();
  const b = await compileBundle(m);
  const tc = performance.now() - t;
  t = performance.now();
  await using model = await loadBundle(ort, { onnx: b.onnx, sidecar: b.sidecar, onnxName: "x", sidecarName: "y" });
  console.log(p, layers, "T", m.net.transitions.length, "arcs", m.net.arcs.length, "nodes", b.forwardNodes, b.gradientNodes, "compile", tc.toFixed(0), "load", (performance.now() - t).toFixed(0), "ms rss", (Deno.memoryUsage().rss/1e6).toFixed(0), "bytes", b.onnx.length);
}
