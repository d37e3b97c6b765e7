/**
 * The entry of the worker behind {@link import("./ort.ts").loadWorkerOrt}: loads
 * `onnxruntime-web` (WASM, one thread: the worker is the thread) and serves one ORT session
 * over the protocol of `core/runtime/worker/`. Not imported by anything; Deno starts it as a module
 * worker.
 *
 * @module
 */

import * as ort from "onnxruntime-web";
import { type MessageEndpoint, serveOrtWorker } from "../../core/runtime/worker/mod.ts";

ort.env.wasm.numThreads = 1;
serveOrtWorker(globalThis as unknown as MessageEndpoint, ort);
