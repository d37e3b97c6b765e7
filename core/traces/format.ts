/**
 * Picks the trace reader for a file: an explicit format, or the file name's suffix
 * (case-insensitive `.xes`, `.xes.gz`, `.csv`, `.json`), as PETRA's `score --format auto`
 * does. A name ending in `.gz` is gunzipped whatever the format.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { detectFormat } from "./format.ts";
 * assert.deepEqual(detectFormat("BPI_2012.XES.gz"), { format: "xes", gzip: true });
 * assert.deepEqual(detectFormat("events.txt", "csv"), { format: "csv", gzip: false });
 * ```
 *
 * @module
 */

import { TraceReadError } from "./errors.ts";

/**
 * A trace file format.
 *
 * @example
 * ```ts
 * import type { TraceFormat } from "./format.ts";
 * const format: TraceFormat = "xes";
 * ```
 */
export type TraceFormat = "xes" | "csv" | "json";

/**
 * What {@link detectFormat} decided: the reader to use and whether to gunzip first.
 *
 * @example
 * ```ts
 * import type { DetectedFormat } from "./format.ts";
 * const detected: DetectedFormat = { format: "xes", gzip: true };
 * ```
 */
export interface DetectedFormat {
  /** The reader to use. */
  format: TraceFormat;
  /** Whether to gunzip the bytes first (the name ends in `.gz`). */
  gzip: boolean;
}

const SUFFIXES: readonly [string, TraceFormat][] = [
  [".xes.gz", "xes"],
  [".xes", "xes"],
  [".csv", "csv"],
  [".json", "json"],
];

/**
 * Returns the format of `fileName`: `explicit` when it is given and not `"auto"`, else the one
 * its suffix names.
 *
 * @throws {TraceReadError} when the format is `"auto"` and the suffix is none of `.xes`,
 * `.xes.gz`, `.csv`, `.json`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { detectFormat } from "./format.ts";
 * assert.deepEqual(detectFormat("traces.json").format, "json");
 * assert.deepEqual(detectFormat("traces.xes.gz", "auto").gzip, true);
 * ```
 */
export function detectFormat(
  fileName: string,
  explicit: "auto" | TraceFormat = "auto",
): DetectedFormat {
  const lower = fileName.toLowerCase();
  const gzip = lower.endsWith(".gz");
  if (explicit !== "auto") return { format: explicit, gzip };
  for (const [suffix, format] of SUFFIXES) {
    if (lower.endsWith(suffix)) return { format, gzip };
  }
  throw new TraceReadError(
    `${fileName}: unknown trace format: the name ends in none of .xes, .xes.gz, .csv, .json ` +
      `(give the format explicitly)`,
  );
}
