/**
 * The HTTP server: {@link createApp} builds a web-standard fetch handler for one loaded model.
 *
 * @example
 * ```ts
 * import { createApp } from "./mod.ts";
 * declare const model: import("../core/ops/model.ts").OpsModel;
 * const app = await createApp(model, { title: "Loans", version: "1.0.0" });
 * const server = Deno.serve({ hostname: "127.0.0.1", port: 8000 }, app.fetch);
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
export { AccessLog, type AccessLogOptions, type RequestRecord } from "./access_log.ts";
