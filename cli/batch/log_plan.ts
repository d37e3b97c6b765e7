/**
 * How `batch` reads its log: from where (a file, an `http(s)` URL, or `-` for standard input),
 * in which format, and, with `--shard I/N`, in which sharding mode:
 *
 * - **range** (uncompressed XES, JSON and JSONL files and URLs): the shard reads only its
 *   share of the bytes (`core/event_log/range.ts`) and numbers its traces from 0; `merge`
 *   renumbers them;
 * - **modulo** (CSV, gzip, standard input, or `--shard-mode modulo`): the shard reads the
 *   whole log and scores the traces whose index i has i mod N = I, keeping their index.
 *
 * `--shard-mode auto` (the default) takes range when the log allows it, else modulo (with a
 * note); `range` insists (an error when the log cannot be split); `modulo` always reads all.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { openLog } from "./log_plan.ts";
 * import { Shard } from "./shard.ts";
 * const log = await openLog({
 *   traces: "examples/rest_serving/applications.csv",
 *   format: "auto",
 *   gzip: undefined,
 *   shard: Shard.parse("1/2"),
 *   shardMode: "auto",
 * }, () => {});
 * assert.equal(log.plan.kind, "modulo"); // CSV cannot be split
 * assert.equal(log.format, "csv");
 * ```
 *
 * @module
 */

import {
  detectFormat,
  isSplittable,
  openTraceRange,
  type TraceFormat,
  type TraceRange,
  TraceReadError,
  UnsplittableLog,
} from "../../core/event_log/mod.ts";
import {
  fileLogSource,
  isLogUrl,
  type LogSource,
  stdinLogSource,
  urlLogSource,
} from "./log_source.ts";
import { UsageError } from "../args.ts";
import { InputError } from "../command.ts";
import { fileProblem } from "../file_problems.ts";
import type { Shard } from "./shard.ts";
import { type LogHead, readHead } from "./log_identity.ts";

/** The `--shard-mode` choices. */
export const SHARD_MODES = ["auto", "range", "modulo"] as const;

/** One of {@link SHARD_MODES}. */
export type ShardMode = (typeof SHARD_MODES)[number];

/** What the command line asked about the log. */
export interface LogRequest {
  /** `--traces`: a path, an `http(s)` URL, or `-` (standard input). */
  readonly traces: string;
  /** `--format`, without `.gz`. */
  readonly format: "auto" | TraceFormat;
  /** True when `--format` ended in `.gz`; undefined: from the name. */
  readonly gzip: boolean | undefined;
  /** `--shard`, when given. */
  readonly shard: Shard | undefined;
  readonly shardMode: ShardMode;
}

/** How the log is read. */
export type LogPlan =
  | { readonly kind: "whole" }
  | { readonly kind: "modulo"; readonly shard: Shard }
  | {
    readonly kind: "range";
    readonly shard: Shard;
    readonly range: TraceRange;
    /** The log's size and head digest, read first (before the range's reads move on). */
    readonly head: LogHead;
  };

/** The opened log: its source, format and plan. */
export interface OpenedLog {
  readonly source: LogSource;
  readonly format: TraceFormat;
  readonly gzip: boolean;
  readonly plan: LogPlan;
}

/**
 * Opens the log `request` names and decides how to read it; `note` gets stderr lines.
 *
 * @throws {InputError} for a log that cannot be opened; {@link UsageError} for flags that do
 * not fit the log (`--traces -` without `--format`, `--shard-mode range` on a CSV log).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { openLog } from "./log_plan.ts";
 * import { Shard } from "./shard.ts";
 * const log = await openLog({
 *   traces: "examples/rest_serving/applications.xes",
 *   format: "auto",
 *   gzip: undefined,
 *   shard: Shard.parse("0/3"),
 *   shardMode: "auto",
 * }, () => {});
 * assert.equal(log.plan.kind, "range");
 * ```
 */
