/**
 * HTTP conventions every route shares, with no knowledge of the app: JSON and error
 * responses, `HEAD`, compression, CORS, CSP hashes, quality values, response headers, the
 * request path, host and id, and static assets with ETags.
 *
 * @module
 */

export { compressResponse } from "./compression.ts";
export { checkOrigins, Cors } from "./cors.ts";
export { cspHash, pagePolicy } from "./csp.ts";
export {
  type ErrorLogger,
  errorResponse,
  HttpError,
  logToConsole,
  RETRY_AFTER_SECONDS,
  shuttingDown,
  ValidationError,
} from "./errors.ts";
export { escapeHtml } from "./escape_html.ts";
export { withoutBody } from "./head.ts";
export { jsonResponse, type ResponseNotes, streamedJsonResponse, stringifyJson } from "./json.ts";
export { qualityValues } from "./quality_values.ts";
export { REQUEST_ID_HEADER, requestIdOf } from "./request_id.ts";
export { hostName, pathOf, targetOf } from "./request_path.ts";
export { IMMUTABLE, REVALIDATE, StaticAsset } from "./static_asset.ts";
export {
  jsonContent,
  type MethodDoc,
  objectSchema,
  pathParameter,
  type RouteDoc,
  TAGS,
} from "./route_doc.ts";
