/**
 * The scoring worker's ORT worker: runs the model's session for `score_worker.ts`, so that
 * parsing the log (there) and running the model (here) overlap, as `cli.ts batch` does. It
 * serves `core/runtime/worker/`'s protocol with the backend named in its URL
 * (`?backend=wasm|webgpu&assets=URL`).
 *
 * @example
 * ```ts
 * // Bundled by tools/build_web.ts into ort_worker.js; the scoring worker starts it:
 * // new Worker(new URL("./ort_worker.js?backend=wasm&assets=...", import.meta.url), { type: "module" })
 * import "./ort_worker.ts";
 * ```
 *
 * @module
 */

import { type MessageEndpoint, serveOrtWorker } from "../core/runtime/worker/mod.ts";
import type { OrtModule, OrtTensor } from "../core/runtime/mod.ts";
import { type Backend, type BackendName, loadBackend } from "./backends.ts";

const params = new URL(globalThis.location.href).searchParams;
const name: BackendName = params.get("backend") === "webgpu" ? "webgpu" : "wasm";
const loading = loadBackend(name, new URL(params.get("assets") ?? "./", globalThis.location.href));
let loaded: Backend | undefined;
loading.then((backend) => (loaded = backend), () => {});

/**
 * ORT, loaded while the first request is on its way: the listener must be in place before
 * the module's first await, or that request would be lost. Tensors are built only for runs,
 * after the session was created, so the backend is there by then.
 */
const lazyOrt: OrtModule = {
  InferenceSession: {
    create: async (bytes, options) => (await loading).ort.InferenceSession.create(bytes, options),
  },
  Tensor: class {
    constructor(
      type: "float32" | "bool",
      data: Float32Array | readonly boolean[],
      dims: readonly number[],
    ) {
      if (!loaded) throw new Error("ORT is not loaded yet");
      return new loaded.ort.Tensor(type, data, dims);
    }
  } as unknown as OrtModule["Tensor"] & (new (...args: never[]) => OrtTensor),
};

serveOrtWorker(globalThis as unknown as MessageEndpoint, lazyOrt);
