/**
 * What a shard's part says about itself, for `merge`: a header entry names the shard, its mode
 * and the log's format; a trailer entry counts its traces and says what they were scored from
 * (log size, head digest, ETag, model hash), so parts of different runs are refused. A range
 * shard cannot know how many traces come before its share, so its entries number traces from 0
 * and its header and trailer give the bytes where it starts and ends; `merge` renumbers them
 * ({@link renumberEntry}) and checks that each shard starts where the one before ended.
 *
 * @module
 */

import type { OutputFormat } from "../../core/log_scoring/mod.ts";

/** The key of a part's header entry. */
export const PART_KEY = "petri_serve_part";
/** The key of a part's trailer entry. */
export const PART_END_KEY = "petri_serve_part_end";

/** A shard's header: which shard of which log, and (range) where its traces start. */
export type PartHeader = RangeHeader | ModuloHeader;

/** A range shard's header. */
export interface RangeHeader {
  readonly mode: "range";
  /** The shard, 0 to `count` - 1. */
  readonly index: number;
  /** The number of shards. */
  readonly count: number;
  /** The log's format (`xes`, `json`, `jsonl`). */
  readonly format: string;
  /** The log's size in bytes. */
  readonly size: number;
  /** The byte where the shard's first trace starts (the size when it has none). */
  readonly start: number;
}

/** A modulo shard's header: its entries keep the log's `trace_index`. */
export interface ModuloHeader {
  readonly mode: "modulo";
  /** The shard, 0 to `count` - 1. */
  readonly index: number;
  /** The number of shards. */
  readonly count: number;
  /** The log's format (`xes`, `csv`, `json`, `jsonl`). */
  readonly format: string;
}

/** What a part was scored from, so that parts of different runs never merge. */
export interface PartIdentity {
  /** The log's size in bytes, as read (compressed bytes for a gzipped log). */
  readonly logSize: number;
  /** The SHA-256 (hex) of the log's first 64 KiB (all of it when smaller). */
  readonly logHead: string;
  /** The `ETag` a URL's server gave, if any. */
  readonly logEtag?: string;
  /** The bundle's `onnx_sha256`. */
  readonly model: string;
}

/** A shard's trailer: its trace count, what it was scored from, and (range) where it ends. */
export interface PartTrailer extends PartIdentity {
  /** The byte where the trace after the shard's last starts; range shards only. */
  readonly end?: number;
  /** The entries of the part (its traces). */
  readonly traces: number;
}

/**
 * The header entry's text in an output format.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { headerEntry } from "./part_meta.ts";
 * const text = headerEntry("json", { mode: "range", index: 0, count: 2, format: "json", size: 9, start: 1 });
 * assert.equal(
 *   text,
 *   '  {\n    "petri_serve_part": {"count": 2, "format": "json", "index": 0, "mode": "range", "size": 9, "start": 1}\n  }',
 * );
 * ```
 */
export function headerEntry(format: OutputFormat, header: PartHeader): string {
  const { count, index, mode } = header;
  const fields = { count, format: header.format, index, mode };
  return entry(
    format,
    PART_KEY,
    header.mode === "range" ? { ...fields, size: header.size, start: header.start } : fields,
  );
}

/**
 * The trailer entry's text in an output format.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { trailerEntry } from "./part_meta.ts";
 * assert.equal(
 *   trailerEntry("jsonl", { traces: 2, logSize: 9, logHead: "ab", model: "cd" }),
 *   '{"petri_serve_part_end":{"log_head":"ab","log_size":9,"model":"cd","traces":2}}',
 * );
 * ```
 */
export function trailerEntry(format: OutputFormat, trailer: PartTrailer): string {
  // Sorted keys, as the rest of the output; a flat object, which merge finds from the tail.
  return entry(format, PART_END_KEY, {
    ...(trailer.end === undefined ? {} : { end: trailer.end }),
    ...(trailer.logEtag === undefined ? {} : { log_etag: trailer.logEtag }),
    log_head: trailer.logHead,
    log_size: trailer.logSize,
    model: trailer.model,
    traces: trailer.traces,
  });
}

