/**
 * Reads a request body as JSON within the server's limits: at most `maxBytes` (a larger
 * `Content-Length` is refused unread) and within `timeoutMs`. JSON is read whatever the
 * `Content-Type` says.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { readJsonBody } from "./body.ts";
 * import { RequestContext } from "./context.ts";
 * const request = new Request("http://localhost/forward", {
 *   method: "POST",
 *   body: '{"input_marking": {}}',
 * });
 * assert.deepEqual(await readJsonBody(new RequestContext(request, false), { maxBytes: 1 << 20, timeoutMs: 30_000 }), { input_marking: {} });
 * ```
 *
 * @module
 */

import { jsonInvalid, missingBody } from "../../core/schemas/mod.ts";
import { HttpError, ValidationError } from "../http/mod.ts";
import { DeadlineSweep } from "./deadline_sweep.ts";
import { concatBytes } from "../../core/bytes/mod.ts";
import type { RequestContext } from "./context.ts";
import { PieceCount } from "./piece_count.ts";

/** One sweep per time-out length (a server has one), shared by all its requests. */
const sweeps = new Map<number, DeadlineSweep>();

function sweepFor(timeoutMs: number): DeadlineSweep {
  let sweep = sweeps.get(timeoutMs);
  if (sweep === undefined) sweeps.set(timeoutMs, sweep = new DeadlineSweep(timeoutMs));
  return sweep;
}

/** Limits on reading one request body. */
export interface BodyLimits {
  /** Largest accepted body in bytes; a larger one is answered 413. */
  readonly maxBytes: number;
  /** Time allowed for the whole body to arrive; a slower one is answered 408. */
  readonly timeoutMs: number;
}

/**
 * Reads the body and parses it as JSON.
 *
 * @throws {HttpError} 413 over `maxBytes`, 408 past `timeoutMs`, 400 on a broken connection.
 * @throws {ValidationError} 422 when the body is empty, not UTF-8 or not JSON.
 */
export async function readJsonBody(
  context: RequestContext,
  limits: BodyLimits,
): Promise<unknown> {
  const bytes = await readBody(context, limits);
  if (bytes.length === 0) throw new ValidationError([missingBody()]);
  try {
    return parseJsonBytes(bytes);
  } catch (error) {
    if (!(error instanceof NotJsonError)) throw error;
    // V8 gives a position for some syntax errors only: it goes in the message, not in loc.
    const message = error.step === "utf-8" ? "The body is not valid UTF-8" : error.message;
    throw new ValidationError([jsonInvalid(0, message)]);
  }
}

/** Why bytes are not a JSON value: which step failed, with that step's own message. */
export class NotJsonError extends Error {
  /** An error of `step` with its message. */
  constructor(readonly step: "utf-8" | "json", message: string) {
    super(message);
    this.name = "NotJsonError";
  }
}

const utf8 = new TextDecoder("utf-8", { fatal: true });
const lenient = new TextDecoder();

/**
 * Decodes `bytes` as strict UTF-8 and parses them as JSON: shared by {@link readJsonBody} and
 * the Open Inference Protocol's `infer`, which word their errors differently.
 *
 * @throws {NotJsonError} when the bytes are not UTF-8 or the text is not JSON (empty included).
 */
export function parseJsonBytes(bytes: Uint8Array): unknown {
  // The lenient decoder is the faster; only a text with U+FFFD can hide an invalid sequence.
  let text = lenient.decode(bytes);
  if (text.includes("\uFFFD")) {
    try {
      text = utf8.decode(bytes);
    } catch (error) {
      throw new NotJsonError("utf-8", messageOf(error));
    }
  }
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new NotJsonError("json", messageOf(error));
  }
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/**
 * Reads the whole body as bytes, within the limits.
 *
 * @throws {HttpError} 413, 408 or 400, as {@link readJsonBody}.
 */
export async function readBody(
  context: RequestContext,
  limits: BodyLimits,
): Promise<Uint8Array> {
  const { request } = context;
  const declared = Number(request.headers.get("content-length") ?? NaN);
  if (declared > limits.maxBytes) throw tooLarge(limits.maxBytes);
  // A small declared body (reserved by admission) is read in one call, no stream; large ones
  // stream, which holds less memory in a flood of them.
  const bytes = declared <= ONE_READ_MAX_BYTES
    ? await readDeclared(context, limits)
    : await readStreamed(context, limits);
  // The time-out starts after a wait for the parse turn: the server's backlog is not the client's.
  await context.meter?.complete(context);
  return bytes;
}

/** Largest declared body read in one call. */
const ONE_READ_MAX_BYTES = 64 << 10;

async function readDeclared(context: RequestContext, limits: BodyLimits): Promise<Uint8Array> {
  const read = context.request.bytes();
  let cancel: (() => void) | undefined;
  try {
    const bytes = await settlesAtOnce(read)
      ? await read
      : await Promise.race([read, lateBody(limits.timeoutMs, (stop) => cancel = stop)]);
    context.bodyBytes = bytes.byteLength;
    context.meter?.received(context, bytes.byteLength);
    return bytes;
  } catch (error) {
    // A late body's read stays pending: Deno.serve closes the connection once it is done.
    if (error instanceof HttpError) throw error;
    throw new HttpError(400, INCOMPLETE_BODY_DETAIL, { connection: "close" });
  } finally {
    cancel?.();
  }
}

