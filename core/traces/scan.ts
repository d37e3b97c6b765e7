/**
 * What the byte scanners of range shards have in common ({@link TraceScanner}): each finds
 * where traces start in the raw bytes of a log (`xes_scan.ts`, `json_scan.ts`,
 * `jsonl_scan.ts`), without decoding or parsing them, so a shard can tell where its share of a
 * log begins and ends. A scanner keeps its state across chunks and reports offsets of the
 * whole log. Structural characters are ASCII and the logs are UTF-8 (or a single-byte
 * encoding), whose multi-byte characters hold no ASCII byte, so scanning bytes is exact.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { firstTraceStart } from "./scan.ts";
 * import { JsonlScanner } from "./jsonl_scan.ts";
 * const bytes = new TextEncoder().encode('{"events": []}\n\n{"events": []}\n');
 * assert.equal(firstTraceStart(new JsonlScanner({ from: 1, lineStart: true }), [bytes]), 16);
 * ```
 *
 * @module
 */

/**
 * Finds trace starts in a log's bytes, chunk by chunk.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import type { TraceScanner } from "./scan.ts";
 * import { JsonlScanner } from "./jsonl_scan.ts";
 * const scanner: TraceScanner = new JsonlScanner({ from: 0, lineStart: true });
 * assert.equal(scanner.scan(new Uint8Array(0), 0), -1); // none in these bytes
 * ```
 */
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
 * The first trace start `scanner` accepts in `chunks` (consecutive, from offset `base`), or
 * -1.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { firstTraceStart } from "./scan.ts";
 * import { XesScanner } from "./xes_scan.ts";
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
