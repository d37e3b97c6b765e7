/**
 * The ONNX Runtime seam: one {@link ModelSession} wraps one `InferenceSession` of a compiled
 * net and turns id-keyed rows into the packed tensors of the graph contract (DESIGN.md §2)
 * and back.
 *
 * The runtime module is injected ({@link OrtModule}): `core/` describes only the part of
 * `onnxruntime-common`'s API it uses, and each face passes in `onnxruntime-web` (or any other
 * backend with the same API). ORT sessions are not re-entrant, so runs are serialised;
 * requests that arrive while a run is in flight are packed together into the next batched run,
 * whose results are split back per request. With a session that computes off the calling
 * thread (`core/ort_worker/`), that queue is what batches concurrent HTTP requests: they keep
 * arriving while the worker computes, and the next run takes them all (dynamic batching, as
 * Triton's). Rows with and without gradients share a run (the forward rows' gradients are
 * dropped): one gradient run over all rows measured 0.5–0.66× the time of a forward run plus a
 * gradient run for up to 64 + 64 rows (bench/README.md).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import * as ort from "onnxruntime-web";
 * import { ModelSession } from "./runtime.ts";
 * ort.env.wasm.numThreads = 1;
 * const onnxBytes = await Deno.readFile("examples/rest_serving/rest_serving.onnx");
 * await using session = await ModelSession.create(ort, onnxBytes, {
 *   places: ["p_application", "p_approved", "p_declined"],
 *   transitions: ["t_approve", "t_decline"],
 * });
 * const [row] = await session.run([{ marking: new Map([["p_application", 1]]) }], {
 *   withGradient: false,
 * });
 * // One activation per transition, in the columns' order.
 * assert.equal(row!.transitions.length, 2);
 * assert.ok(row!.transitions[0]! > 0.99);
 * ```
 *
 * @module
 */

import { deferred } from "./deferred.ts";
import { quoteId } from "./net/quote_id.ts";
import {
  type HealingPolicy,
  HealingSession,
  type HealthEvent,
  type HealthState,
} from "./healing_session.ts";
import { ModelBusyError, RunCancelledError } from "./run_errors.ts";

export type { OrtModule, OrtSession, OrtSessionOptions, OrtTensor } from "./ort_module.ts";
import type { OrtModule, OrtSession, OrtSessionOptions } from "./ort_module.ts";

/** The column order of a compiled net: its sorted place and transition ids. */
export interface NetColumns {
  /** Place ids in sorted order (the columns of `marking`, `values`, `places`, gradients). */
  readonly places: readonly string[];
  /** Transition ids in sorted order (the columns of `target` and `transitions`). */
  readonly transitions: readonly string[];
}

/**
 * One request row, keyed by ids. A supplied `marking` entry sets that place's marking and
 * marks it supplied; the same holds for `values`. `target` is the cotangent over transitions
 * for the gradient outputs (absent entries are 0).
 */
export interface InputRow {
  /** Supplied marking by place id; other places take the graph's defaults. */
  readonly marking: ReadonlyMap<string, number>;
  /** Supplied value-channel inputs by place id. */
  readonly values?: ReadonlyMap<string, number>;
  /** Cotangent by transition id (0 for absent ids); only gradient runs read it. */
  readonly target?: ReadonlyMap<string, number>;
}

/** One result row: arrays in sorted id order (see {@link NetColumns}). */
export interface OutputRow {
  /** Firing activation per transition. */
  readonly transitions: Float32Array;
  /** Place activation at the end of the pass. */
  readonly places: Float32Array;
  /**
   * Value channel per place at the end of the pass (the `place_values` output); present only
   * for gradient runs of graphs compiled with that output.
   */
  readonly placeValues?: Float32Array;
  /** Σ_t target[t] · ∂transitions[t]/∂marking; present only for gradient runs. */
  readonly gradMarking?: Float32Array;
  /** Σ_t target[t] · ∂transitions[t]/∂values; present only for gradient runs. */
  readonly gradValues?: Float32Array;
}

/**
 * Inputs of a batch of `batch` rows, packed row-major: `[batch, P]` for the place inputs and
 * `[batch, T]` for `target`.
 */
