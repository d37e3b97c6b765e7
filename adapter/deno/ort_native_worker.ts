/**
 * The entry of the worker behind {@link import("./native_ort.ts").loadNativeWorkerOrt}: loads
 * `onnxruntime-node` (native CPU; its intra-op threads come with each session's options) and
 * serves one ORT session over the protocol of `core/ort_worker/`. Not imported by anything;
 * Deno starts it as a module worker, only for `--runtime native`.
 *
 * @module
 */

import * as ort from "onnxruntime-node";
import { serveOrtWorker } from "../../core/ort_worker/serve_ort_worker.ts";
import type { MessageEndpoint } from "../../core/ort_worker/protocol.ts";

serveOrtWorker(globalThis as unknown as MessageEndpoint, ort);
