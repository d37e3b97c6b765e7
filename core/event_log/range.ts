/**
 * Range shards: shard I of N reads only its share of a log whose traces lie one after another
 * (XES, JSON lists, JSONL; not gzip). A trace belongs to the range holding its first byte; a
 * shard reads the log's head, resynchronises from a little before its range, and reads on to
 * the first trace start past its end.
 *
 * @module
 */

import { DEFAULT_NAME, TraceReadError } from "./errors.ts";
import type { TraceFormat } from "./format.ts";
import { readBytes, streamFrom } from "./input.ts";
import { sniffFile } from "../bytes/file_kind.ts";
import { concatBytes } from "../bytes/concat_bytes.ts";
import { jsonTraces } from "./json/read.ts";
import { JsonScanner } from "./json/scan.ts";
import { readJsonlTraces } from "./jsonl/read.ts";
import { JsonlScanner } from "./jsonl/scan.ts";
import { isSpace, type TraceScanner } from "./scan.ts";
import type { Trace } from "./types.ts";
import { declaredEncoding, xesTraces } from "./xes/read.ts";
import { XesScanner } from "./xes/scan.ts";

/** How far before its range a shard starts its resynchronising scan (64 KiB). */
export const LOOK_BEHIND = 64 * 1024;
/** The longest head (the bytes before the first trace) a shard reads (16 MiB). */
export const MAX_HEAD_BYTES = 16 * 1024 * 1024;
/** How far past its first candidate a JSON resync scan reads while its readings disagree. */
const RESOLVE_BYTES = 1024 * 1024;
/** How much a read asks for beyond what it expects to need (a trace's end, a candidate). */
const READ_AHEAD = 64 * 1024;

/** A log's bytes, readable from any offset: a file, an HTTP server honouring `Range`, a `Blob`. */
export interface ByteSource {
  /** The log's size in bytes. */
  readonly size: number;
  /**
   * The bytes from `start` to the end of the log. The reader cancels the stream once it has
   * read enough; `until` is where it expects to stop, a hint for how much to fetch at once.
   */
  read(start: number, until: number): ReadableStream<Uint8Array>;
}

/** A {@link ByteSource} over a `Blob` (or `File`), for tests and browsers. */
export function blobSource(blob: Blob): ByteSource {
  return { size: blob.size, read: (start) => blob.slice(start).stream() };
}

/** The formats that range shards can split. */
export type SplittableFormat = "xes" | "json" | "jsonl";

/**
 * Whether a log of `format` (gzipped or not) can be read as range shards. CSV cannot (a case's
 * rows may lie anywhere, and no offset can be told to start a row), nor can gzip.
 */
export function isSplittable(format: TraceFormat, gzip: boolean): format is SplittableFormat {
  return !gzip && format !== "csv";
}

/** The log cannot be read as range shards after all (its encoding, a long head): read it whole. */
export class UnsplittableLog extends Error {
  override readonly name = "UnsplittableLog";
}

/** Options of {@link openTraceRange}. */
export interface TraceRangeOptions {
  /** The log's format. */
  readonly format: SplittableFormat;
  /** This shard, 0 to `count` - 1. */
  readonly index: number;
  /** The number of shards. */
  readonly count: number;
  /**
   * The log's name in messages.
   * @default {"traces"}
   */
  readonly name?: string | undefined;
  /**
   * Bytes scanned before the range to resynchronise.
   * @default {LOOK_BEHIND}
   */
  readonly lookBehind?: number | undefined;
}

/**
 * One shard's share of a log, opened: where its range and its traces start; its traces, read
 * on demand; and, once they are read, where the next shard's traces start.
 */
export interface TraceRange {
  /** The range's first byte, ⌊I·S/N⌋. */
  readonly from: number;
  /** The byte after the range, ⌊(I+1)·S/N⌋. */
  readonly to: number;
  /** Where the shard's first trace starts: the first trace start at or after `from` (S when none). */
  readonly start: number;
  /**
   * Where the trace after the shard's last starts (the first trace start at or after `to`),
   * or S; undefined until {@link TraceRange.traces} has been read to its end.
   */
  readonly end: number | undefined;
  /** The log's size S. */
  readonly size: number;
  /** The shard's traces, in file order (read once); `watch` wraps the stream of its bytes. */
  traces(
    watch?: (stream: ReadableStream<Uint8Array>) => ReadableStream<Uint8Array>,
  ): AsyncGenerator<Trace, void, undefined>;
}

