/**
 * The Open Inference Protocol v2 (KServe's and Triton's REST protocol) under `/v2`.
 *
 * @module
 */

export { createOip } from "./routes.ts";
