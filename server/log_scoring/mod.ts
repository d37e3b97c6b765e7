/**
 * `POST /batch`: a whole event log scored in one request, streamed in and out.
 *
 * @module
 */

export { BATCH_PARAMETERS, RESPONSE_TYPES } from "./request.ts";
export { batchDoc } from "./route_doc.ts";
export { DEFAULT_LOG_READ_AHEAD_BYTES, DEFAULT_MAX_CONCURRENT_LOGS, LogScoring } from "./route.ts";