export interface PackedInputs {
  /** Number of rows. */
  readonly batch: number;
  /** The `marking` input, `[batch, P]`. */
  readonly marking: Float32Array;
  /** The `marking_mask` input: 1 where a row supplies the place's marking. */
  readonly markingMask: Float32Array;
  /** The `values` input, `[batch, P]`. */
  readonly values: Float32Array;
  /** The `values_mask` input: 1 where a row supplies the place's value. */
  readonly valuesMask: Float32Array;
  /** The `target` input, `[batch, T]`. */
  readonly target: Float32Array;
}

/** Outputs of a packed batch, row-major; the gradients only for gradient runs. */
export interface PackedOutputs {
  /** Number of rows. */
  readonly batch: number;
  /** The `transitions` output, `[batch, T]`. */
  readonly transitions: Float32Array;
  /** The `places` output, `[batch, P]`. */
  readonly places: Float32Array;
  /** The `place_values` output, `[batch, P]`; gradient runs of graphs that have it only. */
  readonly placeValues?: Float32Array;
  /** The `grad_marking` output, `[batch, P]`; gradient runs only. */
  readonly gradMarking?: Float32Array;
  /** The `grad_values` output, `[batch, P]`; gradient runs only. */
  readonly gradValues?: Float32Array;
}

/** One finished ORT run, for metrics. */
export interface RunRecord {
  /** Rows in the run. */
  readonly rows: number;
  /** Whether the run computed gradients. */
  readonly withGradient: boolean;
  /** Wall time of the ORT call, in seconds. */
  readonly seconds: number;
  /** How long each request of the run waited in the queue, in seconds. */
  readonly queueSeconds?: readonly number[];
}

/** Options of one run. */
export interface RunOptions {
  /** Compute the gradient outputs (the `with_gradient` input). */
  readonly withGradient: boolean;
  /**
   * Withdraws the rows: the run rejects at once with a `RunCancelledError` (`run_errors.ts`);
   * rows still in the queue leave it and are not computed, rows already in an ORT run are
   * computed but their results dropped.
   */
  readonly signal?: AbortSignal | undefined;
  /**
   * When the rows must have started their run, in `performance.now()` milliseconds; past it
   * they are refused with a `ModelBusyError` (`queue_timeout`). The queue is taken in deadline
   * order, so a request that gives all its runs one deadline (the server does) has its later
   * runs go before newer requests' first ones. Default: `queueTimeoutMs` after queueing.
   */
  readonly deadline?: number | undefined;
  /**
   * The rows come from a request its caller admitted under its own bound on the queue (the
   * server's admission control holds new requests back while the queue is full):
   * `maxQueueRows` refuses them only past twice the limit, so that work under way (a
   * counterfactual's refinements) is finished rather than wasted.
   */
  readonly admitted?: boolean | undefined;
}

/** The default of {@link ModelSessionOptions.maxBatchRows}. */
export const DEFAULT_MAX_BATCH_ROWS = 1024;

/** Options of {@link ModelSession.create}. */
export interface ModelSessionOptions extends HealingPolicy {
  /** Passed to `InferenceSession.create`. */
  readonly sessionOptions?: OrtSessionOptions;
  /**
   * Coalescing stops adding pending requests to a batch once it holds this many rows
   * (default 1024); a single larger request still runs as one batch.
   */
  readonly maxBatchRows?: number;
  /**
   * How long, in ms, the oldest queued request may wait for more rows once the model is free
   * (default 0: a run starts as soon as the previous one ends, with whatever is queued). A run
   * starts earlier when the queue reaches `maxBatchRows`.
   */
  readonly maxQueueDelayMs?: number;
  /**
   * Most rows waiting in the queue (default: unbounded; the server sets a bound). A run that
   * would take the queue past it is refused at once with a `ModelBusyError` (`queue_full`),
   * unless the queue is empty: a single request larger than the limit still runs.
   */
  readonly maxQueueRows?: number | undefined;
  /**
   * How long rows may wait in the queue before they are refused with a `ModelBusyError`
   * (`queue_timeout`), in ms (default: forever; the server sets a deadline).
   */
  readonly queueTimeoutMs?: number | undefined;
}

/** The queue's bounds (see {@link ModelSessionOptions}); set by {@link ModelSession.limitQueue}. */
export type QueueLimits = Pick<ModelSessionOptions, "maxQueueRows" | "queueTimeoutMs">;

interface Pending {
  readonly inputs: PackedInputs;
  readonly withGradient: boolean;
  readonly queuedAt: number;
  /** When the rows must have started their run (the queue is sorted by it). */
  readonly deadline: number;
  readonly resolve: (outputs: PackedOutputs) => void;
  readonly reject: (error: unknown) => void;
  /** Stops listening to the caller's signal. */
  readonly forget: () => void;
}

