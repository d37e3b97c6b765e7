/**
 * What identifies the log a shard scored, for its part's trailer: its size and the SHA-256 of
 * its first 64 KiB. A range shard reads the head first ({@link readHead}); a modulo shard reads
 * the whole log anyway, and a {@link LogTap} keeps the head as the stream passes (so stdin,
 * read once, works too).
 *
 * @module
 */

import { sha256Hex } from "../../core/bundle/mod.ts";
import type { ByteSource } from "../../core/event_log/mod.ts";

/** The bytes of a log's head that its digest covers. */
export const HEAD_BYTES = 64 * 1024;

/** A log's size and its head's digest. */
export interface LogHead {
  /** The log's size in bytes. */
  readonly size: number;
  /** The SHA-256 (hex) of its first {@link HEAD_BYTES} (all of it when smaller). */
  readonly digest: string;
}

/**
 * The head of a log that can be read from any offset.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { readHead } from "./log_identity.ts";
 * import { blobSource } from "../../core/event_log/mod.ts";
 * const head = await readHead(blobSource(new Blob(["abc"])));
 * assert.equal(head.size, 3);
 * assert.equal(head.digest, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
 * ```
 */
export async function readHead(source: ByteSource): Promise<LogHead> {
  const length = Math.min(source.size, HEAD_BYTES);
  const bytes = new Uint8Array(length);
  let at = 0;
  const reader = source.read(0, length).getReader();
  try {
    while (at < length) {
      const { done, value } = await reader.read();
      if (done) break;
      const take = value.subarray(0, length - at);
      bytes.set(take, at);
      at += take.length;
    }
  } finally {
    await reader.cancel().catch(() => {});
  }
  return { size: source.size, digest: await sha256Hex(bytes.subarray(0, at)) };
}

/**
 * Keeps the head of the first stream it taps and counts that stream's bytes.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { LogTap } from "./log_identity.ts";
 * const tap = new LogTap();
 * await new Response(tap.tap(new Response("abc").body!)).text();
 * const head = await tap.head();
 * assert.equal(head.size, 3);
 * assert.equal(head.digest, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
 * ```
 */
export class LogTap {
  readonly #head = new Uint8Array(HEAD_BYTES);
  #kept = 0;
  #size = 0;
  #tapped = false;

  /** `stream` as it is, its head kept and its bytes counted when it is the first one. */
  tap(stream: ReadableStream<Uint8Array>): ReadableStream<Uint8Array> {
    if (this.#tapped) return stream;
    this.#tapped = true;
    return stream.pipeThrough(
      new TransformStream<Uint8Array, Uint8Array>({
        transform: (chunk, controller) => {
          if (this.#kept < HEAD_BYTES) {
            const take = chunk.subarray(0, HEAD_BYTES - this.#kept);
            this.#head.set(take, this.#kept);
            this.#kept += take.length;
          }
          this.#size += chunk.length;
          controller.enqueue(chunk);
        },
      }),
    );
  }

  /** The head kept and the bytes counted so far (the whole log once it has been read). */
  async head(): Promise<LogHead> {
    return { size: this.#size, digest: await sha256Hex(this.#head.subarray(0, this.#kept)) };
  }
}
