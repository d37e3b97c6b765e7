/**
 * A compiled net's ORT session as the package runs it: {@link ModelSession} ties the queue,
 * the packed layout and the healing session together. The runtime is injected (onnxruntime-web,
 * onnxruntime-node or a worker proxy); with a worker, an optional module on this thread runs
 * small batches at low load with no hop.
 *
 * @module
 */

import {
  checkPacked,
  emptyOutputs,
  indexColumns,
  type InputRow,
  type NetColumns,
  type OutputRow,
  type PackedInputs,
  type PackedOutputs,
  packRows,
  unpackRows,
} from "./codec.ts";
import {
  type HealingPolicy,
  HealingSession,
  type HealthEvent,
  type HealthState,
} from "./healing.ts";
import { RunCancelledError } from "./errors.ts";
import type { OrtModule, OrtSession, OrtSessionOptions, OrtTensor } from "./ort_module.ts";
import { type BatchInfo, type RunOptions, Scheduler, type SchedulerOptions } from "./scheduler.ts";

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
  /** Whether it ran on this thread ({@link ModelSessionOptions.inPlace}). */
  readonly inPlace?: boolean;
}

/** Options of {@link ModelSession.create}. */
export interface ModelSessionOptions extends HealingPolicy, SchedulerOptions {
  /** Passed to `InferenceSession.create`. */
  readonly sessionOptions?: OrtSessionOptions;
  /**
   * A runtime on this thread beside a worker proxy: a lone batch of at most
   * {@link IN_PLACE_MAX_ROWS} rows runs here, saving the hop while nothing else needs the thread.
   */
  readonly inPlace?: OrtModule | undefined;
}

/** The most rows of a batch run in place. */
export const IN_PLACE_MAX_ROWS = 16;
/** In-place runs stop once they average more than this many ms (they would hold the thread). */
export const IN_PLACE_MAX_MS = 0.5;

/** The session of the injected runtime and, optionally, one on this thread. */
interface Sessions extends OrtSession {
  readonly remote: OrtSession;
  readonly local: OrtSession | undefined;
}

