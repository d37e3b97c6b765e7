/**
 * Where `batch` reads an event log from: a file, an `http(s)` URL (a presigned S3 or GCS URL,
 * any HTTP server) or standard input, as one stream and, when it can be read from any offset, a
 * {@link ByteSource} for range shards. Each counts the bytes it read. URLs go through
 * `adapter/deno/http_file.ts`, their query string (maybe a signature) shown as `?…`; a range is
 * fetched in growing windows so a shard reads little past its share, and a server that ignores
 * `Range` is read once from its start.
 *
 * @module
 */

import { type ByteSource, streamFrom, TraceReadError } from "../../core/event_log/mod.ts";
import { HttpFile } from "../../adapter/deno/http_file.ts";

/** An event log to read. */
export interface LogSource {
  /** The log's name in messages: the path, the URL (query string hidden), or `stdin`. */
  readonly name: string;
  /** The name whose suffix tells the format (a URL's path), or undefined for stdin. */
  readonly formatName: string | undefined;
  /** Its size in bytes, when known. */
  readonly size: number | undefined;
  /** Whether {@link LogSource.open} may be called more than once (not for stdin). */
  readonly reopenable: boolean;
  /** The whole log, from its first byte. */
  open(): ReadableStream<Uint8Array>;
  /** The log for range shards, or undefined when it cannot be read from any offset. */
  ranges(): Promise<ByteSource | undefined>;
  /** Bytes read so far (fetched, for a URL). */
  readonly bytesRead: number;
  /** The `ETag` of a URL's object, from its first response that has one. */
  readonly etag: string | undefined;
  /** Releases what it holds unread (a response body); reading after is an error. */
  close(): Promise<void>;
}

/** Bytes read from a file at a time. */
const FILE_CHUNK = 64 * 1024;

/**
 * A log in a file of `size` bytes (the caller has checked that it is a readable file).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { fileLogSource } from "./log_source.ts";
 * const path = "examples/rest_serving/applications.json";
 * const source = fileLogSource(path, (await Deno.stat(path)).size);
 * const ranges = await source.ranges();
 * const tail = await new Response(ranges!.read(ranges!.size - 2, ranges!.size)).text();
 * assert.equal(tail, "]\n");
 * assert.equal(source.bytesRead, 2);
 * ```
 */
export function fileLogSource(path: string, size: number): LogSource {
  let bytesRead = 0;
  const stream = (start: number): ReadableStream<Uint8Array> => {
    let file: Deno.FsFile | undefined;
    const close = () => {
      file?.close();
      file = undefined;
    };
    return new ReadableStream<Uint8Array>({
      async start() {
        file = await Deno.open(path);
        if (start > 0) await file.seek(start, Deno.SeekMode.Start);
      },
      async pull(controller) {
        const buffer = new Uint8Array(FILE_CHUNK);
        let count: number | null;
        try {
          count = await file!.read(buffer);
        } catch (error) {
          close();
          throw error;
        }
        if (count === null) {
          close();
          controller.close();
          return;
        }
        bytesRead += count;
        controller.enqueue(buffer.subarray(0, count));
      },
      cancel: close,
    });
  };
  const ranges: ByteSource = { size, read: (start) => stream(start) };
  return {
    name: path,
    formatName: path,
    size,
    reopenable: true,
    open: () => stream(0),
    ranges: () => Promise.resolve(ranges),
    get bytesRead() {
      return bytesRead;
    },
    etag: undefined,
    close: () => Promise.resolve(),
  };
}

/** Standard input: read once, size unknown, no ranges. */
export function stdinLogSource(): LogSource {
  let bytesRead = 0;
  let opened = false;
  return {
    name: "stdin",
    formatName: undefined,
    size: undefined,
    reopenable: false,
    open() {
      if (opened) throw new TraceReadError("stdin: standard input can be read only once");
      opened = true;
      return Deno.stdin.readable.pipeThrough(
        new TransformStream<Uint8Array, Uint8Array>({
          transform(chunk, controller) {
            bytesRead += chunk.length;
            controller.enqueue(chunk);
          },
        }),
      );
    },
    ranges: () => Promise.resolve(undefined),
    get bytesRead() {
      return bytesRead;
    },
    etag: undefined,
    close: () => Promise.resolve(),
  };
}

