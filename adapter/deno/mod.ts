/**
 * The Deno edges of petri-serve (`@petri/serve/deno`): reading a bundle from disk or a URL and
 * writing a compiled one, loading `onnxruntime-web` in this thread or with each session in a
 * worker, the listener that drains on SIGINT / SIGTERM without losing a request, and the
 * packaged playground as a handler to mount. Everything else comes from the environment-agnostic
 * core (`@petri/serve`) and the HTTP face (`@petri/serve/server`).
 *
 * @example A Deno service: read a bundle, serve it, answer one request, drain
 * ```ts
 * import assert from "node:assert/strict";
 * import { EXAMPLE_BUNDLE_URL, listen, loadOrt, readBundle } from "@petri/serve/deno";
 * import { createApp } from "@petri/serve/server";
 * await using model = await readBundle(await loadOrt(), EXAMPLE_BUNDLE_URL);
 * const app = await createApp(model, { title: "Loans", version: "1.0.0" });
 * const running = listen(app, { port: 0 });
 * const response = await fetch(`${running.url}/forward`, {
 *   method: "POST",
 *   body: JSON.stringify({ input_marking: { p_submitted: 1 } }),
 * });
 * assert.equal(response.status, 200);
 * assert.ok("t_approve" in (await response.json()).transition_activations);
 * await running.stop();
 * ```
 *
 * @module
 */

export {
  type BundleKind,
  bundleKind,
  bundleLocation,
  EXAMPLE_BUNDLE_URL,
  FETCH_TIMEOUT_MS,
  MAX_FETCHED_BYTES,
  readBundle,
  readBundleFiles,
  readPtFiles,
  resolveBundlePath,
  SIDECAR_SUFFIX,
  writeBundle,
  type WrittenBundle,
} from "./bundle_files.ts";
export { loadOrt, loadWorkerOrt } from "./ort.ts";
export {
  DEFAULT_DRAIN_MS,
  listen,
  type ListenedApp,
  type ListenOptions,
  type Running,
} from "./listen.ts";
export {
  type MaybeHandler,
  PLAYGROUND_PREFIX,
  playgroundHandler,
  type PlaygroundOptions,
} from "./serve_static.ts";

// The core's types that these functions name, so that this entry point documents them too.
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
  PetriNet,
  Routing,
  StructuralGuard,
} from "../../core/net/mod.ts";
export type { NetStructure } from "../../core/net/mod.ts";
export type { AnyBundleFiles } from "../../core/pt/mod.ts";
export {
  BUNDLE_FORMAT,
  type BundleFiles,
  type LoadOptions,
  type Model,
  type Sidecar,
  type SidecarSpecEntry,
} from "../../core/bundle/mod.ts";
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
} from "../../core/runtime/mod.ts";
export { IN_PLACE_MAX_MS, IN_PLACE_MAX_ROWS, Scheduler } from "../../core/runtime/mod.ts";
export type { BatchInfo, Execute } from "../../core/runtime/mod.ts";
export type { HealingPolicy, HealthEvent, HealthState } from "../../core/runtime/mod.ts";
export type { PtBundleFiles } from "../../core/pt/mod.ts";
