/**
 * The entry of the worker behind {@link import("./ort.ts").loadWorkerOrt}: loads
 * `onnxruntime-web` (WASM, one thread: the worker is the thread) and serves one ORT session
 * over the protocol of `core/ort_worker/`. Not imported by anything; Deno starts it as a module
 * worker.
 *
 * @module
 */

import * as ort from "onnxruntime-web";
import { serveOrtWorker } from "../../core/ort_worker/serve_ort_worker.ts";
import type { MessageEndpoint } from "../../core/ort_worker/protocol.ts";

ort.env.wasm.numThreads = 1;
serveOrtWorker(globalThis as unknown as MessageEndpoint, ort);
