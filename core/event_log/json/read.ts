/**
 * Streams traces out of a JSON log, a list of entries (see `entry.ts`). The list
 * is cut entry by entry and each entry parsed on its own, so memory holds one entry at a time
 * however long the file.
 *
 * @module
 */

import { DEFAULT_NAME, errorText, TraceReadError } from "../errors.ts";
import { decodeText, readBytes } from "../input.ts";
import { entryTrace } from "./entry.ts";
import { JsonArraySplitter, type JsonElementText, JsonSplitError } from "./split.ts";
import { type FragmentOptions, LineBase } from "../fragment.ts";
import type { ReadOptions, Trace } from "../types.ts";

/**
 * Yields the traces of a JSON log one by one, in file order.
 *
 * @throws {TraceReadError} for malformed JSON (with its line and column), a top level that is
 * not a list, an entry or event of the wrong shape (naming the entry, and the event), bytes
 * that are not UTF-8, or a broken gzip stream. Traces before the fault have been yielded by
 * then.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { readJsonTraces } from "./read.ts";
 * const json = '[{"attributes": {"amount": 5000}, "events": ["approve loan"]}]';
 * const traces = await Array.fromAsync(readJsonTraces(new Blob([json]).stream()));
 * assert.equal(traces[0]!.attributes.get("amount"), "5000"); // non-strings become JSON text
 * assert.equal(traces[0]!.events[0]!.name, "approve loan");
 * ```
 */
export function readJsonTraces(
  stream: ReadableStream<Uint8Array>,
  options: ReadOptions = {},
): AsyncGenerator<Trace, void, undefined> {
  return jsonTraces(stream, options);
}

/**
 * {@link readJsonTraces}, also for a fragment of a list (a range shard's bytes after the
 * list's head), which need not reach the end of the list.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { jsonTraces } from "./read.ts";
 * const fragment = new Blob(['[\n  {"events": ["a"]},\n  ']).stream(); // head + one entry
 * const traces = await Array.fromAsync(jsonTraces(fragment, { fragment: true, lineBase: 1 }));
 * assert.equal(traces.length, 1);
 * ```
 */
export async function* jsonTraces(
  stream: ReadableStream<Uint8Array>,
  options: FragmentOptions,
): AsyncGenerator<Trace, void, undefined> {
  const name = options.name ?? DEFAULT_NAME;
  const lines = new LineBase(options.lineBase);
  const splitter = new JsonArraySplitter();
  for await (const text of decodeText(readBytes(stream, name, { gzip: options.gzip }), name)) {
    const elements = split(() => splitter.push(text), name, lines);
    const entries = parseAll(elements);
    for (let i = 0; i < elements.length; i++) {
      const element = elements[i]!;
      const where = `${name}: entry ${element.index} (line ${lines.line(element.line)})`;
      yield entryTrace(entries ? entries[i] : parseElement(element, name, lines), where);
    }
  }
  if (options.fragment) return;
  split(
    () => {
      splitter.end();
      return [];
    },
    name,
    lines,
  );
}

function split(step: () => JsonElementText[], name: string, lines: LineBase): JsonElementText[] {
  try {
    return step();
  } catch (error) {
    if (!(error instanceof JsonSplitError)) throw error;
    throw new TraceReadError(
      `${name}: malformed JSON ${lines.at(error)}: ${error.message}`,
      { cause: error },
    );
  }
}

/**
 * The entries of a chunk's elements in one `JSON.parse` instead of one per element; undefined
 * when that fails, so each element is parsed alone for a precise message.
 */
function parseAll(elements: readonly JsonElementText[]): unknown[] | undefined {
  if (elements.length === 0) return [];
  try {
    const entries = JSON.parse(`[${elements.map((e) => e.text).join(",")}]`) as unknown[];
    return entries.length === elements.length ? entries : undefined;
  } catch {
    return undefined;
  }
}

function parseElement(element: JsonElementText, name: string, lines: LineBase): unknown {
  try {
    return JSON.parse(element.text);
  } catch (error) {
    const text = errorText(error);
    const positioned = /^(.*?)(?: in JSON)? at position (\d+)(?: \(line \d+ column \d+\))?$/s
      .exec(text);
    const where = positioned
      ? lines.at(advance(element, Number(positioned[2])))
      : `in entry ${element.index} (which starts at line ${lines.line(element.line)}, ` +
        `column ${element.column})`;
    const detail = positioned?.[1] ?? text.replace(/, (?:\.\.\.)?".*" is not valid JSON$/s, "");
    throw new TraceReadError(`${name}: malformed JSON ${where}: ${detail}`, { cause: error });
  }
}

/** The line and column `position` characters into the element's text. */
function advance(element: JsonElementText, position: number): { line: number; column: number } {
  let { line, column } = element;
  for (let i = 0; i < position && i < element.text.length; i++) {
    if (element.text.charCodeAt(i) === 0x0a) {
      line++;
      column = 1;
    } else {
      column++;
    }
  }
  return { line, column };
}
