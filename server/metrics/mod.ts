/**
 * What the server tells its operators: the Prometheus metrics and their `/metrics` route
 * (merged across `deno serve --parallel` instances), and the access log.
 *
 * @module
 */

export { AccessLog, type AccessLogOptions, type RequestRecord } from "./access_log.ts";
export { type Metrics, metricsFor } from "./metrics.ts";
export { METRICS_DOC, metricsRoute } from "./route.ts";
