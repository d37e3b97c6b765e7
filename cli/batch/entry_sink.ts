/**
 * Where `batch` writes its entries: standard output, or an {@link AtomicFile} renamed into
 * place once the list is complete. The sink adds the text around the entries (the list's
 * brackets and separators for `json`, newlines for `jsonl`).
 *
 * @example
 * ```ts
 * import { openEntrySink } from "./entry_sink.ts";
 * import { entryLayout } from "./entry_layout.ts";
 * import assert from "node:assert/strict";
 * let text = "";
 * const sink = openEntrySink(undefined, entryLayout("json"), (t) => text += t);
 * await sink.write(["  {}"]);
 * await sink.close();
 * assert.equal(text, "[\n  {}\n]\n");
 * ```
 *
 * @module
 */

import type { AtomicFile } from "./atomic_file.ts";
import type { EntryLayout } from "./entry_layout.ts";

/**
 * Entries in, text out.
 *
 * @example
 * ```ts
 * import type { EntrySink } from "./entry_sink.ts";
 * declare const sink: EntrySink;
 * await sink.write([]);
 * ```
 */
export interface EntrySink {
  /** Writes entries (in order); resolves once they are written. */
  write(entries: readonly string[]): Promise<void>;
  /** Ends the list; a file is renamed into place. */
  close(): Promise<void>;
  /** Stops after a failure; a file's temporary is removed. */
  abort(): Promise<void>;
}

/**
 * A sink writing to `file`, or through `out` (standard output) when `file` is undefined.
 *
 * @example
 * ```ts
 * import { openEntrySink } from "./entry_sink.ts";
 * import { AtomicFile } from "./atomic_file.ts";
 * import { entryLayout } from "./entry_layout.ts";
 * const file = await AtomicFile.create("/tmp/scores.jsonl");
 * const sink = openEntrySink(file, entryLayout("jsonl"), () => {});
 * await sink.close();
 * ```
 */
export function openEntrySink(
  file: AtomicFile | undefined,
  layout: EntryLayout,
  out: (text: string) => void,
): EntrySink {
  let empty = true;
  const text = (entries: readonly string[]): string => {
    if (entries.length === 0) return "";
    const head = layout.start(empty);
    empty = false;
    return head + entries.join(layout.start(false));
  };
  if (file === undefined) {
    return {
      write: (entries) => Promise.resolve(out(text(entries))),
      close: () => Promise.resolve(out(layout.end(empty))),
      abort: () => Promise.resolve(),
    };
  }
  const encoder = new TextEncoder();
  return {
    write: (entries) => file.write(encoder.encode(text(entries))),
    close: async () => {
      await file.write(encoder.encode(layout.end(empty)));
      await file.commit();
    },
    abort: () => file.abort(),
  };
}
