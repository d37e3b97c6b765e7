/**
 * The entry of the worker behind {@link import("./native_ort.ts").loadNativeWorkerOrt}: loads
 * `onnxruntime-node` (native CPU; its intra-op threads come with each session's options) and
 * serves one ORT session over the protocol of `core/runtime/worker/`. Not imported by anything;
 * Deno starts it as a module worker, only for `--runtime native`.
 *
 * @module
 */

import { importOnnxruntimeNode } from "./native_ort.ts";
import { type MessageEndpoint, serveOrtWorker } from "../../core/runtime/worker/mod.ts";
import type { OrtModule } from "../../core/runtime/mod.ts";

// The message listener must be in place before this module's first await (messages arriving
// earlier are lost), so the package loads while the loop already listens: the first request,
// `create`, waits for it.
const loading = importOnnxruntimeNode();
loading.catch(() => {}); // reported by `create`
let loaded: OrtModule | undefined;
const ort: OrtModule = {
  InferenceSession: {
    create: async (bytes, options) =>
      (loaded ??= await loading).InferenceSession.create(bytes, options),
  },
  get Tensor() {
    if (loaded === undefined) throw new Error("onnxruntime-node has not loaded yet");
    return loaded.Tensor;
  },
};
serveOrtWorker(globalThis as unknown as MessageEndpoint, ort);
