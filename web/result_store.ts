/**
 * The scored traces of one log, kept compactly so a million fit (typed arrays and packed
 * records, no object per trace). From it come the pages of the results table in any order,
 * the score histogram, one trace in full, and the whole result as `cli.ts batch` writes it or
 * as CSV.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { ResultStore } from "./result_store.ts";
 * const store = new ResultStore(["t_approve", "t_decline"]);
 * store.add({
 *   indices: [0, 1],
 *   attributes: [new Map([["amount", "800"]]), new Map()],
 *   errors: [undefined, "missing attribute: \"'amount'\""],
 *   events: [[{ name: "approve loan", attributes: new Map() }], []],
 *   scored: { ids: ["t_approve", "t_decline"], residuals: Float64Array.of(0.25, 0.5), scores: Float64Array.of(0.75) },
 * });
 * assert.equal(store.count, 2);
 * assert.deepEqual([...store.order({ by: "score", descending: true, filter: "errors" })], [1]);
 * ```
 *
 * @module
 */

import { type EntryLayout, pythonFloat, type ScoredBatch } from "../core/log_scoring/mod.ts";
import { csvCell } from "./csv_cell.ts";
import { grown, type TraceRecord, TraceRecords } from "./trace_records.ts";

/**
 * The most the results of one log may take (1 GiB): past it, scoring stops with a message that
 * points to `cli.ts batch`, rather than the tab running out of memory.
 */
export const MAX_STORE_BYTES = 1 << 30;

/** How the table is ordered and which traces it lists. */
export interface TableOrder {
  /** By trace index, by score, or by the residual of `transition`. */
  readonly by: "index" | "score" | "transition";
  /** The transition's position among the scored ids (for `by: "transition"`). */
  readonly transition?: number;
  readonly descending: boolean;
  /** Every trace, only the scored ones, or only the error entries. */
  readonly filter: "all" | "scored" | "errors";
}

/** The histogram of the finite scores. */
export interface ScoreHistogram {
  /** The lowest and highest finite score (both 0 when there is none). */
  readonly min: number;
  readonly max: number;
  /** Traces per bin; bin `b` spans `min + b·width` to `min + (b+1)·width`. */
  readonly counts: readonly number[];
  /** Scored traces whose score is not finite. */
  readonly nonFinite: number;
  /** Error entries. */
  readonly errors: number;
}

/** One trace as the table and the detail view show it. */
export interface StoredTrace extends TraceRecord {
  readonly index: number;
  /** Undefined for an error entry. */
  readonly score: number | undefined;
  /** Residual per scored transition, in the store's id order (empty for an error entry). */
  readonly residuals: readonly number[];
}

/** The results of one log. */
export class ResultStore {
  readonly #k: number;
  #scores = new Float64Array(1024);
  #residuals: Float32Array;
  #failed = new Uint8Array(1024);
  #errors = 0;
  #count = 0;
  readonly #records = new TraceRecords();
  #ordered: { key: string; order: Uint32Array } | undefined;

  /**
   * @param ids the scored transition ids, as `scoreRows` gives them
   * @param maxBytes the most the results may take ({@link MAX_STORE_BYTES})
   */
  constructor(readonly ids: readonly string[], readonly maxBytes: number = MAX_STORE_BYTES) {
    this.#k = ids.length;
    this.#residuals = new Float32Array(1024 * Math.max(1, this.#k));
  }

  /** Traces held. */
  get count(): number {
    return this.#count;
  }

  /** Error entries held. */
  get errors(): number {
    return this.#errors;
  }

  /** The keys of every trace's attributes (not event attributes), sorted. */
  attributeKeys(): string[] {
    return this.#records.attributeKeys();
  }

  /** Bytes held: every array and record chunk (what the table costs in memory). */
  get byteSize(): number {
    return this.#scores.byteLength + this.#residuals.byteLength + this.#failed.byteLength +
      this.#records.byteSize + (this.#ordered?.order.byteLength ?? 0);
  }

