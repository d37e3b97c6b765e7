/**
 * The model's queue: packed requests wait here in deadline order, and each run takes as many
 * as fit in `maxBatchRows` (dynamic batching, as Triton's). ORT sessions are not re-entrant, so
 * one run is under way at a time; rows that arrive meanwhile share the next. The queue is
 * bounded here and only here: in rows (`maxQueueRows`) and in time (each request's deadline).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { Scheduler } from "./scheduler.ts";
 * import { allocateInputs } from "./codec.ts";
 * const runs: number[] = [];
 * const scheduler = new Scheduler({ places: ["p"], transitions: ["t"] }, (inputs) => {
 *   runs.push(inputs.batch);
 *   return Promise.resolve({ batch: inputs.batch, transitions: inputs.marking, places: inputs.marking });
 * });
 * // Two requests queued in the same tick share one run.
 * await Promise.all([1, 2].map((n) => scheduler.enqueue(allocateInputs(n, 1, 1), { withGradient: false })));
 * assert.deepEqual(runs, [3]);
 * ```
 *
 * @module
 */

import { deferred } from "./deferred.ts";
import { ModelBusyError, RunCancelledError } from "./errors.ts";
import {
  concatInputs,
  type NetColumns,
  type PackedInputs,
  type PackedOutputs,
  type RunOptions,
  sliceOutputs,
} from "./codec.ts";

export type { RunOptions };

/** The default of {@link SchedulerOptions.maxBatchRows}. */
export const DEFAULT_MAX_BATCH_ROWS = 1024;

/** How the queue batches and bounds its rows. */
export interface SchedulerOptions {
  /**
   * A run stops taking queued requests once it holds this many rows; a single larger request
   * still runs alone.
   *
   * @default {1024}
   */
  readonly maxBatchRows?: number;
  /**
   * How long, in ms, the oldest queued request may wait for more rows once the model is free;
   * a run starts earlier when the queue reaches `maxBatchRows`.
   *
   * @default {0}
   */
  readonly maxQueueDelayMs?: number;
  /**
   * Most rows waiting; more are refused with a `ModelBusyError` (`queue_full`), unless the
   * queue is empty (a single request larger than the limit still runs).
   *
   * @default {Infinity}
   */
  readonly maxQueueRows?: number | undefined;
  /**
   * How long rows may wait before they are refused with a `ModelBusyError` (`queue_timeout`).
   *
   * @default {Infinity}
   */
  readonly queueTimeoutMs?: number | undefined;
}

/** The queue's bounds, as {@link Scheduler.limits} reports them. */
export interface QueueLimits {
  /** See {@link SchedulerOptions.maxQueueRows}. */
  readonly maxQueueRows?: number | undefined;
  /** See {@link SchedulerOptions.queueTimeoutMs}. */
  readonly queueTimeoutMs?: number | undefined;
}

/** What a run of the queue is told besides its inputs. */
export interface BatchInfo {
  /** Whether the rows compute gradients (forward rows ride along and drop theirs). */
  readonly withGradient: boolean;
  /** How long each request of the run waited, in seconds. */
  readonly queueSeconds: readonly number[];
  /** Whether nothing else waits and its caller allows it: the session may run it in place. */
  readonly alone: boolean;
}

/** Runs one batch. */
export type Execute = (inputs: PackedInputs, info: BatchInfo) => Promise<PackedOutputs>;

interface Pending {
  readonly inputs: PackedInputs;
  readonly withGradient: boolean;
  readonly inPlace: boolean;
  /** Admitted by a server: {@link Scheduler.cancelAdmitted} refuses it. */
  readonly admitted: boolean;
  readonly queuedAt: number;
  /** When the rows must have started their run (the queue is sorted by it). */
  readonly deadline: number;
  readonly resolve: (outputs: PackedOutputs) => void;
  readonly reject: (error: unknown) => void;
  /** Stops listening to the caller's signal. */
  readonly forget: () => void;
}

/** See the module doc. */
export class Scheduler {
  readonly #columns: NetColumns;
  readonly #execute: Execute;
  readonly #maxBatchRows: number;
  readonly #maxQueueDelayMs: number;
  #maxQueueRows: number;
  #queueTimeoutMs: number;
  #pending: Pending[] = [];
  #queuedRows = 0;
  /** Ends a queue delay early (the queue is full, or the scheduler is closing). */
  #wake: (() => void) | undefined;
  /** Refuses the queue's first rows when their deadline has passed. */
  #expiry: ReturnType<typeof setTimeout> | undefined;
  #draining: Promise<void> | undefined;
  /** Whether a run is under way (rows queued meanwhile wait for it). */
  #running = false;
  /** The requests of the run under way. */
  #inRun: readonly Pending[] = [];
  #closed = false;

