/**
 * What the byte scanners of range shards share: each finds where traces start in a log's raw
 * bytes without decoding them (exact, as UTF-8's multi-byte characters hold no ASCII byte).
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

/** The first trace start `scanner` accepts in `chunks` (consecutive, from offset `base`), or -1. */
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
