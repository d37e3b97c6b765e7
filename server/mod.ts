/**
 * The HTTP server: {@link createApp} builds a web-standard fetch handler for one loaded model.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { createApp } from "./mod.ts";
 * import { loadOrt } from "../adapter/deno/ort.ts";
 * import { readBundle } from "../adapter/deno/bundle_files.ts";
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
export { type ErrorLogger, HttpError, ValidationError } from "./errors.ts";
export { MissingPackageError, type PackageLoaders } from "./packages.ts";
export type { ZodToOpenApiModule } from "./packages.ts";
export { Readiness } from "./readiness.ts";
export {
  DEFAULT_MAX_REQUEST_ROWS,
  DEFAULT_MAX_TRACE_EVENTS,
  defaultMaxResponseBytes,
  type NetWidths,
  type RequestLimits,
} from "./request_limits.ts";
export { AccessLog, type AccessLogOptions, type RequestRecord } from "./access_log.ts";