async function readStreamed(context: RequestContext, limits: BodyLimits): Promise<Uint8Array> {
  const { request } = context;
  if (request.body === null) return new Uint8Array(0);
  const reader = request.body.getReader();
  const meter = context.meter;
  const pieces = new Pieces();
  // The time-out is armed only for a read still pending after a few microtasks (most bodies have arrived).
  let cancel: (() => void) | undefined;
  let timeout: Promise<never> | undefined;
  try {
    while (true) {
      const read = reader.read();
      if (timeout === undefined && !(await settlesAtOnce(read))) {
        timeout = lateBody(limits.timeoutMs, (stop) => cancel = stop);
      }
      const { done, value } = timeout === undefined
        ? await read
        : await Promise.race([read, timeout]);
      if (done) break;
      if (pieces.size + value.byteLength > limits.maxBytes) throw tooLarge(limits.maxBytes);
      pieces.add(value);
      context.bodyBytes = pieces.size;
      meter?.received(context, value.byteLength);
    }
  } catch (error) {
    if (error instanceof HttpError && error.status === 408) {
      // Let go of the stalled body without cancelling it: Deno closes the connection once its read ends.
      reader.releaseLock();
    } else {
      // Stop the client's upload; the response is already decided.
      reader.cancel().catch(() => {});
    }
    if (error instanceof HttpError) throw error;
    // The stream itself failed: the connection broke (or the server shut down) mid-body.
    throw new HttpError(400, INCOMPLETE_BODY_DETAIL, { connection: "close" });
  } finally {
    cancel?.();
  }
  return pieces.bytes();
}

/** A JSON body past its first 1,024 pieces must average 64 bytes a piece. */
const PIECES = { free: 1024, minBytes: 64, what: "body" } as const;
/** Size of the buffers small pieces are copied into. */
const GATHER_BYTES = 64 << 10;

/**
 * A body's pieces as read. A piece that fills less than half of its buffer is copied into a
 * shared one: Deno hands each read of a chunked body in a 64 KiB buffer of its own, so keeping
 * a piece of a few bytes would keep its whole buffer.
 */
class Pieces {
  size = 0;
  readonly #count = new PieceCount(PIECES);
  readonly #kept: Uint8Array[] = [];
  #gather: Uint8Array | undefined;
  #gathered = 0;

  /** @throws {HttpError} 400 when the pieces so far are too small on average. */
  add(piece: Uint8Array): void {
    this.#count.add(piece.byteLength);
    this.size += piece.byteLength;
    if (2 * piece.byteLength >= piece.buffer.byteLength) {
      this.#flush();
      this.#kept.push(piece);
      return;
    }
    if (this.#gather !== undefined && this.#gathered + piece.byteLength > this.#gather.length) {
      this.#flush();
    }
    this.#gather ??= new Uint8Array(Math.max(GATHER_BYTES, piece.byteLength));
    this.#gather.set(piece, this.#gathered);
    this.#gathered += piece.byteLength;
  }

  /** The body's bytes, in one array. */
  bytes(): Uint8Array {
    this.#flush();
    return concatBytes(this.#kept, this.size);
  }

  #flush(): void {
    if (this.#gather === undefined) return;
    this.#kept.push(this.#gather.subarray(0, this.#gathered));
    this.#gather = undefined;
    this.#gathered = 0;
  }
}

/** Rejects with 408 after `timeoutMs`, unless the function handed to `onCancel` is called. */
function lateBody(timeoutMs: number, onCancel: (cancel: () => void) => void): Promise<never> {
  return new Promise<never>((_, reject) => {
    onCancel(
      sweepFor(timeoutMs).add(() =>
        reject(
          // Deno.serve adds `Connection: close` itself for 413, not for 408.
          new HttpError(408, lateBodyDetail(timeoutMs), { connection: "close" }),
        )
      ),
    );
  });
}

/** The 400 detail for a body whose stream failed before its end (connection broken or drained). */
export const INCOMPLETE_BODY_DETAIL =
  "The request body could not be read to its end: the connection failed before it was complete";

/** Microtask turns a read of bytes already received takes to settle in Deno, with some margin. */
const AT_ONCE_TURNS = 4;

/** Whether `read` settles (either way) within {@link AT_ONCE_TURNS} microtask turns. */
async function settlesAtOnce(read: Promise<unknown>): Promise<boolean> {
  let settled = false;
  const mark = () => {
    settled = true;
  };
  read.then(mark, mark);
  for (let turn = 0; turn < AT_ONCE_TURNS && !settled; turn++) await null;
  return settled;
}

function tooLarge(maxBytes: number): HttpError {
  return new HttpError(413, tooLargeDetail(maxBytes));
}

/** The 413 detail for a body over `maxBytes`. */
export function tooLargeDetail(maxBytes: number): string {
  return `The request body is larger than the limit of ${maxBytes} bytes`;
}

/** The 408 detail for a body that has not arrived within `timeoutMs`. */
export function lateBodyDetail(timeoutMs: number): string {
  return `The request body did not arrive within ${formatSeconds(timeoutMs)}`;
}

function formatSeconds(ms: number): string {
  return ms % 1000 === 0 ? `${ms / 1000} s` : `${ms} ms`;
}