/** Whether a `--traces` argument names a URL (`http:` or `https:`). */
export function isLogUrl(text: string): boolean {
  return /^https?:\/\//i.test(text);
}

/**
 * A URL as messages show it: without its query string (often a signature), marked `?…`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { displayUrl } from "./log_source.ts";
 * assert.equal(
 *   displayUrl(new URL("https://b.example.com/log.xes?X-Amz-Signature=abc")),
 *   "https://b.example.com/log.xes?…",
 * );
 * ```
 */
export function displayUrl(url: URL): string {
  return `${url.origin}${url.pathname}${url.search ? "?…" : ""}`;
}

/** The first window of a probe: the head of most logs. */
const PROBE_BYTES = 64 * 1024;
/** The largest window fetched at once past what a read expected to need. */
const MAX_WINDOW = 8 * 1024 * 1024;
/** Recent bytes kept when the server ignores `Range`, so a read may start a little back. */
const KEPT_BYTES = 4 * 1024 * 1024;

/** Options of {@link urlLogSource}. */
export interface UrlLogOptions {
  /** Probe for range support (a range shard will read it): a first `Range` request. */
  readonly ranges: boolean;
  /** Called with a note line for stderr (the server ignores `Range`, say). */
  readonly note: (line: string) => void;
  /** How long a response, or a body's next bytes, may take, in ms. @default {60000} */
  readonly timeoutMs?: number | undefined;
}

/**
 * A log behind an `http(s)` URL. Sends its first request at once, so a wrong URL fails before
 * the model is loaded: a plain `GET`, or with `ranges` a `Range` probe of the first 64 KiB
 * that also tells the size and whether the server honours `Range`.
 *
 * @throws {TraceReadError} naming the URL: no answer, an HTTP error, no permission.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { urlLogSource } from "./log_source.ts";
 * const body = '{"events": ["a"]}\n{"events": ["b"]}\n';
 * await using server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, () =>
 *   new Response(body));
 * const url = new URL(`http://127.0.0.1:${server.addr.port}/log.jsonl`);
 * const source = await urlLogSource(url, { ranges: false, note: () => {} });
 * assert.equal(await new Response(source.open()).text(), body);
 * await source.close();
 * ```
 */
export async function urlLogSource(url: URL, options: UrlLogOptions): Promise<LogSource> {
  const name = displayUrl(url);
  const fetcher = new HttpFile(url, {
    timeoutMs: options.timeoutMs,
    expected: "an event log",
    error: (problem) => new TraceReadError(`${name}: ${problem.message}`),
  });
  let first: Response | undefined;
  let size: number | undefined;
  let ranges: ByteSource | undefined;
  if (options.ranges) {
    const probe = await fetcher.get(0, PROBE_BYTES);
    if (probe.status === 416) {
      await probe.body?.cancel();
      const empty = /^bytes \*\/0$/.test(probe.headers.get("content-range")?.trim() ?? "");
      if (!empty) throw fetcher.error("the server refused a Range request for byte 0 (HTTP 416)");
      size = 0;
      ranges = new WindowedRanges(fetcher, 0, new Uint8Array(0));
    } else if (probe.status === 206) {
      const { last, total } = await fetcher.rangeOf(probe, 0);
      size = total;
      const prefix = await fetcher.body(probe, last + 1);
      if (size !== undefined) ranges = new WindowedRanges(fetcher, size, prefix);
    } else {
      size = fetcher.lengthOf(probe);
      options.note(
        `note: ${url.host} ignores HTTP Range requests (it answered ${probe.status} with the ` +
          `whole log); the shard reads the log from its start, skipping to its share`,
      );
      if (size !== undefined) ranges = new ForwardRanges(fetcher, size, probe);
      else await probe.body?.cancel();
    }
  } else {
    first = await fetcher.get();
    size = fetcher.lengthOf(first);
  }
  return {
    name,
    formatName: url.pathname,
    size,
    reopenable: true,
    open() {
      const response = first;
      first = undefined;
      return fetcher.stream(response ? Promise.resolve(response) : fetcher.get(), size);
    },
    ranges: () => Promise.resolve(ranges),
    get bytesRead() {
      return fetcher.bytesRead;
    },
    get etag() {
      return fetcher.etag;
    },
    async close() {
      await first?.body?.cancel();
      first = undefined;
      if (ranges instanceof ForwardRanges) await ranges.close();
    },
  };
}

