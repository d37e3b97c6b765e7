/**
 * Streams traces out of a CSV event table: one row per event, grouped into traces by case id
 * in first-seen order, wherever a case's rows are. Given a source it can open twice, a first
 * pass finds the cases whose rows are scattered, so the second yields each case at its last
 * row and memory holds only the cases in progress; given one stream, a case is yielded when
 * the next starts and a reappearing case id is an error.
 *
 * @module
 */

import { quoteId } from "../../net/quote_id.ts";
import { chooseColumns, type CsvColumnChoice, type CsvColumnOptions } from "./columns.ts";
import { type CaseIndex, CaseIndexer, ownCopy } from "./case_index.ts";
import { type CsvRowBatch, csvRowBatches } from "./rows.ts";
import { DEFAULT_NAME, TraceReadError } from "../errors.ts";
import { decodeText, readBytes } from "../input.ts";
import type { ReadOptions, Trace, TraceEvent } from "../types.ts";

export type { CsvColumnChoice, CsvColumnOptions } from "./columns.ts";

/** Options of {@link readCsvTraces}. */
export interface CsvOptions extends ReadOptions, CsvColumnOptions {
  /** Called once, after the header is read, with the columns chosen. */
  onColumns?: ((choice: CsvColumnChoice) => void) | undefined;
}

/**
 * A CSV source: a stream (read once), or a function returning a fresh stream of the same
 * bytes each call (read twice, so cases whose rows are scattered merge in bounded memory).
 */
export type CsvSource = ReadableStream<Uint8Array> | (() => ReadableStream<Uint8Array>);

/**
 * Yields the traces of a CSV event table one by one, in first-seen order of their case ids:
 * each row is an event named by its activity, and a trace's attributes are the case id plus
 * the other columns of its first row.
 *
 * @throws {TraceReadError} for a missing case or activity column (listing the header),
 * malformed CSV (with its line and column), a row with more fields than the header or without
 * a case or activity value, undecodable bytes, a broken gzip stream; with a single stream, for
 * a case id that reappears after other cases.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { readCsvTraces } from "./read.ts";
 * const text = "case_id,activity,amount\nc1,submit,5000\nc2,submit,90000\nc1,approve loan,5000\n";
 * const open = () => new Blob([text]).stream();
 * const traces = [];
 * for await (const trace of readCsvTraces(open, { name: "loans.csv" })) traces.push(trace);
 * // Cases in first-seen order; c1's rows are merged though c2's row lies between them.
 * assert.deepEqual(traces.map((t) => t.events.map((e) => e.name)), [
 *   ["submit", "approve loan"],
 *   ["submit"],
 * ]);
 * ```
 */
export async function* readCsvTraces(
  source: CsvSource,
  options: CsvOptions = {},
): AsyncGenerator<Trace, void, undefined> {
  const name = options.name ?? DEFAULT_NAME;
  let table: Table | undefined;
  const onHeader = (header: string[]): void => {
    if (table) {
      if (JSON.stringify(header) !== JSON.stringify(table.header)) throw changed(name);
      return;
    }
    table = new Table(header, chooseColumns(header, options, name), name);
    options.onColumns?.(table.choice);
  };
  const rows = (stream: ReadableStream<Uint8Array>) =>
    dataBatches(stream, name, options.gzip, onHeader);
  let index: CaseIndex | undefined;
  let stream: ReadableStream<Uint8Array>;
  if (typeof source === "function") {
    const indexer = new CaseIndexer();
    for await (const batch of rows(source())) {
      for (let k = 0; k < batch.rows.length; k++) {
        const row = batch.rows[k]!;
        if (!isBlank(row)) indexer.add(table!.caseId(row, batch, k));
      }
    }
    index = indexer.finish();
    stream = source();
  } else {
    stream = source;
  }
  let grouper: CaseGrouper | undefined;
  for await (const batch of rows(stream)) {
    grouper ??= new CaseGrouper(table!, index);
    for (let k = 0; k < batch.rows.length; k++) {
      const row = batch.rows[k]!;
      if (!isBlank(row)) grouper.add(row, batch, k);
    }
    yield* grouper.take();
  }
  if (grouper) {
    grouper.end();
    yield* grouper.take();
  }
}

/** The data rows of the file, in batches; the header goes to `onHeader` first. */
async function* dataBatches(
  stream: ReadableStream<Uint8Array>,
  name: string,
  gzip: boolean | undefined,
  onHeader: (header: string[]) => void,
): AsyncGenerator<CsvRowBatch, void, undefined> {
  let headerSeen = false;
  const text = decodeText(readBytes(stream, name, { gzip }), name);
  for await (const batch of csvRowBatches(text, name)) {
    if (headerSeen) {
      yield batch;
      continue;
    }
    const at = batch.rows.findIndex((row) => !isBlank(row));
    if (at === -1) continue;
    onHeader(batch.rows[at]!);
    headerSeen = true;
    yield { rows: batch.rows.slice(at + 1), lineOf: (k) => batch.lineOf(k + at + 1) };
  }
  if (!headerSeen) {
    throw new TraceReadError(`${name}: the file is empty (it has no header row)`);
  }
}

