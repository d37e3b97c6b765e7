/**
 * An {@link OrtModule} whose sessions live in dedicated workers, so that a run computes off the
 * thread that accepts and parses requests. Each `InferenceSession.create` starts one worker
 * through the injected `spawn` (for Deno, `adapter/deno/ort.ts`'s `loadWorkerOrt`); `release`
 * terminates it. Where `SharedArrayBuffer` and `Atomics.waitAsync` exist, runs go through a
 * shared buffer (`run_channel.ts`), which costs the serving thread far less than messages.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { workerOrt } from "./worker_ort.ts";
 * // Deno's worker entry; it calls `serveOrtWorker` with onnxruntime-web.
 * const entry = new URL("../../../adapter/deno/ort_worker.ts", import.meta.url);
 * const ort = workerOrt(() => new Worker(entry, { type: "module" }));
 * // No worker starts until a session is created.
 * assert.equal(typeof ort.InferenceSession.create, "function");
 * ```
 *
 * @module
 */

import type { OrtModule, OrtSession, OrtSessionOptions, OrtTensor } from "../session.ts";
import type { FromWorker, MessageEndpoint, ToWorker, WireTensor } from "./protocol.ts";
import { RUN_CHANNEL_BYTES, RunChannel, runChannelSupported } from "./run_channel.ts";
import { deferred } from "../deferred.ts";

/** The main-thread side of a worker: a {@link MessageEndpoint} that can be stopped. */
export interface WorkerHandle extends MessageEndpoint {
  /** Subscribes to the worker's uncaught errors. */
  addEventListener(type: "message", listener: (event: MessageEvent) => void): void;
  addEventListener(type: "error", listener: (event: ErrorEvent) => void): void;
  /** Stops the worker at once. */
  terminate(): void;
}

/**
 * An {@link OrtModule} running each session in a worker made by `spawn`; the worker must call
 * `serveOrtWorker` with a real ORT module.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { workerOrt } from "./worker_ort.ts";
 * import { ModelSession } from "../session.ts";
 * const entry = new URL("../../../adapter/deno/ort_worker.ts", import.meta.url);
 * const ort = workerOrt(() => new Worker(entry, { type: "module" }));
 * const onnxBytes = await Deno.readFile("examples/rest_serving/rest_serving.onnx");
 * // Releasing the session terminates its worker.
 * await using session = await ModelSession.create(ort, onnxBytes, {
 *   places: ["p_application", "p_approved", "p_declined"],
 *   transitions: ["t_approve", "t_decline"],
 * });
 * const [row] = await session.run([{ marking: new Map([["p_application", 1]]) }], {
 *   withGradient: false,
 * });
 * assert.ok(row!.transitions[0]! > 0.99); // t_approve fires, computed in the worker
 * ```
 */
export function workerOrt(spawn: () => WorkerHandle): OrtModule {
  return {
    InferenceSession: {
      create: (bytes, options) => WorkerSession.create(spawn(), bytes, options),
    },
    Tensor: WireTensorImpl,
  };
}

/** Tensor arguments kept as they are; the worker builds the real tensor. */
class WireTensorImpl implements OrtTensor, WireTensor {
  readonly type: "float32" | "bool";
  readonly data: Float32Array | readonly boolean[];
  readonly dims: readonly number[];

  constructor(
    type: "float32" | "bool",
    data: Float32Array | readonly boolean[],
    dims: readonly number[],
  ) {
    this.type = type;
    this.data = data;
    this.dims = dims;
  }
}

type Settle = {
  readonly resolve: (message: FromWorker) => void;
  readonly reject: (error: Error) => void;
};

class WorkerSession implements OrtSession {
  readonly #worker: WorkerHandle;
  readonly #waiting = new Map<number, Settle>();
  #nextId = 0;
  #outputNames: readonly string[] = [];
  #dead: Error | undefined;
  /** The shared-buffer path, once the worker has accepted it. */
  #channel: RunChannel | undefined;
  #channelBusy = false;
  #channelRuns = 0;
  /** Rejects the run waiting on the channel when the worker dies. */
  #channelReject: ((error: Error) => void) | undefined;

  get outputNames(): readonly string[] {
    return this.#outputNames;
  }

