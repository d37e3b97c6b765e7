const t0 = performance.now();
const lap = (what: string) =>
  console.log(what.padEnd(28), (performance.now() - t0).toFixed(0), "ms");
const ort = await import("onnxruntime-web");
ort.env.wasm.numThreads = 1;
lap("import ort");
const bytes = await Deno.readFile(
  "examples/credit_approval_coloured/credit_approval_coloured.onnx",
);
const s = await ort.InferenceSession.create(bytes);
lap("session create");
const feeds = {
  marking: new ort.Tensor("float32", new Float32Array(3), [1, 3]),
  marking_mask: new ort.Tensor("float32", new Float32Array(3), [1, 3]),
  values: new ort.Tensor("float32", new Float32Array(3), [1, 3]),
  values_mask: new ort.Tensor("float32", new Float32Array(3), [1, 3]),
  target: new ort.Tensor("float32", new Float32Array(2), [1, 2]),
  with_gradient: new ort.Tensor("bool", [true], []),
};
await s.run(feeds);
lap("first run");
const t1 = performance.now();
for (let i = 0; i < 2000; i++) await s.run(feeds);
console.log("per run µs", ((performance.now() - t1) / 2000 * 1000).toFixed(1));
await s.release();