/**
 * Opens shard `index` of `count` of a log: reads its head and finds where the shard's first
 * trace starts.
 *
 * @throws {UnsplittableLog} when the log cannot be split after all; {@link TraceReadError}
 * when it cannot be read.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { blobSource, openTraceRange } from "./range.ts";
 * // 69 bytes; its traces start at bytes 5, 47 and 55.
 * const xes = '<log><trace><string key="n" value="1"/></trace><trace/><trace/></log>';
 * const source = blobSource(new Blob([xes]));
 * const counts = [];
 * for (let index = 0; index < 3; index++) {
 *   const range = await openTraceRange(source, { format: "xes", index, count: 3 });
 *   counts.push((await Array.fromAsync(range.traces())).length);
 * }
 * // Ranges [0, 23), [23, 46), [46, 69): the second holds no trace start.
 * assert.deepEqual(counts, [1, 0, 2]);
 * ```
 */
export async function openTraceRange(
  source: ByteSource,
  options: TraceRangeOptions,
): Promise<TraceRange> {
  const { format, index, count } = options;
  const name = options.name ?? DEFAULT_NAME;
  const size = source.size;
  if (!(Number.isSafeInteger(size) && size >= 0)) {
    throw new UnsplittableLog(`${name}: its size is not known`);
  }
  const from = rangeEdge(size, index, count);
  const to = rangeEdge(size, index + 1, count);
  const { first, head } = await readHead(source, format, name);
  let start = first;
  const resynced = from > first;
  let scanFrom = first;
  if (resynced) {
    // A JSONL line starts after a line feed: one byte before the range tells.
    const lookBehind = format === "jsonl" ? 1 : options.lookBehind ?? LOOK_BEHIND;
    scanFrom = Math.max(first, from - lookBehind);
    start = await resync(source, format, name, scanFrom, from, first);
  }
  const shard = `${name} (shard ${index}/${count}, from byte ${start})`;
  let end: number | undefined;
  // Shard 0 parses the head even when it owns no trace, so that a malformed head fails it.
  const reads = start < to || (index === 0 && first === size);
  async function* traces(
    watch?: (stream: ReadableStream<Uint8Array>) => ReadableStream<Uint8Array>,
  ): AsyncGenerator<Trace, void, undefined> {
    if (!reads) {
      end = start;
      return;
    }
    const raw = start < size ? source.read(start, Math.min(size, to + READ_AHEAD)) : empty();
    const watched = watch ? watch(raw) : raw;
    const scanner = exactScanner(format, to);
    const body = cut(readBytes(watched, name, RAW), start, scanner, size, (at) => end = at);
    const bytes = streamFrom(withHead(format === "jsonl" ? [] : head, body));
    // Read at the end: a shard that reaches the end of the log checks the document's end.
    const fragment = {
      name: shard,
      lineBase: lineBreaks(head),
      get fragment() {
        return end !== size;
      },
    };
    const parsed = format === "xes"
      ? xesTraces(bytes, fragment)
      : format === "json"
      ? jsonTraces(bytes, fragment)
      : readJsonlTraces(bytes, { name: shard });
    let first = true;
    try {
      for await (const trace of parsed) {
        first = false;
        yield trace;
      }
    } catch (error) {
      if (!(first && resynced && error instanceof TraceReadError)) throw error;
      throw new TraceReadError(
        `${error.message} (this shard's first trace was found by scanning from byte ` +
          `${scanFrom}; if the log is valid, that scan was misled: shard it modulo instead)`,
        { cause: error },
      );
    } finally {
      await parsed.return();
    }
  }
  return {
    from,
    to,
    start,
    size,
    get end() {
      return end;
    },
    traces,
  };
}

