/**
 * How log scoring lays out its entries, byte for byte as PETRA's `score` does: `json`
 * (Python's `json.dump(entries, indent=2, sort_keys=True)`) or `jsonl` (one compact sorted entry
 * a line).
 * A scored trace's entry is `{attributes, per_transition_residuals, trace_index, trace_score}`,
 * a failed one's `{attributes, error, trace_index}`.
 *
 * @module
 */

import { compareIds } from "../net/types.ts";
import { pythonFloat, pythonString } from "./python_json.ts";

/** The output formats `batch --output-format` and `merge` know. */
export const OUTPUT_FORMATS = ["json", "jsonl"] as const;

/** One of {@link OUTPUT_FORMATS}. */
export type OutputFormat = (typeof OUTPUT_FORMATS)[number];

/** A scored trace's numbers: its residual of `ids[j]` is `residuals[offset + j]`. */
export interface EntryScore {
  /** The scored transition ids. */
  readonly ids: readonly string[];
  /** Residuals of many traces, flat. */
  readonly residuals: ArrayLike<number>;
  /** Where this trace's residuals start. */
  readonly offset: number;
  /** The sum of the residuals. */
  readonly score: number;
}

/** Writes entries and the text around them in one output format. */
export interface EntryLayout {
  /** A scored trace's entry (no separator around it). */
  scored(index: number, attributes: ReadonlyMap<string, string>, score: EntryScore): string;
  /** A failed trace's entry (no separator around it). */
  failed(index: number, attributes: ReadonlyMap<string, string>, error: string): string;
  /** The record ending a list cut short: `error`, `incomplete: true`, `traces_written`. */
  stopped(error: string, written: number): string;
  /** The text before an entry: the list's opening for the first, else the separator. */
  start(first: boolean): string;
  /** The text after the last entry (`empty`: there was none). */
  end(empty: boolean): string;
  /** Whole output text of the given entries. */
  list(entries: readonly string[]): string;
}

/**
 * The layout of `format`.
 *
 * @example
 * ```ts
 * import { entryLayout } from "./entry_layout.ts";
 * import assert from "node:assert/strict";
 * const layout = entryLayout("jsonl");
 * const entry = layout.failed(3, new Map([["amount", "High"]]), "not a number");
 * assert.equal(entry, '{"attributes":{"amount":"High"},"error":"not a number","trace_index":3}');
 * assert.equal(layout.list([entry]), entry + "\n");
 * ```
 */
export function entryLayout(format: OutputFormat): EntryLayout {
  return format === "json" ? JSON_LAYOUT : JSONL_LAYOUT;
}

// Keys repeat on every entry (attribute names, transition ids): quote each once.
const quoted = new Map<string, string>();
const QUOTED_LIMIT = 4096;

function quoteKey(key: string): string {
  let text = quoted.get(key);
  if (text === undefined) {
    text = pythonString(key);
    if (quoted.size < QUOTED_LIMIT) quoted.set(key, text);
  }
  return text;
}

/** `map`'s keys in Python's sort order (code points); the map's own order when sorted. */
function sortedKeys(map: ReadonlyMap<string, unknown>): Iterable<string> {
  if (map.size < 2) return map.keys();
  const keys = [...map.keys()];
  for (let i = 1; i < keys.length; i++) {
    if (compareIds(keys[i - 1]!, keys[i]!) > 0) return keys.sort(compareIds);
  }
  return keys;
}

/** A map as an object, `{}` when empty, with the given punctuation around keys and values. */
function objectText<V>(
  map: ReadonlyMap<string, V>,
  value: (v: V) => string,
  open: string,
  between: string,
  colon: string,
  close: string,
): string {
  if (map.size === 0) return "{}";
  let text = open;
  let first = true;
  for (const key of sortedKeys(map)) {
    if (!first) text += between;
    first = false;
    text += quoteKey(key) + colon + value(map.get(key)!);
  }
  return text + close;
}

const JSON_LAYOUT: EntryLayout = {
  scored: (index, attributes, score) =>
    `  {\n    "attributes": ${indented(attributes, pythonString)},\n` +
    `    "per_transition_residuals": ${residualsText(score, JSON_KEYS)},\n` +
    `    "trace_index": ${index},\n    "trace_score": ${pythonFloat(score.score)}\n  }`,
  failed: (index, attributes, error) =>
    `  {\n    "attributes": ${indented(attributes, pythonString)},\n` +
    `    "error": ${pythonString(error)},\n    "trace_index": ${index}\n  }`,
  stopped: (error, written) =>
    `  {\n    "error": ${pythonString(error)},\n    "incomplete": true,\n` +
    `    "traces_written": ${written}\n  }`,
  start: (first) => (first ? "[\n" : ",\n"),
  end: (empty) => (empty ? "[]\n" : "\n]\n"),
  list: (entries) => (entries.length === 0 ? "[]\n" : `[\n${entries.join(",\n")}\n]\n`),
};

/** An object at depth 2 of Python's indent=2 layout. */
function indented<V>(map: ReadonlyMap<string, V>, value: (v: V) => string): string {
  return objectText(map, value, "{\n      ", ",\n      ", ": ", "\n    }");
}

const JSONL_LAYOUT: EntryLayout = {
  scored: (index, attributes, score) =>
    `{"attributes":${compact(attributes, pythonString)},` +
    `"per_transition_residuals":${residualsText(score, JSONL_KEYS)},` +
    `"trace_index":${index},"trace_score":${pythonFloat(score.score)}}`,
  failed: (index, attributes, error) =>
    `{"attributes":${compact(attributes, pythonString)},` +
    `"error":${pythonString(error)},"trace_index":${index}}`,
  stopped: (error, written) =>
    `{"error":${pythonString(error)},"incomplete":true,"traces_written":${written}}`,
  start: (first) => (first ? "" : "\n"),
  end: (empty) => (empty ? "" : "\n"),
  list: (entries) => entries.map((e) => `${e}\n`).join(""),
};

function compact<V>(map: ReadonlyMap<string, V>, value: (v: V) => string): string {
  return objectText(map, value, "{", ",", ":", "}");
}

/** The residuals' keys in one layout: each key with what comes before it, in sorted order. */
interface ResidualKeys {
  readonly open: string;
  readonly between: string;
  readonly colon: string;
  readonly close: string;
  /** Per ids list: the order to write them in and each one's text before its value. */
  readonly made: WeakMap<readonly string[], { order: number[]; heads: string[] }>;
}

const JSON_KEYS: ResidualKeys = {
  open: "{\n      ",
  between: ",\n      ",
  colon: ": ",
  close: "\n    }",
  made: new WeakMap(),
};
const JSONL_KEYS: ResidualKeys = {
  open: "{",
  between: ",",
  colon: ":",
  close: "}",
  made: new WeakMap(),
};

function residualsText(score: EntryScore, keys: ResidualKeys): string {
  const { ids, residuals, offset } = score;
  if (ids.length === 0) return "{}";
  let made = keys.made.get(ids);
  if (made === undefined) {
    const order = ids.map((_, j) => j).sort((a, b) => compareIds(ids[a]!, ids[b]!));
    const heads = order.map((j, n) =>
      (n === 0 ? keys.open : keys.between) + pythonString(ids[j]!) + keys.colon
    );
    made = { order, heads };
    keys.made.set(ids, made);
  }
  let text = "";
  for (let n = 0; n < made.order.length; n++) {
    text += made.heads[n]! + pythonFloat(residuals[offset + made.order[n]!]!);
  }
  return text + keys.close;
}
