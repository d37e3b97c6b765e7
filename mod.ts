/**
 * petri-serve: serve trained PETRA Petri-net models. This entry point re-exports the
 * environment-agnostic core (the net types and model-description reader, the ONNX compiler,
 * bundles and the batched runtime, the four operations, the trace readers, the zod schemas)
 * and the HTTP face (`createApp`, a web-standard fetch handler). The ONNX runtime module is
 * passed in, so the same code runs in Deno, on Deno Deploy and in browsers.
 *
 * ```ts
 * import * as ort from "onnxruntime-web";
 * import { compileBundle, forward, loadBundle, parseModelDescription } from "@petri/serve";
 * declare const json: unknown;
 * const { onnx, sidecar } = await compileBundle(parseModelDescription(json), {});
 * await using model = await loadBundle(ort, {
 *   onnx,
 *   sidecar,
 *   onnxName: "m.onnx",
 *   sidecarName: "m.onnx.meta.json",
 * });
 * (await forward(model, { input_marking: new Map() })).transition_activations;
 * ```
 *
 * @module
 */

export * from "./core/net/types.ts";
export * from "./core/net/structure.ts";
export * from "./core/net/parse.ts";
export * from "./core/net/quote_id.ts";
export { type CompiledModel, compileModel, type CompileOptions } from "./core/compile/mod.ts";
export * from "./core/runtime.ts";
export * from "./core/bundle.ts";
export * from "./core/ops/errors.ts";
export type { IdMap, OpsModel } from "./core/ops/model.ts";
export * from "./core/ops/forward.ts";
export * from "./core/ops/anomaly.ts";
export * from "./core/ops/counterfactual.ts";
export * from "./core/ops/sensitivity.ts";
export * from "./core/ops/operation.ts";
export * from "./core/ops/operations.ts";
export type { SchemaKit } from "./core/schemas/kit.ts";
export * from "./core/traces/mod.ts";
export * from "./core/json.ts";
export * from "./core/schemas.ts";
export * from "./server/mod.ts";