  /**
   * Appends a scored batch; its traces must be the next indices.
   *
   * @throws {RangeError} once the results take more than `maxBytes`.
   */
  add(batch: ScoredBatch): void {
    const { residuals, scores } = batch.scored;
    if (batch.scored.ids.length !== this.#k) {
      throw new Error(`a batch scores ${batch.scored.ids.length} transitions, not ${this.#k}`);
    }
    let row = 0;
    for (let t = 0; t < batch.indices.length; t++) {
      const i = this.#count;
      if (batch.indices[t] !== i) {
        throw new Error(`trace ${batch.indices[t]} arrived where trace ${i} was expected`);
      }
      this.#room(i + 1);
      const error = batch.errors[t];
      this.#records.add(batch.attributes[t]!, batch.events[t]!, error);
      if (error !== undefined) {
        this.#failed[i] = 1;
        this.#scores[i] = NaN;
        this.#errors++;
      } else {
        this.#scores[i] = scores[row]!;
        this.#residuals.set(residuals.subarray(row * this.#k, (row + 1) * this.#k), i * this.#k);
        row++;
      }
      this.#count++;
    }
    this.#ordered = undefined;
    const size = this.byteSize;
    if (size > this.maxBytes) {
      throw new RangeError(
        `The results of this log take more than ${mib(this.maxBytes)} in the page after ` +
          `${this.#count} traces (${mib(size)}): score it with cli.ts batch instead`,
      );
    }
  }

