/**
 * The messages between {@link import("./worker_ort.ts").workerOrt}'s main-thread proxy and
 * the worker running {@link import("./serve_ort_worker.ts").serveOrtWorker}. The worker echoes
 * each request's `id`; float data travels as transferred `ArrayBuffer`s. Once the worker accepts
 * a `channel`, runs go through its shared buffer (`run_channel.ts`), too large ones as `run`.
 *
 * @module
 */

/** A tensor as it crosses the worker boundary: ORT `Tensor` constructor arguments. */
export interface WireTensor {
  /** The ORT element type. */
  readonly type: "float32" | "bool";
  /** The elements; a `Float32Array` travels with its buffer transferred. */
  readonly data: Float32Array | readonly boolean[];
  /** The shape. */
  readonly dims: readonly number[];
}

/** A message from the main thread to the worker. */
export type ToWorker =
  | {
    readonly op: "create";
    readonly id: number;
    readonly bytes: Uint8Array;
    readonly options: object | undefined;
  }
  | { readonly op: "run"; readonly id: number; readonly feeds: Record<string, WireTensor> }
  | { readonly op: "release"; readonly id: number }
  /** Offers the shared buffer of `run_channel.ts` for later runs. */
  | { readonly op: "channel"; readonly id: number; readonly buffer: SharedArrayBuffer };

/** A message from the worker to the main thread. */
export type FromWorker =
  | { readonly op: "created"; readonly id: number; readonly outputNames: readonly string[] }
  | { readonly op: "ran"; readonly id: number; readonly outputs: Record<string, Float32Array> }
  | { readonly op: "released"; readonly id: number }
  /** The worker now takes runs through the shared buffer too. */
  | { readonly op: "attached"; readonly id: number }
  | { readonly op: "failed"; readonly id: number; readonly message: string };

/**
 * The part of a `Worker` (main side) or of a worker's global scope (worker side) that the
 * protocol uses: both post messages and receive them as `message` events.
 */
export interface MessageEndpoint {
  /** Sends `message`, moving the `transfer` buffers instead of copying them. */
  postMessage(message: unknown, transfer: Transferable[]): void;
  /** Subscribes to `message` (and, for a `Worker`, `error` and `messageerror`) events. */
  addEventListener(type: "message", listener: (event: MessageEvent) => void): void;
}

/**
 * A buffer that holds exactly `data`, safe to transfer: `data`'s own buffer when the array
 * spans all of it, otherwise a copy (transferring a shared buffer would detach other views).
 *
 * @example
 * ```ts
 * import { ownedBuffer } from "./protocol.ts";
 * const whole = new Float32Array(4);
 * ownedBuffer(whole) === whole.buffer; // true
 * ownedBuffer(whole.subarray(1)).byteLength; // 12, a copy
 * ```
 */
export function ownedBuffer(data: Float32Array): ArrayBuffer {
  const { buffer } = data;
  if (
    buffer instanceof ArrayBuffer && data.byteOffset === 0 &&
    data.byteLength === buffer.byteLength
  ) {
    return buffer;
  }
  return data.slice().buffer;
}