  private constructor(worker: WorkerHandle) {
    this.#worker = worker;
    worker.addEventListener("message", (event) => {
      const message = event.data as FromWorker;
      const settle = this.#waiting.get(message.id);
      this.#waiting.delete(message.id);
      if (message.op === "failed") settle?.reject(new Error(message.message));
      else settle?.resolve(message);
    });
    worker.addEventListener("error", (event) => {
      // An uncaught error (say, the worker's module failed to load) ends the worker: fail
      // every waiting call, and keep the error from reaching the main thread's top level.
      event.preventDefault();
      this.#fail(new Error(`The ORT worker failed: ${event.message}`));
    });
  }

  static async create(
    worker: WorkerHandle,
    bytes: Uint8Array,
    options: OrtSessionOptions | undefined,
  ): Promise<WorkerSession> {
    const session = new WorkerSession(worker);
    try {
      const created = await session.#call({ op: "create", id: 0, bytes, options }, []);
      if (created.op === "created") session.#outputNames = created.outputNames;
      if (runChannelSupported()) await session.#attachChannel();
    } catch (error) {
      session.#fail(error as Error);
      throw error;
    }
    return session;
  }

  async run(feeds: Readonly<Record<string, OrtTensor>>): Promise<Record<string, OrtTensor>> {
    for (const [name, tensor] of Object.entries(feeds)) {
      if (!(tensor instanceof WireTensorImpl)) {
        throw new Error(`Cannot run the model: feed ${name} was not made by this module's Tensor`);
      }
    }
    const wireFeeds = feeds as Readonly<Record<string, WireTensorImpl>>;
    const channel = this.#channel;
    if (channel && !this.#channelBusy && !this.#dead && channel.writeFeeds(wireFeeds)) {
      return await this.#runOnChannel(channel);
    }
    const wire: Record<string, WireTensor> = {};
    const transfer: ArrayBuffer[] = [];
    for (const [name, tensor] of Object.entries(wireFeeds)) {
      let { data } = tensor;
      if (data instanceof Float32Array) {
        // A copy, so the caller's arrays stay usable; the copy moves without a second copy.
        data = data.slice();
        transfer.push(data.buffer as ArrayBuffer);
      }
      wire[name] = { type: tensor.type, data, dims: tensor.dims };
    }
    const ran = await this.#call({ op: "run", id: 0, feeds: wire }, transfer);
    const outputs: Record<string, OrtTensor> = {};
    if (ran.op === "ran") {
      for (const [name, data] of Object.entries(ran.outputs)) outputs[name] = { data };
    }
    return outputs;
  }

  /** Offers the worker a shared buffer; a worker that cannot use it keeps to messages. */
  async #attachChannel(): Promise<void> {
    const buffer = new SharedArrayBuffer(RUN_CHANNEL_BYTES);
    try {
      await this.#call({ op: "channel", id: 0, buffer }, []);
      this.#channel = new RunChannel(buffer);
    } catch {
      // The worker's runtime lacks Atomics.waitAsync: runs keep to messages.
    }
  }

  /** Runs the feeds just written to `channel`; one run at a time. */
  async #runOnChannel(channel: RunChannel): Promise<Record<string, OrtTensor>> {
    this.#channelBusy = true;
    try {
      const { promise, resolve, reject } = deferred<boolean>();
      this.#channelReject = reject;
      channel.request(++this.#channelRuns).then(resolve, reject);
      if (!(await promise)) throw new Error(channel.readError());
      const outputs: Record<string, OrtTensor> = {};
      for (const [name, data] of Object.entries(channel.readOutputs())) outputs[name] = { data };
      return outputs;
    } finally {
      this.#channelReject = undefined;
      this.#channelBusy = false;
    }
  }

  async release(): Promise<void> {
    if (this.#dead) return;
    try {
      await this.#call({ op: "release", id: 0 }, []);
    } finally {
      this.#fail(new Error("Cannot run the model: its session has been released"));
    }
  }

  /** Sends `message` under a fresh id and waits for the worker's answer to it. */
  #call(message: ToWorker, transfer: Transferable[]): Promise<FromWorker> {
    if (this.#dead) return Promise.reject(this.#dead);
    const id = ++this.#nextId;
    const { promise, resolve, reject } = deferred<FromWorker>();
    this.#waiting.set(id, { resolve, reject });
    this.#worker.postMessage({ ...message, id }, transfer);
    return promise;
  }

  /** Terminates the worker and rejects every waiting and later call with `error`. */
  #fail(error: Error): void {
    if (this.#dead) return;
    this.#dead = error;
    this.#worker.terminate();
    this.#channelReject?.(error);
    for (const settle of this.#waiting.values()) settle.reject(error);
    this.#waiting.clear();
  }
}
