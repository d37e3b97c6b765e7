/**
 * The two ONNX Runtime backends of the playground: WebGPU when the browser gives an adapter,
 * else WASM. Each is a chunk of its own, imported only when chosen, loading its `.wasm` from
 * our origin, never a CDN; both single-threaded, as a static host does not send the
 * cross-origin isolation headers ORT's threads need.
 *
 * @example
 * ```ts
 * import { loadBackend, webGpuAdapter } from "./backends.ts";
 * const adapter = await webGpuAdapter();
 * const backend = await loadBackend(adapter ? "webgpu" : "wasm", new URL("./", location.href));
 * backend.label; // "WebGPU" or "WASM"
 * ```
 *
 * @module
 */

import type { InferenceSession } from "onnxruntime-common";
import type { OrtModule } from "../core/runtime/mod.ts";

/** A backend's name, as the page's `?backend=` parameter spells it. */
export type BackendName = "webgpu" | "wasm";

/** ORT's `.wasm` file of each backend; the build copies them to `ort/`. */
export const WASM_FILES: Readonly<Record<BackendName, string>> = {
  webgpu: "ort-wasm-simd-threaded.asyncify.wasm",
  wasm: "ort-wasm-simd-threaded.wasm",
};

/** A loaded backend: the ORT module and the session options that select it. */
export interface Backend {
  readonly name: BackendName;
  /** `WebGPU` or `WASM`. */
  readonly label: string;
  readonly ort: OrtModule;
  readonly sessionOptions: InferenceSession.SessionOptions;
}

/** The part of ORT's `env` this module sets. */
interface OrtEnv {
  logLevel?: string;
  wasm: { numThreads?: number; proxy?: boolean; wasmPaths?: string | { wasm?: string } };
}

const loaded = new Map<BackendName, Promise<Backend>>();

/**
 * A short description of the browser's WebGPU adapter (e.g. `google swiftshader`), or
 * `undefined` when `navigator.gpu` is missing or gives no adapter.
 */
export async function webGpuAdapter(): Promise<string | undefined> {
  const gpu = (navigator as { gpu?: { requestAdapter(): Promise<unknown> } }).gpu;
  if (!gpu) return undefined;
  try {
    const adapter = await gpu.requestAdapter() as
      | { info?: { vendor?: string; architecture?: string; description?: string } }
      | null;
    if (!adapter) return undefined;
    const info = adapter.info ?? {};
    return [info.vendor, info.architecture, info.description].filter(Boolean).join(" ") ||
      "adapter";
  } catch {
    return undefined;
  }
}

/**
 * Imports the backend's ORT module (once) and points it at its `.wasm` file under `assets`
 * (the directory holding `ort/`).
 */
export function loadBackend(name: BackendName, assets: URL): Promise<Backend> {
  let backend = loaded.get(name);
  if (!backend) {
    backend = importBackend(name, assets);
    loaded.set(name, backend);
    backend.catch(() => loaded.delete(name));
  }
  return backend;
}

async function importBackend(name: BackendName, assets: URL): Promise<Backend> {
  const ort = name === "webgpu"
    ? await import("onnxruntime-web/webgpu")
    : await import("onnxruntime-web/wasm");
  const env = ort.env as unknown as OrtEnv;
  env.logLevel = "error";
  env.wasm.numThreads = 1;
  env.wasm.proxy = false;
  env.wasm.wasmPaths = { wasm: new URL(`ort/${WASM_FILES[name]}`, assets).href };
  return {
    name,
    label: name === "webgpu" ? "WebGPU" : "WASM",
    ort: ort as unknown as OrtModule,
    sessionOptions: { executionProviders: [name] },
  };
}
