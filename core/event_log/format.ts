/**
 * Picks the reader for a log: an explicit format, or the name's suffix (PETRA's `--format auto`).
 *
 * @module
 */

import { TraceReadError } from "./errors.ts";

/** A log format. */
export type TraceFormat = "xes" | "csv" | "json" | "jsonl";

/** What {@link detectFormat} decided: the reader to use and whether to gunzip first. */
export interface DetectedFormat {
  /** The reader to use. */
  format: TraceFormat;
  /** Whether to gunzip the bytes first (the name ends in `.gz`). */
  gzip: boolean;
}

const SUFFIXES: readonly [string, TraceFormat][] = [
  [".xes", "xes"],
  [".csv", "csv"],
  [".json", "json"],
  [".jsonl", "jsonl"],
];

/**
 * The format of `fileName`: `explicit` unless absent or `"auto"`, else the one its suffix names.
 *
 * @throws {TraceReadError} when the format is `"auto"` and the suffix is none of `.xes`,
 * `.csv`, `.json`, `.jsonl` (each also with `.gz`).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { detectFormat } from "./format.ts";
 * assert.deepEqual(detectFormat("BPI_2012.XES.gz"), { format: "xes", gzip: true });
 * assert.deepEqual(detectFormat("events.txt", "csv"), { format: "csv", gzip: false });
 * ```
 */
export function detectFormat(
  fileName: string,
  explicit: "auto" | TraceFormat = "auto",
): DetectedFormat {
  const lower = fileName.toLowerCase();
  const gzip = lower.endsWith(".gz");
  if (explicit !== "auto") return { format: explicit, gzip };
  const stem = gzip ? lower.slice(0, -3) : lower;
  for (const [suffix, format] of SUFFIXES) {
    if (stem.endsWith(suffix)) return { format, gzip };
  }
  throw new TraceReadError(
    `${fileName}: unknown trace format: the name ends in none of .xes, .csv, .json, .jsonl ` +
      `(each also with .gz) (give the format explicitly)`,
  );
}