function entry(format: OutputFormat, key: string, fields: Record<string, unknown>): string {
  const compact = JSON.stringify(fields);
  if (format === "jsonl") return `{"${key}":${compact}}`;
  // As Python's json.dumps(fields) writes it: ", " and ": " between items.
  const spaced = Object.entries(fields).map(([k, v]) =>
    `${JSON.stringify(k)}: ${JSON.stringify(v)}`
  )
    .join(", ");
  return `  {\n    "${key}": {${spaced}}\n  }`;
}

/**
 * The header or trailer a parsed part entry is, or undefined for a trace's entry.
 *
 * @throws {Error} naming a header or trailer field that is not what it should be.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { partMeta } from "./part_meta.ts";
 * const trailer = { log_head: "ab", log_size: 9, model: "cd", traces: 2 };
 * assert.deepEqual(partMeta({ petri_serve_part_end: trailer }), {
 *   trailer: { logHead: "ab", logSize: 9, model: "cd", traces: 2 },
 * });
 * assert.equal(partMeta({ trace_index: 0 }), undefined);
 * ```
 */
export function partMeta(
  entry: unknown,
): { header: PartHeader } | { trailer: PartTrailer } | undefined {
  if (typeof entry !== "object" || entry === null) return undefined;
  if (PART_KEY in entry) {
    const fields = (entry as Record<string, unknown>)[PART_KEY];
    const mode = text(fields, "mode");
    const common = {
      index: whole(fields, "index"),
      count: whole(fields, "count"),
      format: text(fields, "format"),
    };
    if (mode === "modulo") return { header: { mode, ...common } };
    if (mode !== "range") throw new Error(`its shard field 'mode' is not 'range' or 'modulo'`);
    return {
      header: { mode, ...common, size: whole(fields, "size"), start: whole(fields, "start") },
    };
  }
  if (PART_END_KEY in entry) {
    const fields = (entry as Record<string, unknown>)[PART_END_KEY];
    const has = (key: string) => (fields as Record<string, unknown> | null)?.[key] !== undefined;
    return {
      trailer: {
        ...(has("end") ? { end: whole(fields, "end") } : {}),
        ...(has("log_etag") ? { logEtag: text(fields, "log_etag") } : {}),
        logHead: text(fields, "log_head"),
        logSize: whole(fields, "log_size"),
        model: text(fields, "model"),
        traces: whole(fields, "traces"),
      },
    };
  }
  return undefined;
}

function whole(fields: unknown, key: string): number {
  const value = (fields as Record<string, unknown> | null)?.[key];
  if (typeof value !== "number" || !Number.isSafeInteger(value) || value < 0) {
    throw new Error(`its shard field '${key}' is not a whole number`);
  }
  return value;
}

function text(fields: unknown, key: string): string {
  const value = (fields as Record<string, unknown> | null)?.[key];
  if (typeof value !== "string") throw new Error(`its shard field '${key}' is not a string`);
  return value;
}

/**
 * A range part's entry with its `trace_index` (and the `trace N:` of its error) changed from
 * `local` to `global`, the rest as is. The last `trace_index` key is the entry's own (it comes
 * after attributes and residuals), and so is the first `error` key after a closing brace.
 *
 * @throws {Error} when the entry does not hold `trace_index` `local`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { renumberEntry } from "./part_meta.ts";
 * const entry = '{"attributes":{},"error":"trace 2: bad","trace_index":2}';
 * assert.equal(renumberEntry(entry, "jsonl", 2, 1002), '{"attributes":{},"error":"trace 1002: bad","trace_index":1002}');
 * ```
 */
export function renumberEntry(
  text: string,
  format: OutputFormat,
  local: number,
  global: number,
): string {
  const key = format === "json" ? '\n    "trace_index": ' : ',"trace_index":';
  const at = text.lastIndexOf(key);
  const digits = at === -1 ? "" : /^\d+/.exec(text.slice(at + key.length))?.[0];
  if (digits !== String(local)) throw new Error(`its trace_index is not ${local}`);
  const indexAt = at + key.length;
  let renumbered = text.slice(0, indexAt) + global + text.slice(indexAt + digits.length);
  const error = format === "json"
    ? `,\n    "error": "trace ${local}: `
    : `},"error":"trace ${local}: `;
  const errorAt = renumbered.indexOf(error);
  if (errorAt !== -1 && errorAt < indexAt) {
    const numberAt = errorAt + error.length - `${local}: `.length;
    renumbered = renumbered.slice(0, numberAt) + global +
      renumbered.slice(numberAt + String(local).length);
  }
  return renumbered;
}