/** The first byte of range `index` of `count` over `size` bytes: ⌊index·size/count⌋. */
function rangeEdge(size: number, index: number, count: number): number {
  // Exact for any size a file can have: the product fits a double's 53 bits up to 8 PiB / N.
  const product = size * index;
  return Number.isSafeInteger(product)
    ? Math.floor(product / count)
    : Number((BigInt(size) * BigInt(index)) / BigInt(count));
}

/**
 * Reads the head: the bytes before the first trace, and where that trace starts (S when the
 * log has none).
 */
async function readHead(
  source: ByteSource,
  format: SplittableFormat,
  name: string,
): Promise<{ first: number; head: Uint8Array[] }> {
  const size = source.size;
  if (size === 0) return { first: 0, head: [] };
  const scanner = format === "xes"
    ? XesScanner.exact({ depth: 0, from: 0 })
    : format === "json"
    ? new JsonHeadScanner()
    : new JsonlScanner({ from: 0, lineStart: true });
  const head: Uint8Array[] = [];
  let base = 0;
  let first = size;
  for await (const chunk of readBytes(source.read(0, Math.min(size, READ_AHEAD)), name, RAW)) {
    if (base === 0) refuseUnscannable(chunk, name);
    const hit = scanner.scan(chunk, base);
    head.push(chunk);
    base += chunk.length;
    if (hit !== -1) {
      // The trace's start tag may have begun in an earlier chunk.
      trimTo(head, base - hit);
      first = hit;
      break;
    }
    if (base > MAX_HEAD_BYTES) {
      throw new UnsplittableLog(
        `${name}: its head (the bytes before the first trace) is over ${MAX_HEAD_BYTES} bytes`,
      );
    }
  }
  if (format === "xes") checkEncoding(head, name);
  return { first, head };
}

/** Range reads take the bytes as they are. */
const RAW = { raw: true } as const;

/** A gzipped or UTF-16 log cannot be entered at an offset (see {@link checkEncoding}). */
function refuseUnscannable(first: Uint8Array, name: string): void {
  const kind = sniffFile(first);
  if (kind === "gzip") throw new UnsplittableLog(`${name}: it is gzip-compressed`);
  if (kind === "utf16") {
    throw new UnsplittableLog(
      `${name}: it is UTF-16, whose bytes cannot be scanned for markup (UTF-8 or a single-byte ` +
        "encoding can)",
    );
  }
}

/** Range shards scan bytes for ASCII markup: the encoding must keep ASCII bytes ASCII. */
function checkEncoding(head: readonly Uint8Array[], name: string): void {
  const label = declaredEncoding(head) ?? "utf-8";
  let encoding: string;
  try {
    encoding = new TextDecoder(label).encoding;
  } catch {
    return; // The reader names the unknown encoding.
  }
  if (encoding !== "utf-8" && !SINGLE_BYTE.test(encoding)) {
    throw new UnsplittableLog(
      `${name}: its encoding ${label} is not one whose bytes can be scanned for markup ` +
        `(UTF-8 or a single-byte encoding)`,
    );
  }
}

const SINGLE_BYTE = /^(?:windows-\d+|iso-8859-\d+|koi8-[ru]|ibm866|macintosh|x-mac-cyrillic)$/;

/**
 * Where the first trace start at or after `from` lies, scanning from `at` (≤ `from`, and at
 * or after `first`, the log's first trace start).
 */
async function resync(
  source: ByteSource,
  format: SplittableFormat,
  name: string,
  at: number,
  from: number,
  first: number,
): Promise<number> {
  const size = source.size;
  if (from >= size) return size;
  const scanner = format === "xes"
    ? XesScanner.resync({ from })
    : format === "json"
    ? JsonScanner.resync({ from })
    : new JsonlScanner({ from, lineStart: at === first });
  let base = at;
  for await (
    const chunk of readBytes(source.read(at, Math.min(size, from + READ_AHEAD)), name, RAW)
  ) {
    const hit = scanner.scan(chunk, base);
    if (hit !== -1) return hit;
    base += chunk.length;
    if (scanner instanceof JsonScanner && base > from + RESOLVE_BYTES) {
      const likeliest = scanner.settle();
      if (likeliest !== -1) return likeliest;
    }
  }
  if (scanner instanceof JsonScanner) {
    const likeliest = scanner.settle();
    if (likeliest !== -1) return likeliest;
  }
  return size;
}

