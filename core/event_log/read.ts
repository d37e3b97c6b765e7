/**
 * One entry point for every log: picks the reader from the format or the name's suffix.
 *
 * @module
 */

import { type CsvOptions, type CsvSource, readCsvTraces } from "./csv/read.ts";
import { DEFAULT_NAME } from "./errors.ts";
import { detectFormat, type TraceFormat } from "./format.ts";
import { readJsonTraces } from "./json/read.ts";
import { readJsonlTraces } from "./jsonl/read.ts";
import type { Trace } from "./types.ts";
import { readXesTraces } from "./xes/read.ts";

/** Options of {@link readTraces}: the CSV reader's, plus the format. */
export interface ReadTracesOptions extends CsvOptions {
  /**
   * The format; `"auto"` picks it from `name`'s suffix.
   * @default {"auto"}
   */
  format?: "auto" | TraceFormat | undefined;
}

/**
 * Yields the traces of a log, read with the reader its format calls for; `name` also starts
 * every error message. `open` returns a fresh stream each call, as a CSV file is read twice.
 *
 * @throws {TraceReadError} at once for a name whose format cannot be told; while iterating,
 * for anything the chosen reader rejects.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { readTraces } from "./read.ts";
 * const xes = '<log><trace><string key="concept:name" value="c1"/>' +
 *   '<event><string key="concept:name" value="approve loan"/></event></trace></log>';
 * const path = "loans.xes.gz";
 * const open = () => new Blob([xes]).stream().pipeThrough(new CompressionStream("gzip"));
 * // The name tells the format (XES) and the compression (gzip).
 * let count = 0;
 * for await (const trace of readTraces(open, { name: path })) {
 *   assert.equal(trace.events[0]!.name, "approve loan");
 *   count++;
 * }
 * assert.equal(count, 1);
 * ```
 */
export function readTraces(
  source: CsvSource,
  options: ReadTracesOptions = {},
): AsyncGenerator<Trace, void, undefined> {
  const name = options.name ?? DEFAULT_NAME;
  const detected = detectFormat(name, options.format ?? "auto");
  const settings = { ...options, name, gzip: options.gzip ?? detected.gzip };
  if (detected.format === "csv") return readCsvTraces(source, settings);
  const stream = typeof source === "function" ? source() : source;
  if (detected.format === "xes") return readXesTraces(stream, settings);
  return detected.format === "jsonl"
    ? readJsonlTraces(stream, settings)
    : readJsonTraces(stream, settings);
}
