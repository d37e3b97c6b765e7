/**
 * A baseline of `serving_path.ts`: the naive server (`naive_server.ts`) with the batching of
 * `cli.ts serve` and nothing else: POST /forward requests read in the same turn of the event loop
 * share one run of onnxruntime-web (WASM, one thread) on a worker (`naive_batching_worker.ts`),
 * reached the way `cli.ts serve` reaches its own, through a shared buffer and `Atomics`; the
 * answer carries the three headers `cli.ts serve`'s does (`content-type`, `x-request-id`,
 * `vary`). No validation beyond unknown ids (400), no admission, deadline, metrics, access log,
 * healing or drain: what it spends on its serving thread is the least a server built this way
 * spends, which is what `cli.ts serve`'s figure is set against. Not part of the package.
 *
 * ```sh
 * deno run -A bench/naive_batching_server.ts [BUNDLE.onnx]
 * ```
 *
 * Prints `naive batching (web) on URL` on stderr; stops on SIGTERM.
 *
 * @module
 */

import { decodeModel } from "../core/onnx/mod.ts";
import { MAX_ROWS, type Start } from "./naive_batching_worker.ts";

const path = Deno.args.find((a) => !a.startsWith("--")) ??
  new URL("../examples/credit_approval_coloured/credit_approval_coloured.onnx", import.meta.url)
    .pathname;
const bytes = await Deno.readFile(path);
const netText = decodeModel(bytes).metadataProps?.find((p) => p.key === "petri_serve.net")?.value;
const { places, transitions } = JSON.parse(netText ?? "{}") as Record<string, string[]>;
const P = places!.length, T = transitions!.length;
const placeIndex = new Map(places!.map((id, i) => [id, i]));

// Control words (request number, answer number, rows), then the inputs, then the outputs.
const IN = 4 * P + T, OUT = T + P;
const buffer = new SharedArrayBuffer(16 + 4 * MAX_ROWS * (IN + OUT));
const control = new Int32Array(buffer, 0, 4);
const inputs = new Float32Array(buffer, 16, MAX_ROWS * IN);
const outputs = new Float32Array(buffer, 16 + 4 * MAX_ROWS * IN, MAX_ROWS * OUT);

const worker = new Worker(new URL("./naive_batching_worker.ts", import.meta.url), {
  type: "module",
});
const started = Promise.withResolvers<void>();
worker.onmessage = () => started.resolve();
worker.postMessage({ bytes, buffer, P, T } satisfies Start);
await started.promise;

interface Pending {
  readonly row: Float32Array;
  readonly resolve: (answer: Float32Array) => void;
}
let queue: Pending[] = [];
let running = false;
let scheduled = false;
let runs = 0;

async function drain(): Promise<void> {
  scheduled = false;
  while (!running && queue.length > 0) {
    running = true;
    const batch = queue.slice(0, MAX_ROWS);
    queue = queue.slice(batch.length);
    batch.forEach((p, i) => inputs.set(p.row, i * IN));
    control[2] = batch.length;
    Atomics.store(control, 0, ++runs);
    Atomics.notify(control, 0, 1);
    while (Atomics.load(control, 1) !== runs) {
      const wait = Atomics.waitAsync(control, 1, runs - 1);
      if (wait.async) await wait.value;
    }
    batch.forEach((p, i) => p.resolve(outputs.slice(i * OUT, (i + 1) * OUT)));
    running = false;
  }
}

function run(row: Float32Array): Promise<Float32Array> {
  return new Promise((resolve) => {
    queue.push({ row, resolve });
    // The first request after an idle spell waits one turn, so those read with it join its run.
    if (!running && !scheduled) {
      scheduled = true;
      setImmediate(drain);
    }
  });
}

/** Fills a row's marking (or values) and its mask; returns an id that is not a place. */
function fill(map: Record<string, number> | undefined, row: Float32Array, at: number) {
  for (const [id, value] of Object.entries(map ?? {})) {
    const i = placeIndex.get(id);
    if (i === undefined) return id;
    row[at + i] = value;
    row[at + P + i] = 1;
  }
}

let id = 0;
const server = Deno.serve({
  hostname: "127.0.0.1",
  port: 0,
  onListen: ({ port }) => console.error(`naive batching (web) on http://127.0.0.1:${port}`),
}, async (request) => {
  const body = await request.json();
  const row = new Float32Array(IN);
  const unknown = fill(body.input_marking, row, 0) ?? fill(body.input_values, row, 2 * P);
  if (unknown !== undefined) {
    return Response.json({ error: `unknown place ${unknown}` }, { status: 400 });
  }
  const answer = await run(row);
  const fired = Object.fromEntries(transitions!.map((t, i) => [t, answer[i]]));
  const marked = Object.fromEntries(places!.map((p, i) => [p, answer[T + i]]));
  return new Response(
    JSON.stringify({ transition_activations: fired, place_activations: marked }),
    {
      headers: {
        "content-type": "application/json",
        "x-request-id": String(++id),
        vary: "accept-encoding",
      },
    },
  );
});
Deno.addSignalListener("SIGTERM", () => {
  worker.terminate();
  void server.shutdown();
});
await server.finished;