/**
 * A loaded compiled net, ready to run batches. Create it with {@link ModelSession.create};
 * release it with `await using` or `[Symbol.asyncDispose]()`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import * as ort from "onnxruntime-web";
 * import { ModelSession } from "./runtime.ts";
 * const onnxBytes = await Deno.readFile("examples/rest_serving/rest_serving.onnx");
 * await using session = await ModelSession.create(ort, onnxBytes, {
 *   places: ["p_application", "p_approved", "p_declined"],
 *   transitions: ["t_approve", "t_decline"],
 * });
 * const rows = await session.run([
 *   { marking: new Map([["p_application", 0.2]]) },
 *   { marking: new Map([["p_application", 0.5]]), target: new Map([["t_approve", 1]]) },
 * ], { withGradient: true });
 * // ∂t_approve/∂marking per place: positive for the application near the threshold.
 * assert.ok(rows[1]!.gradMarking![0]! > 1);
 * ```
 */
export class ModelSession implements AsyncDisposable {
  /** Place ids in column order. */
  readonly places: readonly string[];
  /** Transition ids in column order. */
  readonly transitions: readonly string[];
  /** Column of each place id. */
  readonly placeIndex: ReadonlyMap<string, number>;
  /** Column of each transition id. */
  readonly transitionIndex: ReadonlyMap<string, number>;
  /** Number of ORT runs so far (the warm-up included), for tests and metrics. */
  get runCount(): number {
    return this.#runs;
  }

  /** Rows waiting for the next run (not counting the run in flight). */
  get queuedRows(): number {
    return this.#queuedRows;
  }

