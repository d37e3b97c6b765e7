/**
 * The page's handle on its scoring worker: typed requests, progress callbacks and
 * cancellation. A worker that does not stop soon after a cancel (a long model run) is
 * terminated and replaced on the next request, so cancel always stops the work.
 *
 * @example
 * ```ts
 * import { ScoreClient } from "./score_client.ts";
 * declare const file: File;
 * const client = new ScoreClient(new URL("./score_worker.js", import.meta.url));
 * const summary = await client.request({ op: "score", file, format: "auto" }, (p) => {
 *   console.log(`${p.traces} traces`);
 * });
 * ```
 *
 * @module
 */

import type { Answers, FromScoreWorker, Progress, ToScoreWorker } from "./score_protocol.ts";

/** How long a cancelled run may take to stop before its worker is terminated. */
const CANCEL_GRACE_MS = 2000;

/** A request that was cancelled. */
export class CancelledError extends Error {
  constructor() {
    super("Scoring was cancelled");
  }
}

/** A request without its `id` (the client numbers them). */
export type ScoreRequest = Exclude<ToScoreWorker, { op: "cancel" }> extends infer R
  ? R extends { id: number } ? Omit<R, "id"> : never
  : never;

interface Pending {
  resolve(value: unknown): void;
  reject(error: unknown): void;
  progress?: ((progress: Progress) => void) | undefined;
}

/** One worker and its requests. */
export class ScoreClient {
  #worker: Worker | undefined;
  #next = 1;
  readonly #pending = new Map<number, Pending>();
  /** Called when a stuck worker was terminated (its model and results are gone). */
  onRestart: (() => void) | undefined;

  constructor(readonly url: URL) {}

  /** Whether a worker is running (tests and the page's state use it). */
  get started(): boolean {
    return this.#worker !== undefined;
  }

  /** Sends a request; resolves with its response. */
  request<R extends ScoreRequest>(
    request: R,
    progress?: (progress: Progress) => void,
  ): Promise<Answers[R["op"]]> {
    const worker = this.#ensure();
    const id = this.#next++;
    return new Promise((resolve, reject) => {
      this.#pending.set(id, { resolve: resolve as (v: unknown) => void, reject, progress });
      worker.postMessage({ ...request, id });
    });
  }

  /** Cancels the running score or download; terminates the worker if it does not stop. */
  cancel(): void {
    const worker = this.#worker;
    if (!worker || this.#pending.size === 0) return;
    worker.postMessage({ op: "cancel" } satisfies ToScoreWorker);
    const waiting = new Set(this.#pending.keys());
    setTimeout(() => {
      if (this.#worker !== worker) return;
      if (![...waiting].some((id) => this.#pending.has(id))) return;
      this.terminate();
      this.onRestart?.();
    }, CANCEL_GRACE_MS);
  }

  /** Stops the worker; pending requests reject as cancelled. */
  terminate(): void {
    this.#worker?.terminate();
    this.#worker = undefined;
    for (const pending of this.#pending.values()) pending.reject(new CancelledError());
    this.#pending.clear();
  }

  #ensure(): Worker {
    if (this.#worker) return this.#worker;
    const worker = new Worker(this.url, { type: "module", name: "petri-serve scoring" });
    worker.addEventListener("message", (event: MessageEvent<FromScoreWorker>) => {
      const message = event.data;
      const pending = this.#pending.get(message.id);
      if (!pending) return;
      if (message.op === "progress") {
        pending.progress?.(message.progress);
        return;
      }
      this.#pending.delete(message.id);
      if (message.op === "done") pending.resolve(message.value);
      else pending.reject(message.cancelled ? new CancelledError() : new Error(message.message));
    });
    worker.addEventListener("error", (event) => {
      event.preventDefault();
      const error = new Error(`The scoring worker failed: ${event.message || "it did not start"}`);
      for (const pending of this.#pending.values()) pending.reject(error);
      this.#pending.clear();
      worker.terminate();
      if (this.#worker === worker) this.#worker = undefined;
    });
    this.#worker = worker;
    return worker;
  }
}
