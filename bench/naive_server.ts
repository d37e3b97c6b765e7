/**
 * A baseline of `http_load.ts`, like the echo (`http_echo.ts`): what a TypeScript user would
 * write instead of `cli.ts serve` to answer POST /forward: `Deno.serve`, the body parsed with
 * `request.json()`, the four input tensors filled by place index, one `session.run` per request
 * (no batching, no queue, no worker), no validation beyond unknown ids (400), and
 * `JSON.stringify` of the two id maps. The column order is the embedded net's sorted `places`
 * and `transitions` (ONNX metadata `petri_serve.net`). Not part of the package.
 *
 * ```sh
 * deno run -A bench/naive_server.ts [--ort node|web] [BUNDLE.onnx]
 * ```
 *
 * `--ort node` (the default) runs `onnxruntime-node` with one intra-op thread (needs
 * `--allow-ffi`; it is imported through `importOnnxruntimeNode`, as `--runtime native` does,
 * and adds itself to deno.lock: run it with `--lock` on a copy, see `native_lock.ts`);
 * `--ort web` runs onnxruntime-web's WASM with one thread, in-process. The
 * bundle defaults to the credit-approval example. Prints `naive (ORT) on URL` on stderr;
 * stops on SIGTERM.
 *
 * @module
 */

import { decodeModel } from "../core/onnx/mod.ts";
import { importOnnxruntimeNode } from "../adapter/deno/native_ort.ts";

const at = Deno.args.indexOf("--ort");
const flavour = at === -1 ? "node" : Deno.args[at + 1];
const path = Deno.args.find((a, i) => !a.startsWith("--") && Deno.args[i - 1] !== "--ort") ??
  new URL("../examples/credit_approval_coloured/credit_approval_coloured.onnx", import.meta.url)
    .pathname;
if (flavour !== "node" && flavour !== "web") throw new Error("--ort takes node or web");

type Ort = typeof import("onnxruntime-web");
const ort: Ort = flavour === "node"
  ? (await importOnnxruntimeNode()) as unknown as Ort
  : await import("onnxruntime-web");
if (flavour === "web") ort.env.wasm.numThreads = 1;
const bytes = await Deno.readFile(path);
const session = await ort.InferenceSession.create(
  bytes,
  flavour === "node" ? { intraOpNumThreads: 1, interOpNumThreads: 1 } : {},
);
const netText = decodeModel(bytes).metadataProps?.find((p) => p.key === "petri_serve.net")?.value;
const { places, transitions } = JSON.parse(netText ?? "{}") as Record<string, string[]>;
const P = places!.length, T = transitions!.length;
const placeIndex = new Map(places!.map((id, i) => [id, i]));

function fill(map: Record<string, number> | undefined, data: Float32Array, mask: Float32Array) {
  for (const [id, value] of Object.entries(map ?? {})) {
    const i = placeIndex.get(id);
    if (i === undefined) return id;
    data[i] = value;
    mask[i] = 1;
  }
}

async function forward(request: Request): Promise<Response> {
  const body = await request.json();
  const [marking, markingMask, values, valuesMask] = [0, 0, 0, 0].map(() => new Float32Array(P));
  const unknown = fill(body.input_marking, marking!, markingMask!) ??
    fill(body.input_values, values!, valuesMask!);
  if (unknown !== undefined) {
    return Response.json({ error: `unknown place ${unknown}` }, { status: 400 });
  }
  const tensor = (data: Float32Array, n: number) => new ort.Tensor("float32", data, [1, n]);
  const out = await session.run({
    marking: tensor(marking!, P),
    marking_mask: tensor(markingMask!, P),
    values: tensor(values!, P),
    values_mask: tensor(valuesMask!, P),
    target: tensor(new Float32Array(T), T),
    with_gradient: new ort.Tensor("bool", [false], []),
  });
  const fired = out.transitions!.data as Float32Array, marked = out.places!.data as Float32Array;
  return new Response(
    JSON.stringify({
      transition_activations: Object.fromEntries(transitions!.map((id, i) => [id, fired[i]])),
      place_activations: Object.fromEntries(places!.map((id, i) => [id, marked[i]])),
    }),
    { headers: { "content-type": "application/json" } },
  );
}

const server = Deno.serve(
  {
    hostname: "127.0.0.1",
    port: 0,
    onListen: ({ port }) => console.error(`naive (${flavour}) on http://127.0.0.1:${port}`),
  },
  (request) =>
    request.method === "POST" && new URL(request.url).pathname === "/forward"
      ? forward(request)
      : new Response("not found", { status: 404 }),
);
Deno.addSignalListener("SIGTERM", () => void server.shutdown());
await server.finished;
