/**
 * ORT in a worker: {@link workerOrt} is the main thread's proxy (an `OrtModule` whose sessions
 * live in workers), {@link serveOrtWorker} the worker's side; the faces' worker entry points
 * (`adapter/deno/`, `web/`) start one and inject the other.
 *
 * @module
 */

export type { MessageEndpoint } from "./protocol.ts";
export { serveOrtWorker } from "./serve_ort_worker.ts";
export { type WorkerHandle, workerOrt } from "./worker_ort.ts";
