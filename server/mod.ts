/**
 * The HTTP face of petri-serve (`@petri/serve/server`): {@link createApp} builds a web-standard
 * fetch handler for one loaded model (operations, probes, `/schema`, OpenAPI and its viewers,
 * `/metrics`, the Open Inference Protocol under `/v2`). It uses no `Deno.*`; `@petri/serve/deno`
 * has the listener that drains on a signal.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { createApp } from "@petri/serve/server";
 * import { loadOrt, readBundle } from "@petri/serve/deno";
 * await using model = await readBundle(await loadOrt(), "examples/rest_serving");
 * const app = await createApp(model, { title: "Loans", version: "1.0.0" });
 * const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, app.fetch);
 * const response = await fetch(`http://127.0.0.1:${server.addr.port}/healthz`);
 * assert.equal((await response.json()).version, "1.0.0");
 * await server.shutdown();
 * ```
 *
 * @module
 */

export {
  type App,
  type AppOptions,
  createApp,
  DEFAULT_BODY_TIMEOUT_MS,
  DEFAULT_DESCRIPTION,
  DEFAULT_MAX_BODY_BYTES,
  DEFAULT_TITLE,
  DEFAULT_VERSION,
} from "./app.ts";
export {
  type ClientInfo,
  DEFAULT_MAX_REQUEST_ROWS,
  DEFAULT_MAX_TRACE_EVENTS,
  defaultMaxResponseBytes,
  MissingPackageError,
  type NetWidths,
  type PackageLoaders,
  Readiness,
  type RequestLimits,
  type ZodToOpenApiModule,
} from "./pipeline/mod.ts";
export { type ErrorLogger, HttpError, ValidationError } from "./http/mod.ts";
export { AccessLog, type AccessLogOptions, type RequestRecord } from "./metrics/mod.ts";

// The core's types that the server's API names, so that this entry point documents them too.
export type {
  Arc,
  ArcOutputValue,
  Firing,
  GuardOp,
  InhibitorArc,
  InputSpecEntry,
  ModuleSettings,
  Parameters,
  PetriNet,
  Routing,
  StructuralGuard,
} from "../core/net/mod.ts";
export type { NetStructure } from "../core/net/mod.ts";
export type {
  HealthEvent,
  HealthState,
  InputRow,
  ModelSession,
  OutputRow,
  PackedInputs,
  PackedOutputs,
  QueueLimits,
  RunOptions,
  RunRecord,
  Scheduler,
} from "../core/runtime/mod.ts";
export { BUNDLE_FORMAT, type Sidecar, type SidecarSpecEntry } from "../core/bundle/mod.ts";
export type { InputSpec } from "../core/net/mod.ts";
export type { OpsModel, Runner } from "../core/ops/mod.ts";
export type { Model } from "../core/bundle/mod.ts";
export type { AnyOperation, BadRequest, Operation } from "../core/ops/mod.ts";
export type { OperationTable } from "../core/ops/mod.ts";
export type { AnySchema, ObjectSchema, ValidationIssue, ZodModule } from "../core/schemas/mod.ts";
export type { SchemaKit } from "../core/ops/mod.ts";
