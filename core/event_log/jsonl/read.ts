/**
 * Streams traces out of a JSONL log: one entry a line (see `../json/entry.ts`), blank lines
 * skipped; memory holds one chunk of lines however long the file.
 *
 * @module
 */

import { DEFAULT_NAME, errorText, TraceReadError } from "../errors.ts";
import { decodeText, readBytes } from "../input.ts";
import { entryTrace } from "../json/entry.ts";
import type { ReadOptions, Trace } from "../types.ts";

/** The longest line read (a trace of a few million events). */
const MAX_LINE_CHARS = 256 * 1024 * 1024;

/** A complete line of the file and where it is. */
interface Line {
  readonly text: string;
  /** 1-based line number. */
  readonly line: number;
}

/**
 * Yields the traces of a JSONL log one by one, in file order.
 *
 * @throws {TraceReadError} for a line that is not JSON or not an entry, bytes that are not UTF-8,
 * or a broken gzip stream (the traces before it have been yielded).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { readJsonlTraces } from "./read.ts";
 * const file = new Blob(['{"events": ["a"]}\n\n{"events": ["b", "c"]}']).stream();
 * const traces = await Array.fromAsync(readJsonlTraces(file, { name: "t.jsonl" }));
 * assert.deepEqual(traces.map((t) => t.events.length), [1, 2]);
 * ```
 */
export async function* readJsonlTraces(
  stream: ReadableStream<Uint8Array>,
  options: ReadOptions = {},
): AsyncGenerator<Trace, void, undefined> {
  const name = options.name ?? DEFAULT_NAME;
  /** The start of a line not complete yet, in pieces (a long line spans many chunks). */
  let pending: string[] = [];
  let pendingLength = 0;
  let line = 1;
  let index = 0;
  const chunks = decodeText(readBytes(stream, name, { gzip: options.gzip }), name);
  for (let done = false; !done;) {
    const next = await chunks.next();
    done = next.done === true;
    const chunk = next.done ? "\n" : next.value;
    if (!chunk.includes("\n")) {
      pending.push(chunk);
      pendingLength += chunk.length;
      if (pendingLength > MAX_LINE_CHARS) {
        throw new TraceReadError(
          `${name}: line ${line} is longer than ${MAX_LINE_CHARS} characters (the limit)`,
        );
      }
      continue;
    }
    pending.push(chunk);
    const text = pending.join("");
    const lines: Line[] = [];
    let start = 0;
    for (let end = text.indexOf("\n"); end !== -1; end = text.indexOf("\n", start)) {
      const content = text.slice(start, end);
      if (content.trim() !== "") lines.push({ text: content, line });
      line++;
      start = end + 1;
    }
    pending = [text.slice(start)];
    pendingLength = pending[0]!.length;
    const entries = parseLines(lines, name);
    for (let i = 0; i < lines.length; i++) {
      yield entryTrace(entries[i], `${name}: entry ${index++} (line ${lines[i]!.line})`);
    }
  }
}

/**
 * The lines' values in one `JSON.parse`, each line wrapped in its own list (no JSON value can
 * hold a raw line break, so a wrapper of length one per line means every line parsed); else
 * each line alone, for the message.
 */
function parseLines(lines: readonly Line[], name: string): unknown[] {
  if (lines.length === 0) return [];
  try {
    const wrapped = JSON.parse(`[[${lines.map((l) => l.text).join("]\n,[")}]]`) as unknown[][];
    if (wrapped.length === lines.length && wrapped.every((w) => w.length === 1)) {
      return wrapped.map((w) => w[0]);
    }
  } catch {
    // Find the line at fault below.
  }
  return lines.map(({ text, line }) => {
    try {
      return JSON.parse(text);
    } catch (error) {
      throw new TraceReadError(`${name}: line ${line} is not JSON: ${errorText(error)}`, {
        cause: error,
      });
    }
  });
}
