/**
 * Loads `onnxruntime-web` for the CLI, lazily (so `--help` and `compile` do not pay for it),
 * single-threaded (Deno runs its WASM backend without worker threads).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { loadOrt } from "./ort.ts";
 * const ort = await loadOrt();
 * assert.equal(typeof ort.InferenceSession.create, "function");
 * ```
 *
 * @module
 */

import type { OrtModule } from "../../core/runtime.ts";

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
