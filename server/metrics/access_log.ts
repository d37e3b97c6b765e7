/**
 * The access log: one line per answered request, buffered and written in chunks so logging costs
 * little throughput, and flushed at shutdown so no line is lost. The sink is injected.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { AccessLog } from "./access_log.ts";
 * const chunks: string[] = [];
 * const log = new AccessLog((text) => chunks.push(text));
 * log.record({ time: 0, method: "GET", path: "/healthz", route: "/healthz", status: 200, seconds: 0.0001 });
 * log.close();
 * assert.equal(chunks.join(""), "1970-01-01T00:00:00.000Z GET /healthz 200 0.100ms -\n");
 * ```
 *
 * @module
 */

/** One answered request. */
export interface RequestRecord {
  /** When it arrived, in ms since the epoch. */
  readonly time: number;
  /** The HTTP method. */
  readonly method: string;
  /** The request-target as the request line sent it (path and query), not rebuilt from `Host`. */
  readonly path: string;
  /** The route template it matched (`unmatched` for none). */
  readonly route: string;
  /** The response's HTTP status. */
  readonly status: number;
  /** From arrival to response. */
  readonly seconds: number;
  /** Model rows it ran; absent when it ran none. */
  readonly rows?: number | undefined;
  /** Its `X-Request-Id` (given or generated: `../http/request_id.ts`); absent for none. */
  readonly requestId?: string | undefined;
}

/** Options of {@link AccessLog}. */
export interface AccessLogOptions {
  /**
   * How often buffered lines are written, in ms.
   * @default {250}
   */
  readonly flushMs?: number;
  /**
   * Write as soon as this many characters are buffered.
   * @default 64 KiB
   */
  readonly maxBuffered?: number;
}

/** A buffered access log; see the module doc. */
export class AccessLog {
  readonly #write: (text: string) => void;
  readonly #maxBuffered: number;
  readonly #timer: ReturnType<typeof setInterval>;
  #lines: string[] = [];
  #buffered = 0;
  #closed = false;

  /**
   * Starts the log; its flush interval does not keep the process alive.
   *
   * @param write receives chunks of whole lines.
   */
  constructor(write: (text: string) => void, options: AccessLogOptions = {}) {
    this.#write = write;
    this.#maxBuffered = options.maxBuffered ?? 64 * 1024;
    this.#timer = setInterval(() => this.flush(), options.flushMs ?? 250);
    // The log must not keep a process alive on its own (Deno's unrefTimer where it exists).
    const deno = (globalThis as { Deno?: { unrefTimer?: (id: number) => void } }).Deno;
    deno?.unrefTimer?.(this.#timer as unknown as number);
  }

  /** Buffers one line (after {@link AccessLog.close}, writes it at once). */
  record(record: RequestRecord): void {
    const line = formatLine(record);
    this.#lines.push(line);
    this.#buffered += line.length;
    if (this.#closed || this.#buffered >= this.#maxBuffered) this.flush();
  }

  /** Writes what is buffered. */
  flush(): void {
    if (this.#lines.length === 0) return;
    const text = this.#lines.join("");
    this.#lines = [];
    this.#buffered = 0;
    this.#write(text);
  }

  /** Flushes and stops the interval; later records are written one by one. */
  close(): void {
    clearInterval(this.#timer);
    this.#closed = true;
    this.flush();
  }
}

/** One line of the log, with its newline. */
export function formatLine(record: RequestRecord): string {
  const rows = record.rows === undefined ? "-" : `rows=${record.rows}`;
  // A URL's pathname is percent-encoded; anything else with a space is encoded so a request stays one line.
  const path = SPACE.test(record.path)
    ? record.path.replace(/\s/g, encodeURIComponent)
    : record.path;
  // Request ids hold no space (`../http/request_id.ts` keeps only safe ones).
  const id = record.requestId === undefined ? "" : ` id=${record.requestId}`;
  return `${isoTime(record.time)} ${record.method} ${path} ${record.status} ` +
    `${(record.seconds * 1000).toFixed(3)}ms ${rows}${id}\n`;
}

const SPACE = /\s/;

/** The last second formatted, so that a line only formats its milliseconds. */
let cachedSecond = NaN;
let cachedPrefix = "";

/** `new Date(time).toISOString()`, reusing the date and time of the previous call's second. */
function isoTime(time: number): string {
  if (!Number.isInteger(time)) return new Date(time).toISOString();
  const second = Math.floor(time / 1000);
  const iso = second === cachedSecond ? undefined : new Date(time).toISOString();
  if (iso !== undefined) {
    if (iso.length !== 24) return iso; // a year outside 0000–9999: not cached
    cachedSecond = second;
    cachedPrefix = iso.slice(0, 20);
    return iso;
  }
  const ms = time - second * 1000;
  return `${cachedPrefix}${ms < 10 ? "00" : ms < 100 ? "0" : ""}${ms}Z`;
}
