/**
 * petri-serve's environment-agnostic core: read a model description, compile it to a bundle,
 * load a bundle from its bytes (`.onnx`, or PETRA's `.pt` read without running it) with an ONNX
 * runtime passed in, run the four operations (or the table of operations), read event logs, and
 * validate requests with the zod schemas. It imports no server, no docs UI and no `Deno.*`, so
 * the same code runs in Deno, on Deno Deploy, in a browser app and in Node: pass it
 * `onnxruntime-web` (or any module with the same `InferenceSession` and `Tensor`).
 *
 * The other entry points, by audience: `@petri/serve/server` (`createApp`, the HTTP face with
 * its OpenAPI document, docs pages, metrics and the Open Inference Protocol),
 * `@petri/serve/deno` (bundle files and URLs, ORT in-process or in a worker, the listener with
 * its drain) and `@petri/serve/cli` (the command line).
 *
 * @example Compile a model description, load it and run one forward pass
 * ```ts
 * import assert from "node:assert/strict";
 * import * as ort from "onnxruntime-web";
 * import { compileBundle, forward, loadBundle, parseModelDescription } from "@petri/serve";
 * const description = parseModelDescription({
 *   format: "petri-net-model/1",
 *   net: {
 *     places: ["p_in", "p_out"],
 *     transitions: ["t_go"],
 *     arcs: [{ from: "p_in", to: "t_go" }, { from: "t_go", to: "p_out" }],
 *   },
 *   parameters: {
 *     arc_weights: [
 *       { from: "p_in", to: "t_go", weight: 1 },
 *       { from: "t_go", to: "p_out", weight: 1 },
 *     ],
 *     transition_thresholds: { t_go: 0.5 },
 *   },
 * });
 * const { onnx, sidecar } = await compileBundle(description);
 * await using model = await loadBundle(ort, {
 *   onnx,
 *   sidecar,
 *   onnxName: "m.onnx",
 *   sidecarName: "m.onnx.meta.json",
 * });
 * const answer = await forward(model, { input_marking: new Map([["p_in", 1]]) });
 * assert.deepEqual([...answer.transition_activations.keys()], ["t_go"]);
 * ```
 *
 * @module
 */

// The net and its model description
export type {
  Arc,
  ArcOutputValue,
  Firing,
  GuardOp,
  InhibitorArc,
  InputSpec,
  InputSpecEntry,
  ModuleSettings,
  Parameters,
  PetriModel,
  PetriNet,
  Routing,
  StructuralGuard,
} from "./core/net/mod.ts";
export { arcKey } from "./core/net/mod.ts";
export type { NetStructure } from "./core/net/mod.ts";
export {
  describeModel,
  MODEL_DESCRIPTION_FORMAT,
  ModelDescriptionError,
  type ModelIssue,
  parseModelDescription,
} from "./core/net/mod.ts";

// Compiling and loading
export { type CompiledModel, compileModel, type CompileOptions } from "./core/compile/mod.ts";
export {
  BUNDLE_FORMAT,
  BundleError,
  type BundleFiles,
  type BundleOptions,
  compileBundle,
  type CompiledBundle,
  loadBundle,
  type LoadOptions,
  type Model,
  type Producer,
  type Sidecar,
  type SidecarSpecEntry,
} from "./core/bundle/mod.ts";
export type {
  InputRow,
  ModelSession,
  ModelSessionOptions,
  OrtModule,
  OrtSession,
  OrtSessionOptions,
  OrtTensor,
  OutputRow,
  PackedInputs,
  PackedOutputs,
  QueueLimits,
  RunOptions,
  RunRecord,
  SchedulerOptions,
} from "./core/runtime/mod.ts";
export { IN_PLACE_MAX_MS, IN_PLACE_MAX_ROWS, Scheduler } from "./core/runtime/mod.ts";
export type { BatchInfo, Execute } from "./core/runtime/mod.ts";
export type { HealingPolicy, HealthEvent, HealthState } from "./core/runtime/mod.ts";
export { type BusyReason, ModelBusyError, RunCancelledError } from "./core/runtime/mod.ts";

export { type AnyBundleFiles, openBundle } from "./core/pt/mod.ts";
export { loadPtBundle } from "./core/pt/mod.ts";
export { type PtBundleFiles, type PtModel, readPtModel } from "./core/pt/mod.ts";
export { PT_LIMITS, type PtLimits } from "./core/pt/mod.ts";

// The operations
export { RequestError } from "./core/ops/mod.ts";
export { type IdMap, type OpsModel, type Runner, runRows } from "./core/ops/mod.ts";
export { IdValues } from "./core/ops/mod.ts";
export { forward, type ForwardRequest, type ForwardResponse } from "./core/ops/mod.ts";
export {
  anomaly,
  type AnomalyEvent,
  type AnomalyRequest,
  type AnomalyResponse,
  scoreTraces,
} from "./core/ops/mod.ts";
export {
  counterfactual,
  type CounterfactualRequest,
  type CounterfactualResponse,
  type FlipChannel,
} from "./core/ops/mod.ts";
export { sensitivity, type SensitivityRequest, type SensitivityResponse } from "./core/ops/mod.ts";
export { type BadRequest, defineOperation, type Operation } from "./core/ops/mod.ts";
export { type AnyOperation, type RequestOf } from "./core/ops/mod.ts";
export {
  type OperationName,
  OPERATIONS,
  type Operations,
  type OperationTable,
  type RequestTypes,
} from "./core/ops/mod.ts";

// Event logs
export {
  type CsvColumnChoice,
  type CsvColumnOptions,
  type CsvOptions,
  type CsvSource,
  type DetectedFormat,
  detectFormat,
  readCsvTraces,
  readJsonTraces,
  type ReadOptions,
  readTraces,
  type ReadTracesOptions,
  readXesTraces,
  resolveTraceInputs,
  type SpecSection,
  type Trace,
  type TraceEvent,
  type TraceFormat,
  TraceReadError,
} from "./core/event_log/mod.ts";

// The request and response schemas, and the JSON the server writes
export { createSchemas, loadSchemas, type Schemas } from "./core/schemas/mod.ts";
export type {
  AnySchema,
  ObjectSchema,
  ParseResult,
  RequestKind,
  RequestSchemas,
  ResponseSchemas,
  SchemaSet,
  ValidationIssue,
  ZodModule,
} from "./core/schemas/mod.ts";
export type { SchemaKit } from "./core/ops/mod.ts";
export { JSON_TEXT, stringifyJson, type WritesJson } from "./core/ops/mod.ts";
