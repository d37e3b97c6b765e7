/**
 * What a range shard's part says about itself, for `merge`: a first entry (the header) names
 * the shard, the log's format and size, and the byte where the shard's first trace starts; a
 * last entry (the trailer) names the byte where the next shard's traces start and how many
 * traces the part holds. Between them, the entries number their traces from 0 within the part
 * (`trace_index`, and the `trace N:` that starts an error), since a shard reading only its
 * share of the log cannot know how many traces come before it; `merge` renumbers them
 * ({@link renumberEntry}) and checks that each shard starts where the one before ended.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { headerEntry, partMeta } from "./part_meta.ts";
 * const header = { index: 1, count: 4, format: "xes", size: 1000, start: 251 };
 * const text = headerEntry("jsonl", header);
 * assert.equal(text, '{"petri_serve_part":{"count":4,"format":"xes","index":1,"size":1000,"start":251}}');
 * assert.deepEqual(partMeta(JSON.parse(text)), { header });
 * ```
 *
 * @module
 */

import type { OutputFormat } from "../../core/batch/entry_layout.ts";

/** The key of a part's header entry. */
export const PART_KEY = "petri_serve_part";
/** The key of a part's trailer entry. */
export const PART_END_KEY = "petri_serve_part_end";

/** A range shard's header: which shard of which log, and where its traces start. */
export interface PartHeader {
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

/** A range shard's trailer: where the next shard's traces start, and its trace count. */
export interface PartTrailer {
  /** The byte where the trace after the shard's last starts (the log's size after the last). */
  readonly end: number;
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
 * const text = headerEntry("json", { index: 0, count: 2, format: "json", size: 9, start: 1 });
 * assert.equal(
 *   text,
 *   '  {\n    "petri_serve_part": {"count": 2, "format": "json", "index": 0, "size": 9, "start": 1}\n  }',
 * );
 * ```
 */
export function headerEntry(format: OutputFormat, header: PartHeader): string {
  const { count, index, size, start } = header;
  return entry(format, PART_KEY, { count, format: header.format, index, size, start });
}

/**
 * The trailer entry's text in an output format.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { trailerEntry } from "./part_meta.ts";
 * assert.equal(trailerEntry("jsonl", { end: 9, traces: 2 }), '{"petri_serve_part_end":{"end":9,"traces":2}}');
 * ```
 */
export function trailerEntry(format: OutputFormat, trailer: PartTrailer): string {
  return entry(format, PART_END_KEY, { end: trailer.end, traces: trailer.traces });
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
 * @throws {Error} for a header or trailer whose fields are not whole numbers (the message
 * names the field).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { partMeta } from "./part_meta.ts";
 * assert.deepEqual(partMeta({ petri_serve_part_end: { end: 9, traces: 2 } }), {
 *   trailer: { end: 9, traces: 2 },
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
    const header = {
      index: whole(fields, "index"),
      count: whole(fields, "count"),
      format: text(fields, "format"),
      size: whole(fields, "size"),
      start: whole(fields, "start"),
    };
    return { header };
  }
  if (PART_END_KEY in entry) {
    const fields = (entry as Record<string, unknown>)[PART_END_KEY];
    return { trailer: { end: whole(fields, "end"), traces: whole(fields, "traces") } };
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
 * A range part's entry with its `trace_index` (and the `trace N:` starting its error, if
 * any) changed from `local` to `global`, the rest of its text as is. Both layouts put
 * `trace_index` after the attributes and the residuals or error, so the last `trace_index`
 * key in the text is the entry's own; the error follows the attributes object, whose values
 * are strings, so the first `error` key after a closing brace is the entry's own.
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