  /**
   * A queue for nets of `columns` whose batches `execute` runs.
   *
   * @example
   * ```ts
   * import assert from "node:assert/strict";
   * import { Scheduler } from "./scheduler.ts";
   * const scheduler = new Scheduler({ places: [], transitions: [] }, () => Promise.reject(), {
   *   maxQueueRows: 10,
   * });
   * assert.deepEqual(scheduler.limits, { maxQueueRows: 10, queueTimeoutMs: Infinity });
   * ```
   */
  constructor(columns: NetColumns, execute: Execute, options: SchedulerOptions = {}) {
    this.#columns = columns;
    this.#execute = execute;
    this.#maxBatchRows = options.maxBatchRows ?? DEFAULT_MAX_BATCH_ROWS;
    this.#maxQueueDelayMs = options.maxQueueDelayMs ?? 0;
    this.#maxQueueRows = Infinity;
    this.#queueTimeoutMs = Infinity;
    this.setLimits(options);
  }

  /** Rows waiting for a run (not counting the run under way). */
  get queuedRows(): number {
    return this.#queuedRows;
  }

  /** Whether a run is under way. */
  get running(): boolean {
    return this.#running;
  }

  /** The queue's bounds now. */
  get limits(): { readonly maxQueueRows: number; readonly queueTimeoutMs: number } {
    return { maxQueueRows: this.#maxQueueRows, queueTimeoutMs: this.#queueTimeoutMs };
  }

  /**
   * Sets the bounds for the rows queued from now on (an absent one is left as it is).
   *
   * @throws {RangeError} when a bound is not a positive number.
   */
  setLimits(limits: QueueLimits): void {
    for (const [name, value] of Object.entries(limits)) {
      if (name !== "maxQueueRows" && name !== "queueTimeoutMs") continue;
      if (value !== undefined && !(typeof value === "number" && value > 0)) {
        throw new RangeError(`${name} must be a positive number, got ${value}`);
      }
    }
    this.#maxQueueRows = limits.maxQueueRows ?? this.#maxQueueRows;
    this.#queueTimeoutMs = limits.queueTimeoutMs ?? this.#queueTimeoutMs;
  }

  /** Whether `rows` more would stay within `maxQueueRows` (an empty queue takes any size). */
  hasRoom(rows: number, admitted = false): boolean {
    const queued = this.#queuedRows;
    return queued === 0 || queued + rows <= (admitted ? 2 : 1) * this.#maxQueueRows;
  }

  /** Queues `inputs` for the next run that has room; resolves with their rows of its outputs. */
  enqueue(inputs: PackedInputs, options: RunOptions): Promise<PackedOutputs> {
    const { withGradient, signal } = options;
    if (!this.hasRoom(inputs.batch, options.admitted)) {
      const limit = (options.admitted ? 2 : 1) * this.#maxQueueRows;
      return Promise.reject(
        new ModelBusyError(
          "queue_full",
          `The model's queue is full: ${this.#queuedRows} rows wait, ${inputs.batch} more ` +
            `would pass its limit of ${limit} rows`,
        ),
      );
    }
    const { promise, resolve, reject } = deferred<PackedOutputs>();
    let forget = () => {};
    if (signal) {
      const withdraw = () => {
        // Queued rows leave the queue; rows already in a run are computed, but not awaited.
        const at = this.#pending.indexOf(pending);
        if (at >= 0) {
          this.#pending.splice(at, 1);
          this.#queuedRows -= inputs.batch;
          if (this.#pending.length === 0) this.#stopExpiry();
        }
        reject(new RunCancelledError(signal.reason));
      };
      // No options object: Deno converts one on every call, and `forget` removes the listener.
      signal.addEventListener("abort", withdraw);
      forget = () => signal.removeEventListener("abort", withdraw);
    }
    const queuedAt = performance.now();
    const deadline = options.deadline ?? queuedAt + this.#queueTimeoutMs;
    const inPlace = options.inPlace ?? true;
    const pending: Pending = {
      inputs,
      withGradient,
      inPlace,
      admitted: options.admitted ?? false,
      queuedAt,
      deadline,
      resolve,
      reject,
      forget,
    };
    // In deadline order; a newcomer usually has the latest, so the search starts at the end.
    let at = this.#pending.length;
    while (at > 0 && this.#pending[at - 1]!.deadline > deadline) at--;
    this.#pending.splice(at, 0, pending);
    if (at === 0) this.#stopExpiry(); // a new earliest deadline: re-arm
    this.#queuedRows += inputs.batch;
    if (this.#queuedRows >= this.#maxBatchRows) this.#wake?.();
    // Rows wait only behind a run under way or for the queue delay; otherwise the drain takes
    // them within this tick and no timer is needed.
    if (this.#running || this.#maxQueueDelayMs > 0) this.#armExpiry();
    this.#draining ??= this.#drain();
    return promise;
  }

  /**
   * Refuses every admitted request with `RunCancelledError(reason)`: its queued rows leave the
   * queue, and rows already in a run are computed but not awaited (a server's drain deadline).
   */
  cancelAdmitted(reason: unknown): void {
    const refused = [...this.#inRun, ...this.#pending].filter((request) => request.admitted);
    this.#pending = this.#pending.filter((request) => !request.admitted);
    this.#queuedRows = this.#pending.reduce((rows, request) => rows + request.inputs.batch, 0);
    if (this.#pending.length === 0) this.#stopExpiry();
    for (const request of refused) {
      request.forget();
      request.reject(new RunCancelledError(reason));
    }
  }

  /** Runs what is queued, then takes no more work. */
  async close(): Promise<void> {
    this.#closed = true;
    this.#wake?.();
    await this.#draining;
    this.#stopExpiry();
  }

  async #drain(): Promise<void> {
    let queuedDuringRun = false;
    while (this.#pending.length > 0) {
      // After an idle spell, requests read in the same turn join the first batch; rows queued
      // during a run go at once, so the next run computes while this thread answers the last.
      if (!queuedDuringRun) await nextTurn();
      // Requests may be withdrawn or time out while the loop waits.
      if (this.#maxQueueDelayMs > 0 && this.#pending.length > 0) await this.#delay();
      if (this.#pending.length === 0) break;
      const batch = this.#takeBatch();
      this.#running = true;
      this.#inRun = batch;
      if (this.#pending.length > 0) this.#armExpiry();
      const taken = performance.now();
      const queueSeconds = batch.map((request) => (taken - request.queuedAt) / 1000);
      // Forward rows ride along in a gradient run when there is one: one run is cheaper.
      const withGradient = batch.some((request) => request.withGradient);
      const alone = batch.length === 1 && this.#pending.length === 0 && batch[0]!.inPlace;
      try {
        const inputs = concatInputs(batch.map((p) => p.inputs));
        const outputs = await this.#execute(inputs, { withGradient, queueSeconds, alone });
        let row = 0;
        for (const request of batch) {
          const rows = request.inputs.batch;
          request.resolve(sliceOutputs(outputs, row, rows, this.#columns, request.withGradient));
          row += rows;
        }
      } catch (error) {
        for (const request of batch) request.reject(error);
      } finally {
        this.#running = false;
        this.#inRun = [];
        for (const request of batch) request.forget();
      }
      queuedDuringRun = this.#pending.length > 0;
    }
    // An idle queue holds no timer.
    this.#stopExpiry();
    this.#draining = undefined;
  }

  /** Arms the timer that refuses the queue's first rows once their deadline has passed. */
  #armExpiry(): void {
    const first = this.#pending[0];
    if (this.#expiry !== undefined || first === undefined) return;
    if (!Number.isFinite(first.deadline)) return;
    this.#expiry = setTimeout(() => {
      this.#expiry = undefined;
      this.#expire();
      this.#armExpiry();
    }, Math.max(0, first.deadline - performance.now()));
  }

  #stopExpiry(): void {
    clearTimeout(this.#expiry);
    this.#expiry = undefined;
  }

  /** Refuses every request whose deadline has passed (the earliest deadlines come first). */
  #expire(): void {
    const now = performance.now();
    while (this.#pending.length > 0) {
      const first = this.#pending[0]!;
      if (first.deadline > now) break;
      this.#pending.shift();
      this.#queuedRows -= first.inputs.batch;
      first.forget();
      first.reject(
        new ModelBusyError(
          "queue_timeout",
          `The request passed its deadline while its rows waited ${
            Math.round(now - first.queuedAt)
          } ms in the model's queue (its time-out is ${this.#queueTimeoutMs} ms)`,
        ),
      );
    }
  }

  /** Waits until the oldest request has waited `maxQueueDelayMs`, or the queue is full. */
  async #delay(): Promise<void> {
    const wait = this.#pending[0]!.queuedAt + this.#maxQueueDelayMs - performance.now();
    if (wait <= 0 || this.#queuedRows >= this.#maxBatchRows || this.#closed) return;
    const { promise, resolve } = deferred<void>();
    const timer = setTimeout(resolve, wait);
    this.#wake = resolve;
    await promise;
    clearTimeout(timer);
    this.#wake = undefined;
  }

  /** The first pending requests, in order, while they fit in `maxBatchRows` (at least one). */
  #takeBatch(): Pending[] {
    let rows = this.#pending[0]!.inputs.batch;
    let count = 1;
    while (count < this.#pending.length) {
      const next = this.#pending[count]!.inputs.batch;
      if (rows + next > this.#maxBatchRows) break;
      rows += next;
      count++;
    }
    this.#queuedRows -= rows;
    return this.#pending.splice(0, count);
  }
}

const immediate = (globalThis as { setImmediate?: (callback: () => void) => unknown }).setImmediate;

/** Resolves after the event loop's next turn (its I/O included), or after microtasks. */
function nextTurn(): Promise<void> {
  if (immediate === undefined) return Promise.resolve();
  return new Promise((resolve) => immediate(resolve));
}
