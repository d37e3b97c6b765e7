/**
 * The packed layout of the graph contract: rows of id-keyed maps packed into the `[batch, P]`
 * and `[batch, T]` float arrays a run takes, and its outputs sliced back per request.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { packRows, unpackRows } from "./codec.ts";
 * const columns = { places: ["p_a", "p_b"], transitions: ["t"] };
 * const packed = packRows(columns, [{ marking: new Map([["p_b", 0.5]]) }]);
 * assert.deepEqual([...packed.marking, ...packed.markingMask], [0, 0.5, 0, 1]);
 * const [row] = unpackRows(columns, { batch: 1, transitions: new Float32Array([0.5]), places: packed.marking });
 * assert.deepEqual([...row!.transitions], [0.5]);
 * ```
 *
 * @module
 */

import { quoteId } from "../net/quote_id.ts";
import { freshFloats } from "./fresh_floats.ts";

/** The column order of a compiled net: its sorted place and transition ids. */
export interface NetColumns {
  /** Place ids in sorted order (the columns of `marking`, `values`, `places`, gradients). */
  readonly places: readonly string[];
  /** Transition ids in sorted order (the columns of `target` and `transitions`). */
  readonly transitions: readonly string[];
}

/** One request row, keyed by ids: supplied markings and values, and the gradient's cotangent. */
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
  /** Value channel per place at the end of the pass; gradient runs of graphs that have it. */
  readonly placeValues?: Float32Array;
  /** Σ_t target[t] · ∂transitions[t]/∂marking; present only for gradient runs. */
  readonly gradMarking?: Float32Array;
  /** Σ_t target[t] · ∂transitions[t]/∂values; present only for gradient runs. */
  readonly gradValues?: Float32Array;
}

/** Inputs of `batch` rows, packed row-major: `[batch, P]` per place input, `[batch, T]` target. */
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

/** Options of one run. */
export interface RunOptions {
  /** Compute the gradient outputs (the `with_gradient` input). */
  readonly withGradient: boolean;
  /**
   * Withdraws the rows: the run rejects at once with a `RunCancelledError`; queued rows are
   * not computed, rows already in a run are but their results are dropped.
   */
  readonly signal?: AbortSignal | undefined;
  /**
   * When the rows must have started their run, in `performance.now()` milliseconds; past it
   * they are refused with a `ModelBusyError` (`queue_timeout`). A request that gives all its
   * runs one deadline (the server does) has its later runs go before newer requests' first
   * ones. Default: `queueTimeoutMs` after queueing.
   */
  readonly deadline?: number | undefined;
  /**
   * The rows come from a request admitted under the queue's bound (`Scheduler.hasRoom`):
   * they are refused only past twice `maxQueueRows`, so that work under way (a counterfactual's
   * refinements) is finished rather than wasted.
   */
  readonly admitted?: boolean | undefined;
  /**
   * Whether the rows may run on the calling thread when they are the only work queued (a
   * session with an `inPlace` runtime); a server says no while other requests are in flight,
   * so that their runs share the worker's batches.
   *
   * @default {true}
   */
  readonly inPlace?: boolean | undefined;
}

/** Net columns with the column of each id. */
export interface IndexedColumns extends NetColumns {
  /** Column of each place id. */
  readonly placeIndex: ReadonlyMap<string, number>;
  /** Column of each transition id. */
  readonly transitionIndex: ReadonlyMap<string, number>;
}

/** `columns` with their index maps. */
export function indexColumns(columns: NetColumns): IndexedColumns {
  const places = [...columns.places];
  const transitions = [...columns.transitions];
  return {
    places,
    transitions,
    placeIndex: new Map(places.map((id, i) => [id, i])),
    transitionIndex: new Map(transitions.map((id, i) => [id, i])),
  };
}

/**
 * Packs id-keyed rows into the graph's input arrays.
 *
 * @throws {Error} naming the row and an id that is not a column.
 */
export function packRows(columns: NetColumns, rows: readonly InputRow[]): PackedInputs {
  const { placeIndex, transitionIndex } = "placeIndex" in columns
    ? columns as IndexedColumns
    : indexColumns(columns);
  const packed = allocateInputs(rows.length, placeIndex.size, transitionIndex.size);
  rows.forEach((row, r) => {
    fillRow(row.marking, r, "marking", placeIndex, "place", packed.marking, packed.markingMask);
    fillRow(row.values, r, "values", placeIndex, "place", packed.values, packed.valuesMask);
    fillRow(row.target, r, "target", transitionIndex, "transition", packed.target);
  });
  return packed;
}

/** Splits packed outputs into one row per batch entry (views into the packed arrays). */
export function unpackRows(columns: NetColumns, outputs: PackedOutputs): OutputRow[] {
  const P = columns.places.length;
  const T = columns.transitions.length;
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

/** Throws when `inputs`' arrays do not hold `batch` rows of `columns`. */
export function checkPacked(columns: NetColumns, inputs: PackedInputs): void {
  const P = columns.places.length;
  const T = columns.transitions.length;
  const { batch } = inputs;
  if (!Number.isInteger(batch) || batch < 0) {
    throw new Error(`Cannot run the model: batch must be an integer >= 0, got ${batch}`);
  }
  const place = batch * P;
  const ok = inputs.marking.length === place && inputs.markingMask.length === place &&
    inputs.values.length === place && inputs.valuesMask.length === place &&
    inputs.target.length === batch * T;
  if (ok) return;
  // Only a wrong batch pays for naming the array.
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

export function emptyOutputs(withGradient: boolean): PackedOutputs {
  const empty = new Float32Array(0);
  return withGradient
    ? { batch: 0, transitions: empty, places: empty, gradMarking: empty, gradValues: empty }
    : { batch: 0, transitions: empty, places: empty };
}

/**
 * Zeroed input arrays for `batch` rows, all views of one piece of memory: one allocation instead
 * of five (allocating array buffers showed in the serving thread's profile).
 */
export function allocateInputs(batch: number, P: number, T: number): PackedInputs {
  const all = freshFloats(batch * (4 * P + T));
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

export function concatInputs(parts: readonly PackedInputs[]): PackedInputs {
  if (parts.length === 1) return parts[0]!;
  const P = parts[0]!.marking.length / parts[0]!.batch;
  const T = parts[0]!.target.length / parts[0]!.batch;
  const out = allocateInputs(parts.reduce((n, p) => n + p.batch, 0), P, T);
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
export function sliceOutputs(
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