/**
 * Ranges fetched in windows with `Range` requests: a read from `start` fetches up to what it
 * expects to need, then windows of 64 KiB doubling up to 8 MiB, until it is cancelled or the
 * log ends. The probe's first 64 KiB serve reads that start within them.
 */
class WindowedRanges implements ByteSource {
  constructor(
    readonly fetcher: HttpFile,
    readonly size: number,
    readonly prefix: Uint8Array,
  ) {}

  read(start: number, until: number): ReadableStream<Uint8Array> {
    return streamFrom(this.#chunks(start, Math.max(until, start + 1)));
  }

  async *#chunks(start: number, until: number): AsyncGenerator<Uint8Array> {
    let at = start;
    if (at < this.prefix.length) {
      yield this.prefix.subarray(at);
      at = this.prefix.length;
    }
    let window = PROBE_BYTES;
    while (at < this.size) {
      const end = Math.min(this.size, Math.max(until, at + window));
      const response = await this.fetcher.get(at, end);
      if (response.status !== 206) {
        await response.body?.cancel();
        throw this.fetcher.error(
          `the server answered a Range request with HTTP ${response.status} after honouring ` +
            `the first`,
        );
      }
      const { last } = await this.fetcher.rangeOf(response, at);
      yield* this.fetcher.chunks(response, last - at + 1);
      at = last + 1;
      window = Math.min(MAX_WINDOW, window * 2);
    }
  }
}

/**
 * Ranges of a log whose server ignores `Range`: one `GET` streams it from its start, keeping the
 * last 4 MiB so a shard's resynchronising scan may start a little back; further back, a new `GET`.
 */
class ForwardRanges implements ByteSource {
  #chunks: AsyncGenerator<Uint8Array> | undefined;
  /** Offset of the next byte of the stream. */
  #at = 0;
  /** Recent bytes, ending at #at. */
  #kept: Uint8Array[] = [];
  #keptLength = 0;

  /** The first response, until its body is read. */
  #first: Response | undefined;

  constructor(readonly fetcher: HttpFile, readonly size: number, first: Response) {
    this.#first = first;
  }

  read(start: number): ReadableStream<Uint8Array> {
    return streamFrom(this.#from(start));
  }

  async *#from(start: number): AsyncGenerator<Uint8Array> {
    if (start < this.#at - this.#keptLength) await this.#restart();
    // Kept bytes from `start` on.
    let offset = this.#at - this.#keptLength;
    for (const chunk of [...this.#kept]) {
      const end = offset + chunk.length;
      if (end > start) yield chunk.subarray(Math.max(0, start - offset));
      offset = end;
    }
    if (this.#first) {
      this.#chunks = this.fetcher.chunks(this.#first, this.size);
      this.#first = undefined;
    }
    while (this.#at < this.size) {
      const next = await this.#chunks!.next();
      if (next.done) return;
      const chunk = next.value;
      const begin = this.#at;
      this.#keep(chunk);
      if (begin + chunk.length > start) yield chunk.subarray(Math.max(0, start - begin));
    }
  }

  #keep(chunk: Uint8Array): void {
    this.#at += chunk.length;
    this.#kept.push(chunk);
    this.#keptLength += chunk.length;
    while (this.#keptLength - this.#kept[0]!.length >= KEPT_BYTES) {
      this.#keptLength -= this.#kept.shift()!.length;
    }
  }

  /** Stops the stream. */
  async close(): Promise<void> {
    await this.#first?.body?.cancel();
    this.#first = undefined;
    await this.#chunks?.return(undefined);
    this.#chunks = undefined;
  }

  async #restart(): Promise<void> {
    await this.close();
    this.#chunks = this.fetcher.chunks(await this.fetcher.get(), this.size);
    this.#at = 0;
    this.#kept = [];
    this.#keptLength = 0;
  }
}
