/**
 * Splits CSV text into rows, batch by batch, with PapaParse's core parser, so memory holds
 * one batch however long the file. Line endings are read as Python's text mode reads them
 * (CRLF and CR become LF, also inside quotes), so files with mixed line endings parse.
 *
 * @module
 */

import papaparse from "papaparse";
import { TraceReadError } from "../errors.ts";

/** Rows parsed from one stretch of the text. */
export interface CsvRowBatch {
  /** The rows, fields unquoted; an empty line is `[""]`. */
  rows: string[][];
  /** The 1-based line where row `k` of this batch starts. */
  lineOf(k: number): number;
}

/** The part of PapaParse this module uses (its own typings pull in Node's types). */
interface PapaResult {
  data: string[][];
  errors: { code: string; message: string; index?: number }[];
  meta: { cursor: number };
}
interface PapaModule {
  Parser: new (config: {
    delimiter: string;
    newline: string;
    quoteChar: string;
    step?: (result: PapaResult) => void;
  }) => { parse(input: string, baseIndex: number, ignoreLastRow: boolean): PapaResult };
}
const Papa = papaparse as unknown as PapaModule;

/** Parse at least this much new text at a time. */
const MIN_BATCH = 1 << 16;
/** A record this long is an error (Python's csv refuses fields over 128 KiB). */
export const MAX_RECORD_CHARS = 1 << 22;

/**
 * Yields the rows of CSV text in batches. Every row but the file's last ended with a line
 * break; after a final line break PapaParse reports one more row `[""]`.
 *
 * @throws {TraceReadError} for an unterminated quoted field, text after a closing quote, or
 * a record longer than {@link MAX_RECORD_CHARS} characters, naming the line and column.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { csvRowBatches } from "./rows.ts";
 * // A quoted field may hold the separator and span chunks.
 * const chunks = ReadableStream.from(['case,activity\nc1,"approve', ', loan"\n']);
 * const rows = [];
 * for await (const batch of csvRowBatches(chunks, "traces.csv")) rows.push(...batch.rows);
 * // The text after the last newline is a last (here empty) line.
 * assert.deepEqual(rows, [["case", "activity"], ["c1", "approve, loan"], [""]]);
 * ```
 */
export async function* csvRowBatches(
  chunks: AsyncIterable<string>,
  name: string,
): AsyncGenerator<CsvRowBatch, void, undefined> {
  let rest = ""; // the start of a record not yet complete
  let restLine = 1;
  let pending: string[] = [];
  let pendingSize = 0;
  let lastWasCr = false;
  for await (let text of chunks) {
    if (lastWasCr && text.startsWith("\n")) text = text.slice(1);
    lastWasCr = text.endsWith("\r");
    if (text.includes("\r")) text = text.replace(/\r\n?/g, "\n");
    pending.push(text);
    pendingSize += text.length;
    // Re-parse a long unfinished record only once the new text is as long (linear overall).
    if (pendingSize < Math.max(MIN_BATCH, rest.length)) continue;
    const input = rest + pending.join("");
    pending = [];
    pendingSize = 0;
    const batch = parse(input, restLine, false, name);
    rest = input.slice(batch.consumed);
    restLine = batch.endLine;
    if (rest.length > MAX_RECORD_CHARS) {
      throw new TraceReadError(
        `${name}: the CSV record at line ${restLine} is longer than ${MAX_RECORD_CHARS} ` +
          `characters, the reader's size limit (an unterminated quoted field?)`,
      );
    }
    if (batch.rows.length > 0) yield batch;
  }
  const batch = parse(rest + pending.join(""), restLine, true, name);
  if (batch.rows.length > 0) yield batch;
}

interface ParsedBatch extends CsvRowBatch {
  /** Characters of the input the rows cover. */
  consumed: number;
  /** The line where the unconsumed rest starts. */
  endLine: number;
}

function parse(input: string, firstLine: number, final: boolean, name: string): ParsedBatch {
  const result = new Papa.Parser({ delimiter: ",", newline: "\n", quoteChar: '"' })
    .parse(input, 0, !final);
  // An error in the unfinished last record is judged again once the record is complete.
  const error = result.errors.find((e) => final || (e.index ?? 0) < result.meta.cursor);
  if (error) {
    const { line, column } = position(input, error.index ?? 0, firstLine);
    throw new TraceReadError(
      `${name}: malformed CSV at line ${line}, column ${column}: ${
        error.message.replace(/\.$/, "")
      }`,
    );
  }
  const rows = result.data;
  const consumed = final ? input.length : result.meta.cursor;
  const newlines = countNewlines(input, 0, consumed);
  // Without line breaks inside fields, row k starts on line firstLine + k.
  const breaks = final ? rows.length - 1 : rows.length;
  let starts: number[] | undefined;
  const lineOf = (k: number): number => {
    if (newlines === breaks) return firstLine + k;
    starts ??= rowStarts(input.slice(0, consumed), firstLine);
    return starts[k] ?? firstLine;
  };
  return { rows, lineOf, consumed, endLine: firstLine + newlines };
}

/** The line each row starts on, found by re-parsing row by row (rare: quoted line breaks). */
function rowStarts(text: string, firstLine: number): number[] {
  const starts = [firstLine];
  let line = firstLine;
  let at = 0;
  new Papa.Parser({
    delimiter: ",",
    newline: "\n",
    quoteChar: '"',
    step: ({ meta }) => {
      line += countNewlines(text, at, meta.cursor);
      at = meta.cursor;
      starts.push(line);
    },
  }).parse(text, 0, false);
  return starts;
}

function countNewlines(text: string, from: number, to: number): number {
  let count = 0;
  for (let i = text.indexOf("\n", from); i !== -1 && i < to; i = text.indexOf("\n", i + 1)) {
    count++;
  }
  return count;
}

function position(text: string, index: number, firstLine: number): {
  line: number;
  column: number;
} {
  const line = firstLine + countNewlines(text, 0, index);
  const column = index - text.lastIndexOf("\n", index - 1);
  return { line, column };
}
