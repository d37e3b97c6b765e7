/**
 * What the byte scanners of range shards have in common: each finds where traces start in
 * the raw bytes of a log without decoding them, so a shard can tell where its share begins.
 * Structural characters are ASCII and UTF-8's multi-byte characters hold no ASCII byte, so
 * scanning bytes is exact.
 *
 * @module
 */

/** Finds trace starts in a log's bytes, chunk by chunk, reporting offsets of the whole log. */
export interface TraceScanner {
  /**
   * Scans `bytes`, whose first byte is at offset `base` of the log, going on from the last
   * call; returns the offset of the first trace start it accepts, or -1 when these bytes hold
   * none. After a hit the scanner is spent.
   */
  scan(bytes: Uint8Array, base: number): number;
  /**
   * The offset from which the bytes scanned so far may still turn out to begin a trace start
   * (a tag whose name is not complete yet); `Infinity` when none.
   */
  readonly undecidedFrom: number;
}

/**
 * The first trace start `scanner` accepts in `chunks` (consecutive, from offset `base`), or -1.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { firstTraceStart } from "./scan.ts";
 * import { XesScanner } from "./xes/scan.ts";
 * const xes = new TextEncoder().encode('<log><!-- <trace> --><trace></trace></log>');
 * assert.equal(firstTraceStart(XesScanner.exact({ depth: 0, from: 0 }), [xes]), 21);
 * ```
 */
export function firstTraceStart(
  scanner: TraceScanner,
  chunks: Iterable<Uint8Array>,
  base = 0,
): number {
  for (const chunk of chunks) {
    const hit = scanner.scan(chunk, base);
    if (hit !== -1) return hit;
    base += chunk.length;
  }
  return -1;
}

/** Whether `code` is XML/JSON white space (space, tab, line feed, carriage return). */
export function isSpace(code: number): boolean {
  return code === 0x20 || code === 0x0a || code === 0x0d || code === 0x09;
}
