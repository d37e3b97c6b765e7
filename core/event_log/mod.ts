/**
 * Event logs in, traces out. A log is a file or stream of traces in one format (XES, CSV, JSON,
 * JSONL, each also gzipped; one subfolder each), a trace is one case. The readers yield one
 * {@link Trace} at a time so memory stays flat as logs grow; range reading lets shard I of N
 * read only its share of a log; specs resolve a model's inputs against a trace.
 *
 * @module
 */

export type { ReadOptions, Trace, TraceEvent } from "./types.ts";
export type { InputSpec, InputSpecEntry } from "../net/types.ts";
export { TraceReadError } from "./errors.ts";
export { type DetectedFormat, detectFormat, type TraceFormat } from "./format.ts";
export { readTraces, type ReadTracesOptions } from "./read.ts";
export { readXesTraces } from "./xes/read.ts";
export {
  type CsvColumnChoice,
  type CsvColumnOptions,
  type CsvOptions,
  type CsvSource,
  readCsvTraces,
} from "./csv/read.ts";
export { readJsonTraces } from "./json/read.ts";
export { readJsonlTraces } from "./jsonl/read.ts";
export {
  blobSource,
  type ByteSource,
  isSplittable,
  LOOK_BEHIND,
  openTraceRange,
  type SplittableFormat,
  type TraceRange,
  type TraceRangeOptions,
  UnsplittableLog,
} from "./range.ts";
export {
  resolveSpec,
  resolveTraceInputs,
  SpecError,
  specErrorEntry,
  type SpecSection,
} from "./specs.ts";
export { parsePythonFloat } from "./python_float.ts";
export { decodeText, readBytes, streamFrom } from "./input.ts";
export { chooseColumns } from "./csv/columns.ts";
export { csvRowBatches } from "./csv/rows.ts";
