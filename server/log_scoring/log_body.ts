/**
 * A request body read as a log is scored (`./route.ts`). Its stream hands the log on as
 * the reader asks for it, so the client's upload goes no faster than scoring; it fails with an
 * {@link HttpError} when no byte has come for `idleMs` (408) or the connection broke mid-body
 * (400), and with the signal's reason when `signal` aborts (the body is then cancelled). The
 * whole body's time is not bounded: a log may take as long as it takes, as long as it keeps
 * coming.
 *
 * Many clients (Python's `requests`, most HTTP libraries, nginx towards its upstream) send the
 * whole body before they read any of the response. Against such a client, pacing the reading by
 * the response's would deadlock once the response fills the sockets' buffers: so while the response
 * waits for its client ({@link LogBody.responseWaiting}), the body is read ahead, up to
 * `readAheadBytes`; past that the stream fails (413). After a log ends early, the owner may
 * {@link LogBody.discardRest} so that such a client still gets to read its response.
 *
 * The body is read 2 MiB at a time and handed on 32 KiB at a time.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { LogBody } from "./log_body.ts";
 * const body = new LogBody(new Blob(["case_id,activity\n"]).stream(), {
 *   signal: new AbortController().signal,
 *   idleMs: 1000,
 *   readAheadBytes: 1 << 20,
 * });
 * assert.equal(await new Response(body.stream).text(), "case_id,activity\n");
 * ```
 *
 * @module
 */

import { INCOMPLETE_BODY_DETAIL, lateBodyDetail, PieceCount } from "../pipeline/mod.ts";
import { HttpError } from "../http/mod.ts";

/** Options of {@link LogBody}. */
export interface LogBodyOptions {
  /** Stops the reading: the stream fails with the signal's reason and the body is cancelled. */
  readonly signal: AbortSignal;
  /** Time allowed between two chunks of the body, in ms; a longer wait is a 408. */
  readonly idleMs: number;
  /** Bytes of the body read ahead of the reader at most, while the response waits. */
  readonly readAheadBytes: number;
  /**
   * Told once when the stream fails, at once (the reader may be waiting elsewhere, on an
   * response its client does not read).
   */
  readonly onFailure?: ((error: unknown) => void) | undefined;
}

/**
 * Bytes a read asks for. Deno reads a request body 64 KiB at a time by default, and while the
 * response streams out on the same connection each read holds the serving thread for
 * milliseconds (its share of the connection's writes), whatever its size: fewer, larger reads
 * make a log faster and keep other requests from waiting behind them.
 */
const READ_BYTES = 2 * 1024 * 1024;
/**
 * Bytes handed on at a time: a log's reader parses a chunk in one go, and a smaller one keeps
 * that go short for the requests waiting meanwhile.
 */
const SLICE_BYTES = 32 * 1024;
/** A log past its first 4,096 pieces must average 16 bytes a piece (a CSV row a piece passes). */
const PIECES = { free: 4096, minBytes: 16, what: "log" } as const;
/** Size of the buffers small pieces are copied into, so that each holds its bytes, not a buffer. */
const GATHER_BYTES = 64 * 1024;
/** The most bytes {@link LogBody.discardRest} reads and drops before it cancels the body. */
const DISCARD_BYTES = 1 << 30;

/** A reader of the body, BYOB where the stream allows it. */
interface SourceReader {
  /** The next piece, read into `buffer` when given (a BYOB reader's; others ignore it). */
  read(buffer?: ArrayBuffer): Promise<ReadableStreamReadResult<Uint8Array>>;
  releaseLock(): void;
  cancel(reason?: unknown): Promise<void>;
}

/** See the module doc. */
export class LogBody {
  /** The log's bytes, for the reader. */
  readonly stream: ReadableStream<Uint8Array>;
  readonly #reader: SourceReader;
  readonly #options: LogBodyOptions;
  /** Chunks read and not handed on yet. */
  readonly #queue: Uint8Array[] = [];
  #queued = 0;
  #done = false;
  #failure: unknown;
  /** The read of the source under way, if any (one at a time). */
  #pending: Promise<ReadableStreamReadResult<Uint8Array>> | undefined;
  #filling: Promise<void> | undefined;
  /** Fails the read awaited now, if any. */
  #interrupt: ((error: unknown) => void) | undefined;
  #waiting = false;
  #readingAhead = false;
  #released = false;
  #broken = false;
  readonly #count = new PieceCount(PIECES);
  /** The buffer of a piece that was copied, for the next read. */
  #spare: ArrayBuffer | undefined;
  /** Where small pieces are copied, and how much of it is used. */
  #gather: Uint8Array | undefined;
  #gathered = 0;