/**
 * A loaded compiled net, ready to run batches; release it with `await using`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import * as ort from "onnxruntime-web";
 * import { ModelSession } from "./session.ts";
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
  /** The queue: its rows, its bounds, whether it has room (`scheduler.ts`). */
  readonly queue: Scheduler;

  readonly #ort: OrtModule;
  readonly #inPlace: OrtModule | undefined;
  #healing!: HealingSession<Sessions>;
  readonly #observers = new Set<(run: RunRecord) => void>();
  #hasGradient = false;
  /** Average ms of recent in-place runs. */
  #inPlaceMs = 0;
  #runs = 0;
  #released = false;

  private constructor(ort: OrtModule, columns: NetColumns, options: ModelSessionOptions) {
    this.#ort = ort;
    this.#inPlace = options.inPlace;
    const indexed = indexColumns(columns);
    this.places = indexed.places;
    this.transitions = indexed.transitions;
    this.placeIndex = indexed.placeIndex;
    this.transitionIndex = indexed.transitionIndex;
    this.queue = new Scheduler(indexed, (inputs, info) => this.#execute(inputs, info), options);
  }

  /** Number of ORT runs so far (the warm-up included), for tests and metrics. */
  get runCount(): number {
    return this.#runs;
  }

  /** `"ready"`, `"restarting"` (runs refused while a session reopens) or `"failed"` (for good). */
  get state(): HealthState {
    return this.#healing.state;
  }

  /** ORT sessions opened after failed runs since the first one. */
  get restarts(): number {
    return this.#healing.restarts;
  }

  /**
   * Calls `observer` after every ORT run; returns a function that stops it.
   *
   * @example
   * ```ts
   * import assert from "node:assert/strict";
   * import * as ort from "onnxruntime-web";
   * import { ModelSession, type RunRecord } from "./session.ts";
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

  /** Calls `listener` with each step of a burst of failed runs; returns a function that stops it. */
  onHealth(listener: (event: HealthEvent) => void): () => void {
    return this.#healing.onHealth(listener);
  }

  /**
   * Creates the ORT session for `bytes` (and the in-place one) and runs it once on an empty
   * row, so the first request does not pay ORT's lazy initialisation.
   */
  static async create(
    ort: OrtModule,
    bytes: Uint8Array,
    columns: NetColumns,
    options: ModelSessionOptions = {},
  ): Promise<ModelSession> {
    const model = new ModelSession(ort, columns, options);
    const warmRow = packRows(model, [{ marking: new Map() }]);
    const warm = async (module: OrtModule, session: OrtSession) => {
      try {
        await model.#runOn(module, session, warmRow, {
          withGradient: session.outputNames.includes("grad_marking"),
        }, false);
      } catch (error) {
        await session.release().catch(() => {});
        throw error;
      }
    };
    const open = async (): Promise<Sessions> => {
      // Both compile at once: the worker's on its thread while this thread makes its own.
      const [made, madeHere] = await Promise.allSettled([
        ort.InferenceSession.create(bytes, options.sessionOptions),
        options.inPlace?.InferenceSession.create(bytes, options.sessionOptions),
      ]);
      if (made.status === "rejected" || madeHere.status === "rejected") {
        if (made.status === "fulfilled") await made.value.release().catch(() => {});
        if (madeHere.status === "fulfilled") await madeHere.value?.release().catch(() => {});
        throw made.status === "rejected" ? made.reason : (madeHere as PromiseRejectedResult).reason;
      }
      const remote = made.value;
      const local = madeHere.value;
      try {
        await warm(ort, remote);
      } catch (error) {
        await local?.release().catch(() => {});
        throw error;
      }
      if (local !== undefined) {
        try {
          await warm(options.inPlace!, local);
        } catch (error) {
          await remote.release().catch(() => {});
          throw error;
        }
      }
      return {
        remote,
        local,
        outputNames: remote.outputNames,
        run: (feeds) => remote.run(feeds),
        release: async () => {
          await Promise.all([remote.release(), local?.release()]);
        },
      };
    };
    model.#healing = await HealingSession.open(open, options);
    model.#hasGradient = model.#healing.outputNames.includes("grad_marking");
    return model;
  }

  /**
   * Runs `rows` as one batch (with any requests queued meanwhile); one output row per input row.
   *
   * @throws {Error} when a row names an id the net does not have; callers validate requests first.
   */
  async run(rows: readonly InputRow[], options: RunOptions): Promise<OutputRow[]> {
    const packed = packRows(this, rows);
    if (rows.length === 0) return [];
    return unpackRows(this, await this.runPacked(packed, options));
  }

  /** Runs an already packed batch through the same queue: arrays of `batch × P` and `batch × T`. */
  runPacked(inputs: PackedInputs, options: RunOptions): Promise<PackedOutputs> {
    try {
      checkPacked(this, inputs);
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
    return this.queue.enqueue(inputs, options);
  }

  /** Waits for queued runs to finish, then releases the ORT sessions. Later runs reject. */
  async [Symbol.asyncDispose](): Promise<void> {
    if (this.#released) return;
    this.#released = true;
    await this.queue.close();
    await this.#healing.release();
  }

  /** One batch of the queue, on this thread when it is small and alone (see `inPlace`). */
  #execute(inputs: PackedInputs, info: BatchInfo): Promise<PackedOutputs> {
    const { withGradient, queueSeconds } = info;
    const eligible = info.alone && this.#inPlace !== undefined && inputs.batch <= IN_PLACE_MAX_ROWS;
    const here = eligible && this.#inPlaceMs <= IN_PLACE_MAX_MS;
    // The average decays while in-place runs are skipped, so a slow spell does not stop them for good.
    if (eligible && !here) this.#inPlaceMs *= 0.9;
    return this.#healing.run(({ remote, local }) => {
      if (here && local !== undefined) {
        return this.#runOn(this.#inPlace!, local, inputs, { withGradient }, queueSeconds);
      }
      return this.#runOn(this.#ort, remote, inputs, { withGradient }, queueSeconds);
    });
  }

  async #runOn(
    module: OrtModule,
    session: OrtSession,
    inputs: PackedInputs,
    options: RunOptions,
    queueSeconds: readonly number[] | false,
  ): Promise<PackedOutputs> {
    const { Tensor } = module;
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
    const ms = performance.now() - started;
    const inPlace = module === this.#inPlace;
    // The warm-up (no queueSeconds) pays ORT's lazy start-up: it says nothing of later runs.
    if (inPlace && queueSeconds !== false) this.#inPlaceMs = 0.9 * this.#inPlaceMs + 0.1 * ms;
    if (queueSeconds !== false) {
      const record: RunRecord = {
        rows: B,
        withGradient: options.withGradient,
        seconds: ms / 1000,
        queueSeconds,
        inPlace,
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

export type { OrtModule, OrtSession, OrtSessionOptions, OrtTensor };
