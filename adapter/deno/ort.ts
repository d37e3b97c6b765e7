/**
 * Loads `onnxruntime-web` lazily (so `--help` and `compile` do not pay for it), single-threaded
 * (Deno runs its WASM backend without worker threads), in this thread or a worker per session.
 *
 * @module
 */

import type { OrtModule } from "../../core/runtime/mod.ts";
import { workerOrt } from "../../core/runtime/worker/mod.ts";

// Taken before any in-process ORT starts: its Emscripten glue replaces `globalThis.Worker`.
const WebWorker: typeof Worker = globalThis.Worker;

/**
 * Imports `onnxruntime-web` and sets `env.wasm.numThreads = 1`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { loadOrt } from "./ort.ts";
 * import { readBundle } from "./bundle_files.ts";
 * await using model = await readBundle(await loadOrt(), "examples/rest_serving");
 * assert.equal(model.net.places.length, 3);
 * ```
 */
export async function loadOrt(): Promise<OrtModule> {
  const ort = await import("onnxruntime-web");
  ort.env.wasm.numThreads = 1;
  return ort;
}

/**
 * An ORT module whose sessions each run in their own worker (`ort_worker.ts`), so runs do not
 * block the serving thread; releasing a session terminates its worker.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { loadWorkerOrt } from "./ort.ts";
 * import { readBundle } from "./bundle_files.ts";
 * await using model = await readBundle(await loadWorkerOrt(), "examples/rest_serving");
 * const [row] = await model.run([{ marking: new Map([["p_application", 1]]) }], {
 *   withGradient: false,
 * });
 * assert.ok(row!.transitions[0]! > 0.99); // computed in the session's worker
 * ```
 */
export function loadWorkerOrt(): Promise<OrtModule> {
  const entry = new URL("./ort_worker.ts", import.meta.url);
  return Promise.resolve(workerOrt(() => new WebWorker(entry, { type: "module" })));
}