export async function openLog(
  request: LogRequest,
  note: (line: string) => void,
): Promise<OpenedLog> {
  const stdin = request.traces === "-";
  const url = !stdin && isLogUrl(request.traces) ? parseUrl(request.traces) : undefined;
  if (stdin && request.format === "auto") {
    throw new UsageError(
      "--traces - (standard input) needs --format (xes, csv, json or jsonl, each also with .gz)",
    );
  }
  // A file's problems come first (a directory has no format either).
  const fileSize = stdin || url ? undefined : await statLog(request.traces);
  const detected = detect(
    url ? url.pathname : request.traces,
    request,
    url ? request.traces : undefined,
  );
  const format = detected.format;
  // A file's first bytes tell gzip, whatever its name (the readers also check every stream).
  const gzip = fileSize === undefined ? detected.gzip : await startsWithGzip(request.traces);
  const splittable = isSplittable(format, gzip);
  const wantsRange = request.shard !== undefined && request.shardMode !== "modulo";
  if (wantsRange && request.shardMode === "range" && (!splittable || stdin)) {
    throw new UsageError(
      `--shard-mode range needs an uncompressed XES, JSON or JSONL file or URL; ` +
        `${
          stdin
            ? "standard input cannot be read from an offset"
            : `the log is ${what(format, gzip)}`
        }`,
    );
  }
  const source = await openSource(request.traces, url, fileSize, wantsRange && splittable, note);
  const shard = request.shard;
  if (shard === undefined) return { source, format, gzip, plan: { kind: "whole" } };
  const modulo = { source, format, gzip, plan: { kind: "modulo", shard } } as const;
  if (!wantsRange) return modulo;
  const why = stdin
    ? "standard input cannot be read from an offset"
    : !splittable
    ? `it is ${what(format, gzip)}`
    : undefined;
  if (why !== undefined) {
    note(`note: ${source.name}: ${why}; ${moduloNote(shard)}`);
    return modulo;
  }
  const ranges = await source.ranges();
  try {
    if (ranges === undefined) throw new UnsplittableLog(`${source.name}: its size is not known`);
    const head = await readHead(ranges);
    const range = await openTraceRange(ranges, {
      format: format as "xes" | "json" | "jsonl",
      index: shard.index,
      count: shard.count,
      name: source.name,
    });
    return { source, format, gzip, plan: { kind: "range", shard, range, head } };
  } catch (error) {
    if (error instanceof TraceReadError) throw new InputError(error.message);
    if (!(error instanceof UnsplittableLog)) throw error;
    if (request.shardMode === "range") throw new InputError(`${error.message}; it cannot be split`);
    note(`note: ${error.message}; ${moduloNote(shard)}`);
    return modulo;
  }
}

function parseUrl(text: string): URL {
  try {
    return new URL(text);
  } catch {
    throw new UsageError(`--traces '${text}' is not a valid URL`);
  }
}

function detect(
  name: string,
  request: LogRequest,
  display: string | undefined,
): { format: TraceFormat; gzip: boolean } {
  try {
    const detected = detectFormat(name, request.format);
    return { format: detected.format, gzip: request.gzip ?? detected.gzip };
  } catch (error) {
    if (!(error instanceof TraceReadError)) throw error;
    // A URL's message names the URL, not its path alone.
    throw new InputError(display ? error.message.replace(name, display) : error.message);
  }
}

function what(format: TraceFormat, gzip: boolean): string {
  if (gzip) return "gzipped";
  return format === "csv" ? "CSV (a case's rows may lie anywhere in it)" : format;
}

function moduloNote(shard: Shard): string {
  const which = shard.count === 1 ? "every" : `every ${shard.count}${ordinal(shard.count)}`;
  return `shard ${shard} reads the whole log and scores ${which} trace (modulo sharding)`;
}

function ordinal(n: number): string {
  const tens = n % 100;
  if (tens >= 11 && tens <= 13) return "th";
  return ["th", "st", "nd", "rd"][n % 10] ?? "th";
}

async function openSource(
  traces: string,
  url: URL | undefined,
  fileSize: number | undefined,
  ranges: boolean,
  note: (line: string) => void,
): Promise<LogSource> {
  if (url) {
    try {
      return await urlLogSource(url, { ranges, note });
    } catch (error) {
      if (error instanceof TraceReadError) throw new InputError(error.message);
      throw error;
    }
  }
  return fileSize === undefined ? stdinLogSource() : fileLogSource(traces, fileSize);
}

/** Whether the file starts with gzip's magic bytes. */
async function startsWithGzip(path: string): Promise<boolean> {
  const head = new Uint8Array(2);
  let length = 0;
  try {
    using file = await Deno.open(path);
    while (length < 2) {
      const read = await file.read(head.subarray(length));
      if (read === null) break;
      length += read;
    }
  } catch (error) {
    throw new InputError(`${path}: ${fileProblem(error)}`);
  }
  return length === 2 && head[0] === 0x1f && head[1] === 0x8b;
}

/** A log file's size; it must be a readable file. */
async function statLog(traces: string): Promise<number> {
  let info: Deno.FileInfo;
  try {
    info = await Deno.stat(traces);
  } catch (error) {
    const problem = error instanceof Deno.errors.PermissionDenied
      ? "permission denied"
      : fileProblem(error);
    throw new InputError(`${traces}: ${problem}`);
  }
  if (info.isDirectory) throw new InputError(`${traces}: is a directory, not a trace file`);
  return info.size;
}
