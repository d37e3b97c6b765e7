/**
 * The request pipeline: each request's context, the steps composed once around the route
 * table, admission control with its queues, body reading and request limits, and the model's
 * readiness and health.
 *
 * @module
 */

export {
  Admission,
  DEFAULT_MAX_BODY_MEMORY_BYTES,
  DEFAULT_QUEUE_TIMEOUT_MS,
  defaultMaxQueueRows,
} from "./admission.ts";
export {
  type BodyLimits,
  INCOMPLETE_BODY_DETAIL,
  lateBodyDetail,
  NotJsonError,
  parseJsonBytes,
  readBody,
  readJsonBody,
  tooLargeDetail,
} from "./body.ts";
export { compose, type Handler } from "./compose.ts";
export { type ClientInfo, clientSignalOf, RequestContext } from "./context.ts";
export { watchModelHealth } from "./model_health.ts";
export {
  buildInfoMetric,
  identityParameters,
  type ModelIdentity,
  modelIdentity,
} from "./model_identity.ts";
export {
  loadPackages,
  MissingPackageError,
  type PackageLoaders,
  type ZodToOpenApiModule,
} from "./packages.ts";
export { PieceCount, type PieceRule } from "./piece_count.ts";
export { Readiness } from "./readiness.ts";
export { modelDocs, operationDoc, READYZ_DOC } from "./route_docs.ts";
export {
  checkRequestBody,
  checkRequestRows,
  checkResponseBytes,
  DEFAULT_MAX_REQUEST_ROWS,
  DEFAULT_MAX_TRACE_EVENTS,
  defaultMaxResponseBytes,
  FLOAT32_JSON_BYTES,
  MIN_DEFAULT_MAX_RESPONSE_BYTES,
  type NetWidths,
  requestLimitNote,
  type RequestLimits,
  resolveRequestLimits,
  tooManyRowsDetail,
} from "./request_limits.ts";
export {
  catchErrors,
  checkHost,
  finish,
  observe,
  type Route,
  route,
  wantsLogPacing,
} from "./steps.ts";