  /** */
  constructor(body: ReadableStream<Uint8Array>, options: LogBodyOptions) {
    this.#reader = readerOf(body);
    this.#options = options;
    const { signal } = options;
    const aborted = () => {
      this.fail(signal.reason);
      this.#cancel();
    };
    signal.addEventListener("abort", aborted, { once: true });
    if (signal.aborted) aborted();
    this.stream = new ReadableStream<Uint8Array>({
      pull: async (controller) => {
        while (this.#queue.length === 0 && !this.#done && this.#failure === undefined) {
          await this.#fill();
        }
        if (this.#failure !== undefined) throw this.#failure;
        const head = this.#queue[0];
        if (head === undefined) {
          signal.removeEventListener("abort", aborted);
          controller.close();
          return;
        }
        const slice = head.subarray(0, SLICE_BYTES);
        if (head.length > SLICE_BYTES) this.#queue[0] = head.subarray(SLICE_BYTES);
        else this.#queue.shift();
        this.#queued -= slice.length;
        controller.enqueue(slice);
      },
      // The owner decides what becomes of the body (cancel it, or read the rest and drop it).
      cancel: () => {},
    }, { highWaterMark: 0 });
  }

  /**
   * Whether the response waits for its client. While it does, the body is read ahead, so that a
   * client that sends all of it before it reads gets to the end of its upload; past
   * `readAheadBytes` the stream fails with 413.
   */
  responseWaiting(waiting: boolean): void {
    this.#waiting = waiting;
    if (waiting && !this.#readingAhead) void this.#readAhead();
  }

  /**
   * Reads the whole body ahead, for a response that must not begin before the upload ends (a
   * proxy such as nginx stops relaying the request once the response begins).
   *
   * @throws {HttpError} 413 past `readAheadBytes`; 408 or 400 as the stream would fail.
   */
  async readWhole(): Promise<void> {
    while (!this.#done && this.#failure === undefined) {
      if (this.#queued > this.#options.readAheadBytes) {
        throw new HttpError(
          413,
          `The log is larger than ${this.#options.readAheadBytes} bytes, the most a log may ` +
            "hold before its answer begins (serve --max-log-read-ahead-bytes): send it gzipped, " +
            "or without answer_after_upload",
        );
      }
      await this.#fill();
    }
    if (this.#failure !== undefined) throw this.#failure;
  }

  /**
   * Whether a read of the body failed before the body's end: its client hung up (or its
   * connection broke), or the server made it unreadable as it shut down (`deno serve`).
   */
  get broken(): boolean {
    return this.#broken;
  }

  /** Fails the stream with `error` (a read of the body under way is left to finish). */
  fail(error: unknown): void {
    if (this.#failure !== undefined) return;
    this.#failure = error;
    this.#interrupt?.(error);
    this.#options.onFailure?.(error);
  }

  /**
   * After the log ended early: reads the rest of the body and drops it (up to 1 GiB, each
   * chunk within `idleMs`, until `signal` aborts), so that a client still sending gets to read
   * its response; cancels the body if it did not end.
   */
  async discardRest(): Promise<void> {
    this.#queue.length = 0;
    this.#queued = 0;
    let dropped = 0;
    try {
      while (!this.#done && dropped < DISCARD_BYTES && !this.#options.signal.aborted) {
        const result = await this.#read(false);
        if (result.done) this.#done = true;
        else {
          this.#count.add(result.value.length);
          dropped += result.value.length;
        }
      }
    } catch {
      // A stalled, broken or cut body: nothing more to drop.
    }
    if (!this.#done) this.#cancel();
  }

  async #readAhead(): Promise<void> {
    this.#readingAhead = true;
    try {
      while (this.#waiting && !this.#done && this.#failure === undefined) {
        if (this.#queued >= this.#options.readAheadBytes) {
          this.fail(
            new HttpError(
              413,
              `The client sent ${this.#queued} bytes of its log ahead of reading the answer, ` +
                "the most a log may (serve --max-log-read-ahead-bytes): read the answer while " +
                "sending the log, or send it gzipped",
            ),
          );
          return;
        }
        await this.#fill();
      }
    } catch {
      // The failure is kept: the reader meets it.
    } finally {
      this.#readingAhead = false;
    }
  }

  /**
   * Queues a piece. One that fills less than half of its buffer (HTTP/2 hands a body on a frame a
   * read) is copied and its buffer read into again, a small one after the last small one in a
   * shared buffer: what is held is about the log's bytes, not a buffer a piece.
   */
  #keep(piece: Uint8Array): void {
    if (2 * piece.length >= piece.buffer.byteLength) {
      this.#queue.push(piece);
      return;
    }
    this.#spare = piece.buffer as ArrayBuffer;
    if (2 * piece.length >= GATHER_BYTES) {
      this.#queue.push(piece.slice());
      return;
    }
    let last = this.#queue.at(-1);
    if (this.#gather === undefined || this.#gathered + piece.length > this.#gather.length) {
      this.#gather = new Uint8Array(GATHER_BYTES);
      this.#gathered = 0;
      last = undefined;
    }
    const gather = this.#gather;
    gather.set(piece, this.#gathered);
    const end = this.#gathered + piece.length;
    // The queue's last piece may end where this one starts: it grows instead.
    if (last?.buffer === gather.buffer && last.byteOffset + last.length === this.#gathered) {
      this.#queue[this.#queue.length - 1] = gather.subarray(last.byteOffset, end);
    } else this.#queue.push(gather.subarray(this.#gathered, end));
    this.#gathered = end;
  }

  /** Reads one chunk of the body into the queue (one read at a time). */
  #fill(): Promise<void> {
    return this.#filling ??= (async () => {
      try {
        const result = await this.#read(true);
        if (result.done) this.#done = true;
        else {
          this.#count.add(result.value.length);
          this.#keep(result.value);
          this.#queued += result.value.length;
        }
      } catch (error) {
        this.fail(error);
        throw this.#failure;
      } finally {
        this.#filling = undefined;
      }
    })();
  }

  /**
   * One read of the body within `idleMs`, failing at once on {@link LogBody.fail} unless
   * `failing` is false (the body is being dropped); a read that is given up stays pending and
   * is taken by the next one.
   */
  async #read(failing: boolean): Promise<ReadableStreamReadResult<Uint8Array>> {
    const { idleMs } = this.#options;
    if (this.#pending === undefined) {
      this.#pending = this.#reader.read(this.#spare);
      this.#spare = undefined;
      this.#pending.catch(() => {}); // awaited below, or given up with the body
    }
    const pending = this.#pending;
    const { promise: interrupted, reject } = Promise.withResolvers<never>();
    if (failing) {
      this.#interrupt = reject;
      if (this.#failure !== undefined) reject(this.#failure);
    }
    const timer = setTimeout(
      () => reject(new HttpError(408, lateBodyDetail(idleMs), { connection: "close" })),
      idleMs,
    );
    try {
      const result = await Promise.race([pending, interrupted]);
      this.#pending = undefined;
      return result;
    } catch (error) {
      if (error instanceof HttpError && error.status === 408) {
        // A stalled read stays pending: let go of the body without cancelling it, so that the
        // listener can close the connection once the client sends again (as `../pipeline/body.ts` does).
        this.#release();
        throw error;
      }
      if (pending !== this.#pending || error === this.#failure) throw error;
      // The read itself failed: the connection broke (or the server shut down) mid-body.
      this.#pending = undefined;
      this.#broken = true;
      throw new HttpError(400, INCOMPLETE_BODY_DETAIL, { connection: "close" });
    } finally {
      clearTimeout(timer);
      if (failing) this.#interrupt = undefined;
    }
  }

  #release(): void {
    if (this.#released) return;
    this.#released = true;
    this.#reader.releaseLock();
  }

  #cancel(): void {
    if (this.#released) return;
    this.#released = true;
    this.#reader.cancel().catch(() => {});
  }
}

/** Reads `body` {@link READ_BYTES} at a time where it can (a byte stream), else as it comes. */
function readerOf(body: ReadableStream<Uint8Array>): SourceReader {
  let byob: ReadableStreamBYOBReader;
  try {
    byob = body.getReader({ mode: "byob" });
  } catch {
    return body.getReader();
  }
  return {
    read: (buffer) =>
      byob.read(new Uint8Array(buffer ?? new ArrayBuffer(READ_BYTES))) as Promise<
        ReadableStreamReadResult<Uint8Array>
      >,
    releaseLock: () => byob.releaseLock(),
    cancel: (reason) => byob.cancel(reason),
  };
}