function exactScanner(format: SplittableFormat, from: number): TraceScanner {
  if (format === "xes") return XesScanner.exact({ depth: 1, from });
  if (format === "json") return JsonScanner.exact({ from });
  return new JsonlScanner({ from, lineStart: true });
}

/**
 * The bytes of `chunks` (starting at offset `start`) up to the first trace start `scanner`
 * accepts; `onEnd` gets that offset (or `size` at the end of the log). Bytes that may still
 * begin a trace start are held back until the scanner has decided.
 */
async function* cut(
  chunks: AsyncGenerator<Uint8Array, void, undefined>,
  start: number,
  scanner: TraceScanner,
  size: number,
  onEnd: (offset: number) => void,
): AsyncGenerator<Uint8Array, void, undefined> {
  let base = start;
  /** Bytes held back, starting at offset `heldAt`. */
  let held: Uint8Array | undefined;
  let heldAt = start;
  try {
    for await (const chunk of chunks) {
      const hit = scanner.scan(chunk, base);
      const next = base + chunk.length;
      let bytes = chunk;
      let bytesAt = base;
      if (held) {
        bytes = concatBytes([held, chunk]);
        bytesAt = heldAt;
        held = undefined;
      }
      base = next;
      if (hit !== -1) {
        if (hit > bytesAt) yield bytes.subarray(0, hit - bytesAt);
        onEnd(hit);
        return;
      }
      const undecided = Math.max(scanner.undecidedFrom, bytesAt);
      if (undecided < next) {
        held = bytes.slice(undecided - bytesAt);
        heldAt = undecided;
        bytes = bytes.subarray(0, undecided - bytesAt);
      }
      if (bytes.length > 0) yield bytes;
    }
    if (held) yield held;
    onEnd(size);
  } finally {
    await chunks.return();
  }
}

/** Drops the last `excess` bytes of `chunks`. */
function trimTo(chunks: Uint8Array[], excess: number): void {
  while (excess > 0) {
    const last = chunks.pop()!;
    if (last.length > excess) chunks.push(last.subarray(0, last.length - excess));
    excess -= Math.min(excess, last.length);
  }
}

async function* withHead(
  head: readonly Uint8Array[],
  body: AsyncGenerator<Uint8Array, void, undefined>,
): AsyncGenerator<Uint8Array, void, undefined> {
  try {
    yield* head;
    yield* body;
  } finally {
    await body.return();
  }
}

function empty(): ReadableStream<Uint8Array> {
  return new ReadableStream({ start: (controller) => controller.close() });
}

function lineBreaks(chunks: readonly Uint8Array[]): number {
  let count = 0;
  for (const chunk of chunks) {
    for (let i = chunk.indexOf(0x0a); i !== -1; i = chunk.indexOf(0x0a, i + 1)) count++;
  }
  return count;
}

const BOM = [0xef, 0xbb, 0xbf];

/**
 * The head of a JSON list: a byte-order mark, white space, `[`, white space; the first
 * element starts at the first other byte. An empty list, or a top level that is not a list,
 * has no trace start (the parser of shard 0 reports the latter).
 */
class JsonHeadScanner implements TraceScanner {
  /** 0: before `[`; 1: after it; 2: no element. */
  #state = 0;
  readonly undecidedFrom = Infinity;

  scan(bytes: Uint8Array, base: number): number {
    for (let i = 0; i < bytes.length && this.#state < 2; i++) {
      const code = bytes[i]!;
      const at = base + i;
      if ((at < 3 && code === BOM[at]) || isSpace(code)) continue;
      if (this.#state === 0 && code === 0x5b) this.#state = 1;
      else if (this.#state === 1 && code !== 0x5d) return at;
      else this.#state = 2;
    }
    return -1;
  }
}