  /** Trace `index` in full. */
  trace(index: number): StoredTrace {
    const record = this.#records.read(index);
    const failed = this.#failed[index] === 1;
    const residuals = failed
      ? []
      : Array.from(this.#residuals.subarray(index * this.#k, (index + 1) * this.#k));
    return { ...record, index, score: failed ? undefined : this.#scores[index]!, residuals };
  }

  /**
   * The trace indices in `order`; error entries come after the scored traces when ordering
   * by score or residual, and non-finite scores after the finite ones; ties by index.
   */
  order(order: TableOrder): Uint32Array {
    const key = JSON.stringify(order);
    if (this.#ordered?.key === key) return this.#ordered.order;
    const n = this.#count;
    const wanted = (i: number) =>
      order.filter === "all" || (order.filter === "errors") === (this.#failed[i] === 1);
    let size = 0;
    const indices = new Uint32Array(order.filter === "all" ? n : this.#filtered(order.filter));
    for (let i = 0; i < n; i++) if (wanted(i)) indices[size++] = i;
    if (order.by === "index") {
      if (order.descending) indices.reverse();
    } else {
      const values = order.by === "score" ? this.#scores : this.#column(order.transition ?? 0);
      const sign = order.descending ? -1 : 1;
      const failed = this.#failed;
      indices.sort((a, b) => {
        const fa = failed[a]!;
        const fb = failed[b]!;
        if (fa !== fb) return fa - fb;
        const va = values[a]!;
        const vb = values[b]!;
        const na = Number.isFinite(va);
        const nb = Number.isFinite(vb);
        if (na !== nb) return na ? -1 : 1;
        if (na && va !== vb) return sign * (va - vb);
        return a - b;
      });
    }
    this.#ordered = { key, order: indices };
    return indices;
  }

  /** The histogram of the finite scores in `bins` bins. */
  histogram(bins: number): ScoreHistogram {
    let min = Infinity;
    let max = -Infinity;
    let nonFinite = 0;
    for (let i = 0; i < this.#count; i++) {
      if (this.#failed[i] === 1) continue;
      const s = this.#scores[i]!;
      if (!Number.isFinite(s)) {
        nonFinite++;
        continue;
      }
      if (s < min) min = s;
      if (s > max) max = s;
    }
    const counts = new Array<number>(bins).fill(0);
    if (min === Infinity) return { min: 0, max: 0, counts, nonFinite, errors: this.#errors };
    const width = (max - min) / bins;
    for (let i = 0; i < this.#count; i++) {
      const s = this.#scores[i]!;
      if (this.#failed[i] === 1 || !Number.isFinite(s)) continue;
      const b = width > 0 ? Math.min(bins - 1, Math.floor((s - min) / width)) : 0;
      counts[b]!++;
    }
    return { min, max, counts, nonFinite, errors: this.#errors };
  }

  /**
   * The whole result in `layout`, as `cli.ts batch` writes it, in pieces of about `chars`
   * characters (their concatenation is the file); `written` hears how many traces are out.
   */
  *entryText(
    layout: EntryLayout,
    written?: (traces: number) => void,
    chars = 1 << 20,
  ): Generator<string, void, undefined> {
    let piece = "";
    const ids = this.ids;
    const residuals = this.#residuals;
    for (let i = 0; i < this.#count; i++) {
      const { attributes, error } = this.#records.read(i);
      piece += layout.start(i === 0);
      if (error !== undefined) {
        piece += layout.failed(i, attributes, error);
      } else {
        piece += layout.scored(i, attributes, {
          ids,
          residuals,
          offset: i * this.#k,
          score: this.#scores[i]!,
        });
      }
      if (piece.length >= chars) {
        written?.(i + 1);
        yield piece;
        piece = "";
      }
    }
    written?.(this.#count);
    yield piece + layout.end(this.#count === 0);
  }

  /**
   * The whole result as CSV for spreadsheets: `trace_index`, `trace_score`, `error`, a column
   * `attribute:NAME` per trace attribute, and a column per scored transition (its residual).
   * Numbers are written as in the JSON output; a non-finite one, and a score or residual of an
   * error entry, is an empty cell. Text that would start a spreadsheet formula is neutralised
   * ({@link csvCell}).
   */
  *csvText(
    written?: (traces: number) => void,
    chars = 1 << 20,
  ): Generator<string, void, undefined> {
    const keys = this.#records.attributeKeys();
    let piece = [
      "trace_index",
      "trace_score",
      "error",
      ...keys.map((k) => `attribute:${k}`),
      ...this.ids,
    ].map(csvCell).join(",") + "\r\n";
    const number = (x: number) => (Number.isFinite(x) ? pythonFloat(x) : "");
    for (let i = 0; i < this.#count; i++) {
      const { attributes, error } = this.#records.read(i);
      const failed = error !== undefined;
      const cells = [
        String(i),
        failed ? "" : number(this.#scores[i]!),
        failed ? csvCell(error) : "",
        ...keys.map((k) => csvCell(attributes.get(k) ?? "")),
      ];
      for (let j = 0; j < this.#k; j++) {
        cells.push(failed ? "" : number(this.#residuals[i * this.#k + j]!));
      }
      piece += cells.join(",") + "\r\n";
      if (piece.length >= chars) {
        written?.(i + 1);
        yield piece;
        piece = "";
      }
    }
    written?.(this.#count);
    yield piece;
  }

  #filtered(filter: "scored" | "errors"): number {
    return filter === "errors" ? this.#errors : this.#count - this.#errors;
  }

  /** The residuals of transition `j`, one per trace. */
  #column(j: number): Float64Array {
    const column = new Float64Array(this.#count);
    for (let i = 0; i < this.#count; i++) column[i] = this.#residuals[i * this.#k + j]!;
    return column;
  }

  #room(count: number): void {
    if (count <= this.#scores.length) return;
    this.#scores = grown(this.#scores, Float64Array);
    this.#failed = grown(this.#failed, Uint8Array);
    this.#residuals = grown(this.#residuals, Float32Array, this.#scores.length * this.#k);
  }
}

function mib(bytes: number): string {
  return `${Math.round(bytes / (1 << 20))} MiB`;
}
