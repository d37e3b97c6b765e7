/**
 * `onnxruntime-web` for tests: single-threaded and already initialised. ORT's one-time WASM
 * set-up opens a `MessagePort` that stays open for the process; doing it here, at module load
 * and outside any test, keeps Deno's resource sanitizer from blaming the first test that
 * creates a session.
 *
 * @example
 * ```ts
 * import { ORT } from "./ort.ts";
 * import { ModelSession } from "../core/runtime/mod.ts";
 * declare const bytes: Uint8Array;
 * await using session = await ModelSession.create(ORT, bytes, { places: [], transitions: [] });
 * ```
 *
 * @module
 */

import * as ort from "onnxruntime-web";
import { DataType, encodeModel } from "../core/onnx/proto.ts";
import type { OrtModule } from "../core/runtime/mod.ts";

ort.env.wasm.numThreads = 1;

const identity = encodeModel({
  irVersion: 8,
  opsetImport: [{ domain: "", version: 17 }],
  graph: {
    name: "init",
    node: [{ opType: "Identity", input: ["x"], output: ["y"] }],
    input: [{ name: "x", type: { tensorType: { elemType: DataType.FLOAT, shape: { dim: [] } } } }],
    output: [{ name: "y", type: { tensorType: { elemType: DataType.FLOAT, shape: { dim: [] } } } }],
  },
});
await (await ort.InferenceSession.create(identity)).release();

/** `onnxruntime-web`, single-threaded and initialised. */
export const ORT: OrtModule = ort;