/** An empty line, which Python's csv module skips. */
function isBlank(row: readonly string[]): boolean {
  return row.length === 1 && row[0] === "";
}

function changed(name: string): TraceReadError {
  return new TraceReadError(`${name}: the file changed between the two reads of it`);
}

/** The header, the chosen columns, and how rows become trace and event attributes. */
class Table {
  readonly header: string[];
  readonly choice: CsvColumnChoice;
  readonly name: string;
  /** Columns that become trace attributes (all but the case and activity columns). */
  readonly #traceColumns: number[];
  /** Columns that become event attributes (all but the activity column). */
  readonly #eventColumns: number[];
  readonly #needed: number;

  constructor(header: string[], choice: CsvColumnChoice, name: string) {
    this.header = header;
    this.choice = choice;
    this.name = name;
    const columns = header.map((_, c) => c);
    this.#eventColumns = columns.filter((c) => header[c] !== choice.activityColumn);
    this.#traceColumns = this.#eventColumns.filter((c) => header[c] !== choice.caseColumn);
    this.#needed = Math.max(choice.caseIndex, choice.activityIndex);
  }

  /** The row's case id, after checking the row's width. */
  caseId(row: readonly string[], batch: CsvRowBatch, k: number): string {
    if (row.length > this.header.length || row.length <= this.#needed) {
      const where = `${this.name}: the row at line ${batch.lineOf(k)}`;
      throw new TraceReadError(
        row.length > this.header.length
          ? `${where} has ${row.length} fields, the header has ${this.header.length}`
          : `${where} has ${row.length} field(s), so no value for column ${
            quoteId(this.header[this.#needed]!)
          }`,
      );
    }
    return row[this.choice.caseIndex]!;
  }

  newTrace(id: string, row: readonly string[]): Trace {
    const attributes = new Map([[this.choice.caseColumn, id]]);
    for (const c of this.#traceColumns) {
      if (c < row.length) attributes.set(this.header[c]!, row[c]!);
    }
    return { attributes, events: [] };
  }

  event(row: readonly string[]): TraceEvent {
    const attributes = new Map<string, string>();
    for (const c of this.#eventColumns) {
      if (c < row.length) attributes.set(this.header[c]!, row[c]!);
    }
    return { name: row[this.choice.activityIndex]!, attributes };
  }
}

interface Pending {
  trace: Trace;
  complete: boolean;
}

/**
 * Groups rows into traces and releases them in first-seen order once complete. With an index
 * (two passes) a case is complete at its last row; without (one pass), when the next case
 * starts, and a reappearing case is an error.
 */
class CaseGrouper {
  readonly #table: Table;
  readonly #index: CaseIndex | undefined;
  /** One pass: every case id seen so far. */
  readonly #seen: Set<string> | undefined;
  /** Two passes: the split cases started and not complete yet. */
  readonly #open = new Map<string, Pending>();
  #queue: Pending[] = [];
  #head = 0;
  #current: Pending | undefined;
  #currentId = "";
  #row = 0;

  constructor(table: Table, index: CaseIndex | undefined) {
    this.#table = table;
    this.#index = index;
    this.#seen = index ? undefined : new Set();
  }

  add(row: readonly string[], batch: CsvRowBatch, k: number): void {
    const id = this.#table.caseId(row, batch, k);
    if (this.#current === undefined || id !== this.#currentId) {
      this.#endRun();
      let pending = this.#open.get(id);
      if (pending === undefined) {
        if (this.#seen?.has(id)) {
          throw new TraceReadError(
            `${this.#table.name}: case ${quoteId(id)} reappears at line ${
              batch.lineOf(k)
            } after other cases; reading the file once needs each case's rows together ` +
              `(a source that can be opened twice merges them)`,
          );
        }
        this.#seen?.add(ownCopy(id));
        pending = { trace: this.#table.newTrace(id, row), complete: false };
        this.#queue.push(pending);
        if (this.#index?.lastRowOfSplit.has(id)) this.#open.set(ownCopy(id), pending);
      }
      this.#current = pending;
      this.#currentId = id;
    }
    this.#current.trace.events.push(this.#table.event(row));
    this.#row++;
  }

  /** Checks the end of the input: every case must be complete by now. */
  end(): void {
    this.#endRun();
    if (this.#index && (this.#row !== this.#index.rows || this.#open.size > 0)) {
      throw changed(this.#table.name);
    }
  }

  /** The traces completed, in first-seen order, since the last call. */
  take(): Trace[] {
    const out: Trace[] = [];
    while (this.#head < this.#queue.length && this.#queue[this.#head]!.complete) {
      out.push(this.#queue[this.#head]!.trace);
      this.#head++;
    }
    if (this.#head > 1024 && this.#head * 2 > this.#queue.length) {
      this.#queue = this.#queue.slice(this.#head);
      this.#head = 0;
    }
    return out;
  }

  #endRun(): void {
    const current = this.#current;
    if (current === undefined) return;
    const split = this.#index?.lastRowOfSplit;
    const last = split?.get(this.#currentId);
    if (last === undefined || this.#row - 1 >= last) {
      current.complete = true;
      if (last !== undefined) {
        split!.delete(this.#currentId);
        this.#open.delete(this.#currentId);
      }
    }
    this.#current = undefined;
  }
}
