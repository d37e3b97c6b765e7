/**
 * Start-up with a PETRA `.pt` bundle against the same model as a compiled `.onnx` bundle, in
 * the same run (`deno bench -A bench/pt_startup_bench.ts`):
 *
 * - group `serve`: a real `cli.ts serve BUNDLE --port 0` process, from spawn to the first
 *   answer of `POST /forward` (the `.onnx` bundle is the baseline);
 * - group `load`: in process, the bytes to a ready model: `loadBundle` of the `.onnx` pair
 *   (baseline) against `loadPtBundle` of the `.pt` pair (safe read, compile, load);
 * - group `read`: the `.pt` reading steps alone (zip, pickle, object graph, validation).
 *
 * The model is the largest conformance model, triage_softmax_ste (9 places, 7 transitions).
 *
 * @module
 */

import * as ort from "onnxruntime-web";
import { compileBundle, loadBundle } from "../core/bundle/mod.ts";
import { loadPtBundle, readPtModel } from "../core/pt/mod.ts";
import { writeBundle } from "../adapter/deno/bundle_files.ts";
import { startServerProcess } from "../tests/cli/serve/server_process.ts";

ort.env.wasm.numThreads = 1;

const FOLDER = new URL("../tests/fixtures/conformance/triage_softmax_ste/", import.meta.url);
const PT = new URL("model.pt", FOLDER).pathname;
const ptFiles = {
  pt: await Deno.readFile(PT),
  sidecar: await Deno.readTextFile(`${PT}.meta.json`),
  ptName: "model.pt",
  sidecarName: "model.pt.meta.json",
};
const { model, savedAt } = readPtModel(ptFiles);
const compiled = await compileBundle(model, savedAt ? { savedAt } : {});
const dir = await Deno.makeTempDir({ prefix: "petri-pt-bench-" });
globalThis.addEventListener("unload", () => Deno.removeSync(dir, { recursive: true }));
const ONNX = (await writeBundle(`${dir}/model.onnx`, compiled)).onnxPath;
const onnxFiles = {
  onnx: compiled.onnx,
  sidecar: compiled.sidecar,
  onnxName: "model.onnx",
  sidecarName: "model.onnx.meta.json",
};

/**
 * Spawn `serve`, wait for its first answer to a forward request, stop it. Only spawn to answer is
 * timed: the drain after SIGTERM waits up to 1 s for the client's idle keep-alive connection.
 */
async function firstAnswer(b: Deno.BenchContext, bundle: string): Promise<void> {
  b.start();
  await using server = await startServerProcess([
    "run",
    "-A",
    "cli.ts",
    "serve",
    bundle,
    "--port",
    "0",
  ]);
  const response = await fetch(`${server.origin}/forward`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ input_marking: { p_ticket: 1 } }),
  });
  if (response.status !== 200) throw new Error(`forward answered ${response.status}`);
  await response.body?.cancel();
  b.end();
  server.kill("SIGTERM");
  await server.finished();
}

const SERVE = { group: "serve", n: 10, warmup: 1 } as const;
Deno.bench({ ...SERVE, name: "serve model.onnx -> first answer", baseline: true }, async (b) => {
  await firstAnswer(b, ONNX);
});
Deno.bench({ ...SERVE, name: "serve model.pt -> first answer" }, async (b) => {
  await firstAnswer(b, PT);
});

Deno.bench({ group: "load", name: "loadBundle(model.onnx)", baseline: true }, async () => {
  await using _ = await loadBundle(ort, onnxFiles);
});
Deno.bench({ group: "load", name: "loadPtBundle(model.pt)" }, async () => {
  await using _ = await loadPtBundle(ort, ptFiles);
});

Deno.bench({ group: "read", name: "readPtModel(model.pt): zip, pickle, graph, validation" }, () => {
  readPtModel(ptFiles);
});
Deno.bench({ group: "read", name: "compileBundle(the model read)" }, async () => {
  await compileBundle(model, {});
});