  /** The queue's bounds now (see {@link ModelSession.limitQueue}). */
  get queueLimits(): Required<QueueLimits> {
    return { maxQueueRows: this.#maxQueueRows, queueTimeoutMs: this.#queueTimeoutMs };
  }

  /**
   * Calls `observer` after every ORT run; returns a function that stops it.
   *
   * @example
   * ```ts
   * import assert from "node:assert/strict";
   * import * as ort from "onnxruntime-web";
   * import { ModelSession, type RunRecord } from "./runtime.ts";
   * const onnxBytes = await Deno.readFile("examples/rest_serving/rest_serving.onnx");
   * await using session = await ModelSession.create(ort, onnxBytes, {
   *   places: ["p_application", "p_approved", "p_declined"],
   *   transitions: ["t_approve", "t_decline"],
   * });
   * const runs: RunRecord[] = [];
   * const stop = session.observe((run) => runs.push(run));
   * await session.run([{ marking: new Map() }, { marking: new Map() }], { withGradient: false });
   * stop();
   * await session.run([{ marking: new Map() }], { withGradient: false });
   * // Only the run made while observing was seen.
   * assert.deepEqual(runs.map((run) => [run.rows, run.withGradient]), [[2, false]]);
   * ```
   */
  observe(observer: (run: RunRecord) => void): () => void {
    this.#observers.add(observer);
    return () => this.#observers.delete(observer);
  }

  /**
   * `"ready"`, `"restarting"` (a run failed; a new ORT session is being opened, and runs are
   * refused meanwhile) or `"failed"` (it could not be reopened; runs are refused for good).
   */
  get state(): HealthState {
    return this.#healing.state;
  }

  /** ORT sessions opened after failed runs since the first one. */
  get restarts(): number {
    return this.#healing.restarts;
  }

  /**
   * Calls `listener` with each step of a burst of failed runs (see `healing_session.ts`);
   * returns a function that stops it.
   *
   * @example
   * ```ts
   * import assert from "node:assert/strict";
   * import * as ort from "onnxruntime-web";
   * import { ModelSession } from "./runtime.ts";
   * const onnxBytes = await Deno.readFile("examples/rest_serving/rest_serving.onnx");
   * await using session = await ModelSession.create(ort, onnxBytes, {
   *   places: ["p_application", "p_approved", "p_declined"],
   *   transitions: ["t_approve", "t_decline"],
   * });
   * const stop = session.onHealth((event) => console.error(event.kind));
   * stop();
   * assert.equal(session.state, "ready");
   * ```
   */
  onHealth(listener: (event: HealthEvent) => void): () => void {
    return this.#healing.onHealth(listener);
  }

  /**
   * Sets the queue's bounds for the runs queued from now on (an absent one is left as it
   * is): the HTTP server bounds a model's queue this way (`server/app.ts`).
   *
   * @example
   * ```ts
   * import assert from "node:assert/strict";
   * import * as ort from "onnxruntime-web";
   * import { ModelSession } from "./runtime.ts";
   * const onnxBytes = await Deno.readFile("examples/rest_serving/rest_serving.onnx");
   * await using session = await ModelSession.create(ort, onnxBytes, {
   *   places: ["p_application", "p_approved", "p_declined"],
   *   transitions: ["t_approve", "t_decline"],
   * });
   * session.limitQueue({ maxQueueRows: 1 });
   * const rows = [{ marking: new Map() }, { marking: new Map() }];
   * const first = session.run(rows, { withGradient: false }); // an empty queue takes any size
   * await assert.rejects(session.run(rows, { withGradient: false }), { reason: "queue_full" });
   * assert.equal((await first).length, 2);
   * ```
   */
  limitQueue(limits: QueueLimits): void {
    for (const [name, value] of Object.entries(limits)) {
      if (value !== undefined && !(typeof value === "number" && value > 0)) {
        throw new RangeError(`${name} must be a positive number, got ${value}`);
      }
    }
    this.#maxQueueRows = limits.maxQueueRows ?? this.#maxQueueRows;
    this.#queueTimeoutMs = limits.queueTimeoutMs ?? this.#queueTimeoutMs;
  }

  readonly #ort: OrtModule;
  #healing!: HealingSession;
  readonly #observers = new Set<(run: RunRecord) => void>();
  readonly #maxBatchRows: number;
  readonly #maxQueueDelayMs: number;
  #maxQueueRows: number;
  #queueTimeoutMs: number;
  #hasGradient = false;
  #pending: Pending[] = [];
  #queuedRows = 0;
  /** Ends a queue delay early (the queue is full, or the session is being released). */
  #wake: (() => void) | undefined;
  /** Refuses the queue's oldest rows when they have waited `queueTimeoutMs`. */
  #expiry: ReturnType<typeof setTimeout> | undefined;
  #draining: Promise<void> | undefined;
  /** Whether a run of the drain is under way (rows queued meanwhile wait for it). */
  #running = false;
  #runs = 0;
  #released = false;

  private constructor(ort: OrtModule, columns: NetColumns, options: ModelSessionOptions) {
    this.#ort = ort;
    this.#maxBatchRows = options.maxBatchRows ?? DEFAULT_MAX_BATCH_ROWS;
    this.#maxQueueDelayMs = options.maxQueueDelayMs ?? 0;
    this.#maxQueueRows = options.maxQueueRows ?? Infinity;
    this.#queueTimeoutMs = options.queueTimeoutMs ?? Infinity;
    this.places = [...columns.places];
    this.transitions = [...columns.transitions];
    this.placeIndex = new Map(this.places.map((id, i) => [id, i]));
    this.transitionIndex = new Map(this.transitions.map((id, i) => [id, i]));
  }

  /**
   * Creates the ORT session for `bytes` and runs it once on an empty row, so the first real
   * request does not pay ORT's lazy initialisation. After a failed run the session is opened
   * again the same way (`options` holds the policy: `maxRestartAttempts`, `restartBackoffMs`,
   * `runTimeoutMs`).
   *
   * @example
   * ```ts
   * import assert from "node:assert/strict";
   * import * as ort from "onnxruntime-web";
   * import { ModelSession } from "./runtime.ts";
   * const onnxBytes = await Deno.readFile("examples/rest_serving/rest_serving.onnx");
   * await using session = await ModelSession.create(ort, onnxBytes, {
   *   places: ["p_application", "p_approved", "p_declined"],
   *   transitions: ["t_approve", "t_decline"],
   * });
   * assert.equal(session.placeIndex.get("p_declined"), 2);
   * // Columns that do not fit the graph are refused.
   * await assert.rejects(ModelSession.create(ort, onnxBytes, { places: ["p"], transitions: [] }));
   * ```
   */
  static async create(
    ort: OrtModule,
    bytes: Uint8Array,
    columns: NetColumns,
    options: ModelSessionOptions = {},
  ): Promise<ModelSession> {
    const model = new ModelSession(ort, columns, options);
    const warmRow = model.pack([{ marking: new Map() }]);
    const open = async (): Promise<OrtSession> => {
      const session = await ort.InferenceSession.create(bytes, options.sessionOptions);
      try {
        // Straight to ORT: nothing else is queued yet, and the warm-up must not sit out a delay.
        await model.#runOn(session, warmRow, {
          withGradient: session.outputNames.includes("grad_marking"),
        }, false);
      } catch (error) {
        await session.release().catch(() => {});
        throw error;
      }
      return session;
    };
    model.#healing = await HealingSession.open(open, options);
    model.#hasGradient = model.#healing.outputNames.includes("grad_marking");
    return model;
  }

  /**
   * Runs `rows` as one batch (together with any requests pending at the same time) and
   * returns one output row per input row, in order.
   *
   * @throws {Error} when a row names an id that is not a place (marking, values) or a
   * transition (target) of the net; callers validate requests first.
   *
   * @example
   * ```ts
   * import assert from "node:assert/strict";
   * import * as ort from "onnxruntime-web";
   * import { ModelSession } from "./runtime.ts";
   * const onnxBytes = await Deno.readFile("examples/rest_serving/rest_serving.onnx");
   * await using session = await ModelSession.create(ort, onnxBytes, {
   *   places: ["p_application", "p_approved", "p_declined"],
   *   transitions: ["t_approve", "t_decline"],
   * });
   * const rows = await session.run([{ marking: new Map([["p_application", 1]]) }, {
   *   marking: new Map([["p_application", 0]]),
   * }], { withGradient: false });
   * assert.ok(rows[0]!.transitions[0]! > rows[1]!.transitions[0]!);
   * ```
   */
  async run(rows: readonly InputRow[], options: RunOptions): Promise<OutputRow[]> {
    const packed = this.pack(rows);
    if (rows.length === 0) return [];
    return this.unpack(await this.runPacked(packed, options));
  }

  /**
   * Runs an already packed batch; it joins the same queue (and may share an ORT call) as
   * {@link ModelSession.run}. Array lengths must be `batch × P` (place inputs) and
   * `batch × T` (`target`). Internal: the packed layout is not part of the package's API.
   *
   * @internal
   *
   * @example
   * ```ts
   * import assert from "node:assert/strict";
   * import * as ort from "onnxruntime-web";
   * import { ModelSession } from "./runtime.ts";
   * const onnxBytes = await Deno.readFile("examples/rest_serving/rest_serving.onnx");
   * await using session = await ModelSession.create(ort, onnxBytes, {
   *   places: ["p_application", "p_approved", "p_declined"],
   *   transitions: ["t_approve", "t_decline"],
   * });
   * const P = session.places.length, T = session.transitions.length, batch = 2;
   * const out = await session.runPacked({
   *   batch,
   *   marking: new Float32Array(batch * P),
   *   markingMask: new Float32Array(batch * P),
   *   values: new Float32Array(batch * P),
   *   valuesMask: new Float32Array(batch * P),
   *   target: new Float32Array(batch * T),
   * }, { withGradient: false });
   * assert.equal(out.transitions.length, batch * T);
   * ```
   */
  runPacked(inputs: PackedInputs, options: RunOptions): Promise<PackedOutputs> {
    try {
      this.#checkPacked(inputs);
    } catch (error) {
      return Promise.reject(error);
    }
    if (this.#released) {
      return Promise.reject(new Error("Cannot run the model: its session has been released"));
    }
    const { withGradient, signal } = options;
    if (signal?.aborted) return Promise.reject(new RunCancelledError(signal.reason));
    if (withGradient && !this.#hasGradient) {
      return Promise.reject(new Error("Cannot run the model: it has no gradient outputs"));
    }
    const refusal = this.#healing.refusal();
    if (refusal) return Promise.reject(refusal);
    if (inputs.batch === 0) return Promise.resolve(emptyOutputs(withGradient));
    const queued = this.#queuedRows;
    const limit = options.admitted ? 2 * this.#maxQueueRows : this.#maxQueueRows;
    if (queued > 0 && queued + inputs.batch > limit) {
      return Promise.reject(
        new ModelBusyError(
          "queue_full",
          `The model's queue is full: ${queued} rows wait, ${inputs.batch} more would pass ` +
            `its limit of ${limit} rows`,
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
      signal.addEventListener("abort", withdraw, { once: true });
      forget = () => signal.removeEventListener("abort", withdraw);
    }
    const queuedAt = performance.now();
    const deadline = options.deadline ?? queuedAt + this.#queueTimeoutMs;
    const pending: Pending = { inputs, withGradient, queuedAt, deadline, resolve, reject, forget };
    // In deadline order; a newcomer usually has the latest, so the search starts at the end.
    let at = this.#pending.length;
    while (at > 0 && this.#pending[at - 1]!.deadline > deadline) at--;
    this.#pending.splice(at, 0, pending);
    if (at === 0) this.#stopExpiry(); // a new earliest deadline: re-arm
    this.#queuedRows += inputs.batch;
    if (this.#queuedRows >= this.#maxBatchRows) this.#wake?.();
    // Rows wait only behind a run under way or for the queue delay; otherwise the drain takes
    // them within this tick and no timer is needed (a setTimeout and a clearTimeout a request
    // showed in the serving thread's profile).
    if (this.#running || this.#maxQueueDelayMs > 0) this.#armExpiry();
    this.#draining ??= this.#drain();
    return promise;
  }

  /**
   * Packs id-keyed rows into the graph's input arrays.
   *
   * @throws {Error} naming the row and the unknown id.
   *
   * @internal
   *
   * @example
   * ```ts
   * import assert from "node:assert/strict";
   * import * as ort from "onnxruntime-web";
   * import { ModelSession } from "./runtime.ts";
   * const onnxBytes = await Deno.readFile("examples/rest_serving/rest_serving.onnx");
   * await using session = await ModelSession.create(ort, onnxBytes, {
   *   places: ["p_application", "p_approved", "p_declined"],
   *   transitions: ["t_approve", "t_decline"],
   * });
   * const packed = session.pack([{ marking: new Map([["p_application", 1]]) }]);
   * assert.deepEqual([...packed.markingMask], [1, 0, 0]);
   * assert.throws(() => session.pack([{ marking: new Map([["p_x", 1]]) }]));
   * ```
   */
  pack(rows: readonly InputRow[]): PackedInputs {
    const P = this.places.length;
    const T = this.transitions.length;
    const batch = rows.length;
    const packed = packedArrays(batch, P, T);
    rows.forEach((row, r) => {
      const places = this.placeIndex;
      fillRow(row.marking, r, "marking", places, "place", packed.marking, packed.markingMask);
      fillRow(row.values, r, "values", places, "place", packed.values, packed.valuesMask);
      fillRow(row.target, r, "target", this.transitionIndex, "transition", packed.target);
    });
    return packed;
  }

  /**
   * Splits packed outputs into one row per batch entry (views into the packed arrays).
   *
   * @internal
   *
   * @example
   * ```ts
   * import assert from "node:assert/strict";
   * import * as ort from "onnxruntime-web";
   * import { ModelSession } from "./runtime.ts";
   * const onnxBytes = await Deno.readFile("examples/rest_serving/rest_serving.onnx");
   * await using session = await ModelSession.create(ort, onnxBytes, {
   *   places: ["p_application", "p_approved", "p_declined"],
   *   transitions: ["t_approve", "t_decline"],
   * });
   * const packed = session.pack([0, 0.5, 1].map((x) => ({ marking: new Map([["p_application", x]]) })));
   * const outputs = await session.runPacked(packed, { withGradient: false });
   * assert.equal(session.unpack(outputs).length, 3);
   * ```
   */
  unpack(outputs: PackedOutputs): OutputRow[] {
    const P = this.places.length;
    const T = this.transitions.length;
    const rows: OutputRow[] = [];
    for (let r = 0; r < outputs.batch; r++) {
      const transitions = outputs.transitions.subarray(r * T, (r + 1) * T);
      const places = outputs.places.subarray(r * P, (r + 1) * P);
      const placeValues = outputs.placeValues?.subarray(r * P, (r + 1) * P);
      const forward = placeValues ? { transitions, places, placeValues } : { transitions, places };
      rows.push(
        outputs.gradMarking && outputs.gradValues
          ? {
            ...forward,
            gradMarking: outputs.gradMarking.subarray(r * P, (r + 1) * P),
            gradValues: outputs.gradValues.subarray(r * P, (r + 1) * P),
          }
          : forward,
      );
    }
    return rows;
  }

  /**
   * Waits for queued runs to finish, then releases the ORT session. Later runs reject.
   *
   * @example
   * ```ts
   * import assert from "node:assert/strict";
   * import * as ort from "onnxruntime-web";
   * import { ModelSession } from "./runtime.ts";
   * const onnxBytes = await Deno.readFile("examples/rest_serving/rest_serving.onnx");
   * const session = await ModelSession.create(ort, onnxBytes, {
   *   places: ["p_application", "p_approved", "p_declined"],
   *   transitions: ["t_approve", "t_decline"],
   * });
   * await session[Symbol.asyncDispose]();
   * await assert.rejects(session.run([{ marking: new Map() }], { withGradient: false }), {
   *   message: "Cannot run the model: its session has been released",
   * });
   * ```
   */
  async [Symbol.asyncDispose](): Promise<void> {
    if (this.#released) return;
    this.#released = true;
    this.#wake?.();
    await this.#draining;
    this.#stopExpiry();
    await this.#healing.release();
  }

  #checkPacked(inputs: PackedInputs): void {
    const P = this.places.length;
    const T = this.transitions.length;
    const { batch } = inputs;
    if (!Number.isInteger(batch) || batch < 0) {
      throw new Error(`Cannot run the model: batch must be an integer >= 0, got ${batch}`);
    }
    const sizes: [string, Float32Array, number][] = [
      ["marking", inputs.marking, P],
      ["markingMask", inputs.markingMask, P],
      ["values", inputs.values, P],
      ["valuesMask", inputs.valuesMask, P],
      ["target", inputs.target, T],
    ];
    for (const [name, data, width] of sizes) {
      if (data.length !== batch * width) {
        throw new Error(
          `Cannot run the model: ${name} holds ${data.length} numbers, expected ${batch} × ${width}`,
        );
      }
    }
  }

  async #drain(): Promise<void> {
    while (this.#pending.length > 0) {
      // Let requests made in the same tick join this batch.
      await Promise.resolve();
      // Requests may be withdrawn or time out while the loop waits.
      if (this.#maxQueueDelayMs > 0 && this.#pending.length > 0) await this.#delay();
      if (this.#pending.length === 0) break;
      const batch = this.#takeBatch();
      // Rows left for a later run wait behind this one.
      this.#running = true;
      if (this.#pending.length > 0) this.#armExpiry();
      const taken = performance.now();
      const queueSeconds = batch.map((request) => (taken - request.queuedAt) / 1000);
      // Forward rows ride along in a gradient run when there is one (see the module doc).
      const withGradient = batch.some((request) => request.withGradient);
      try {
        const inputs = concatInputs(batch.map((p) => p.inputs));
        const outputs = await this.#healing.run((session) =>
          this.#runOn(session, inputs, { withGradient }, queueSeconds)
        );
        let row = 0;
        for (const request of batch) {
          const rows = request.inputs.batch;
          request.resolve(sliceOutputs(outputs, row, rows, this, request.withGradient));
          row += rows;
        }
      } catch (error) {
        for (const request of batch) request.reject(error);
      } finally {
        this.#running = false;
        for (const request of batch) request.forget();
      }
    }
    // The expiry timer outlives an emptied queue while runs follow one another (re-arming it
    // for every run cost more than the run's other bookkeeping); an idle session holds none.
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
    if (wait <= 0 || this.#queuedRows >= this.#maxBatchRows || this.#released) return;
    const { promise, resolve } = deferred<void>();
    const timer = setTimeout(resolve, wait);
    this.#wake = resolve;
    await promise;
    clearTimeout(timer);
    this.#wake = undefined;
  }

  /** The oldest pending requests, in order, while they fit in `maxBatchRows` (at least one). */
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

  /**
   * One ORT run of `inputs` on `session`; observers see it unless `queueSeconds` is `false`
   * (the warm-up runs).
   */
  async #runOn(
    session: OrtSession,
    inputs: PackedInputs,
    options: RunOptions,
    queueSeconds: readonly number[] | false,
  ): Promise<PackedOutputs> {
    const { Tensor } = this.#ort;
    const P = this.places.length;
    const T = this.transitions.length;
    const B = inputs.batch;
    const feeds = {
      marking: new Tensor("float32", inputs.marking, [B, P]),
      marking_mask: new Tensor("float32", inputs.markingMask, [B, P]),
      values: new Tensor("float32", inputs.values, [B, P]),
      values_mask: new Tensor("float32", inputs.valuesMask, [B, P]),
      target: new Tensor("float32", inputs.target, [B, T]),
      with_gradient: new Tensor("bool", [options.withGradient], []),
    };
    this.#runs++;
    const started = performance.now();
    const result = await session.run(feeds);
    if (queueSeconds !== false) {
      const record: RunRecord = {
        rows: B,
        withGradient: options.withGradient,
        seconds: (performance.now() - started) / 1000,
        queueSeconds,
      };
      for (const observer of this.#observers) observer(record);
    }
    const read = (name: string): Float32Array | undefined => {
      const data = result[name]?.data;
      return data instanceof Float32Array ? data : undefined;
    };
    const transitions = read("transitions");
    const places = read("places");
    if (transitions === undefined || places === undefined) {
      throw new Error("Cannot run the model: the graph did not return transitions and places");
    }
    const forward = { batch: B, transitions, places };
    const gradMarking = options.withGradient ? read("grad_marking") : undefined;
    const gradValues = options.withGradient ? read("grad_values") : undefined;
    const placeValues = options.withGradient ? read("place_values") : undefined;
    if (!gradMarking || !gradValues) return forward;
    const gradients = { ...forward, gradMarking, gradValues };
    return placeValues ? { ...gradients, placeValues } : gradients;
  }
}

/** Writes one row's id-keyed entries into its columns (and marks them supplied). */
function fillRow(
  entries: ReadonlyMap<string, number> | undefined,
  row: number,
  field: string,
  index: ReadonlyMap<string, number>,
  kind: string,
  data: Float32Array,
  mask?: Float32Array,
): void {
  for (const [id, value] of entries ?? []) {
    const column = index.get(id);
    if (column === undefined) {
      throw new Error(
        `Cannot run the model: row ${row} ${field} names ${quoteId(id)}, ` +
          `which is not a ${kind} of the net`,
      );
    }
    const at = row * index.size + column;
    data[at] = value;
    if (mask) mask[at] = 1;
  }
}

function emptyOutputs(withGradient: boolean): PackedOutputs {
  const empty = new Float32Array(0);
  return withGradient
    ? { batch: 0, transitions: empty, places: empty, gradMarking: empty, gradValues: empty }
    : { batch: 0, transitions: empty, places: empty };
}

/**
 * Zeroed input arrays for `batch` rows, all views of one buffer: one allocation instead of five
 * (allocating array buffers showed in the serving thread's profile).
 */
function packedArrays(batch: number, P: number, T: number): PackedInputs {
  const all = new Float32Array(batch * (4 * P + T));
  const part = (k: number, width: number) =>
    all.subarray(k * batch * P, k * batch * P + batch * width);
  return {
    batch,
    marking: part(0, P),
    markingMask: part(1, P),
    values: part(2, P),
    valuesMask: part(3, P),
    target: part(4, T),
  };
}

function concatInputs(parts: readonly PackedInputs[]): PackedInputs {
  if (parts.length === 1) return parts[0]!;
  const P = parts[0]!.marking.length / parts[0]!.batch;
  const T = parts[0]!.target.length / parts[0]!.batch;
  const out = packedArrays(parts.reduce((n, p) => n + p.batch, 0), P, T);
  const fields = ["marking", "markingMask", "values", "valuesMask", "target"] as const;
  for (const field of fields) {
    let at = 0;
    for (const part of parts) {
      out[field].set(part[field], at);
      at += part[field].length;
    }
  }
  return out;
}

/**
 * Rows `start` to `start + batch` of `outputs`, with the gradient branch's outputs (gradients
 * and `placeValues`) only when `withGradient`: a forward request that rode in a gradient run
 * gets what a forward run gives.
 */
function sliceOutputs(
  outputs: PackedOutputs,
  start: number,
  batch: number,
  columns: NetColumns,
  withGradient: boolean,
): PackedOutputs {
  const hasGradient = outputs.gradMarking !== undefined;
  if (start === 0 && batch === outputs.batch && hasGradient === withGradient) return outputs;
  const P = columns.places.length;
  const T = columns.transitions.length;
  const rows = (data: Float32Array, width: number): Float32Array =>
    data.subarray(start * width, (start + batch) * width);
  const base = {
    batch,
    transitions: rows(outputs.transitions, T),
    places: rows(outputs.places, P),
    ...(withGradient && outputs.placeValues ? { placeValues: rows(outputs.placeValues, P) } : {}),
  };
  return withGradient && outputs.gradMarking && outputs.gradValues
    ? {
      ...base,
      gradMarking: rows(outputs.gradMarking, P),
      gradValues: rows(outputs.gradValues, P),
    }
    : base;
}
