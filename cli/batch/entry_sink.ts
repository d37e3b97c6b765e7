/**
 * Where `batch` writes its entries: standard output, or an {@link AtomicFile} renamed into place
 * once the list is complete. The sink adds the text around the entries (brackets and separators
 * for `json`, newlines for `jsonl`).
 *
 * @module
 */

import type { AtomicFile } from "./atomic_file.ts";
import { type EntryLayout, type EntrySink, textSink } from "../../core/log_scoring/mod.ts";

export type { EntrySink };

/**
 * A sink writing to `file`, or through `out` (standard output) when `file` is undefined.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { openEntrySink } from "./entry_sink.ts";
 * import { AtomicFile } from "./atomic_file.ts";
 * import { entryLayout } from "../../core/log_scoring/mod.ts";
 * const dir = await Deno.makeTempDir();
 * const file = await AtomicFile.create(`${dir}/scores.jsonl`);
 * const sink = openEntrySink(file, entryLayout("jsonl"), () => {});
 * await sink.write(['{"a":1}']);
 * await sink.close(); // renamed into place
 * assert.equal(await Deno.readTextFile(`${dir}/scores.jsonl`), '{"a":1}\n');
 * await Deno.remove(dir, { recursive: true });
 * ```
 */
export function openEntrySink(
  file: AtomicFile | undefined,
  layout: EntryLayout,
  out: (text: string) => void,
): EntrySink {
  if (file === undefined) return textSink(layout, out);
  let empty = true;
  const bytes = new ByteBuffer(file);
  const separator = layout.start(false);
  return {
    write: async (entries) => {
      // Joined a piece at a time: strings and buffers stay small enough for V8's young
      // generation, where they die cheaply (a megabyte string goes to large-object space).
      for (let i = 0; i < entries.length;) {
        let piece = i === 0 ? layout.start(empty) : separator;
        empty = false;
        piece += entries[i++];
        while (i < entries.length && piece.length < PIECE_CHARS) piece += separator + entries[i++];
        await bytes.put(piece);
      }
      await bytes.flush();
    },
    close: async () => {
      await bytes.put(layout.end(empty));
      await bytes.flush();
      await file.commit();
    },
    abort: () => file.abort(),
  };
}

/** Characters joined before they are encoded. */
const PIECE_CHARS = 32 * 1024;
/** The one buffer text is encoded into for the file. */
const BUFFER_BYTES = 1 << 20;

/**
 * Encodes text into one reused buffer and writes it out when full: no buffer per write. A
 * write must finish (its promise resolve) before the next `put`, as the sink's caller ensures.
 */
class ByteBuffer {
  readonly #buffer = new Uint8Array(BUFFER_BYTES);
  readonly #encoder = new TextEncoder();
  #used = 0;

  constructor(readonly file: AtomicFile) {}

  async put(text: string): Promise<void> {
    for (;;) {
      const { read, written } = this.#encoder.encodeInto(text, this.#buffer.subarray(this.#used));
      this.#used += written;
      if (read === text.length) return;
      text = text.slice(read);
      await this.flush();
    }
  }

  async flush(): Promise<void> {
    if (this.#used === 0) return;
    await this.file.write(this.#buffer.subarray(0, this.#used));
    this.#used = 0;
  }
}
