/**
 * Where a scored log's entries go, as text: an {@link EntrySink} takes entries in order and adds
 * the text around them (brackets and separators for `json`, newlines for `jsonl`). `cli.ts batch`
 * prints the text, `POST /batch` streams it (the function's promise is the client's
 * backpressure); the file sink is `cli/batch/entry_sink.ts`.
 *
 * @module
 */

import type { EntryLayout } from "./entry_layout.ts";

/** Entries in, text out. */
export interface EntrySink {
  /** Writes entries (in order); resolves once they are written. */
  write(entries: readonly string[]): Promise<void>;
  /** Ends the list; a file is renamed into place. */
  close(): Promise<void>;
  /** Stops after a failure; a file's temporary is removed. */
  abort(): Promise<void>;
}

/**
 * A sink handing its text to `out`, a write at a time; a write resolves once `out`'s promise
 * (if any) does.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { textSink } from "./text_sink.ts";
 * import { entryLayout } from "./entry_layout.ts";
 * let text = "";
 * const sink = textSink(entryLayout("json"), (t) => void (text += t));
 * await sink.write(["  {}"]);
 * await sink.close();
 * assert.equal(text, "[\n  {}\n]\n");
 * ```
 */
export function textSink(
  layout: EntryLayout,
  out: (text: string) => void | Promise<void>,
): EntrySink {
  let empty = true;
  const text = (entries: readonly string[]): string => {
    if (entries.length === 0) return "";
    const head = layout.start(empty);
    empty = false;
    return head + entries.join(layout.start(false));
  };
  return {
    write: async (entries) => await out(text(entries)),
    close: async () => await out(layout.end(empty)),
    abort: () => Promise.resolve(),
  };
}
