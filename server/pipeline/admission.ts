/**
 * Admission control for the routes that run the model: what the server holds is bounded, a
 * request that does not fit waits unread for room until its deadline, and what cannot be served
 * in time is answered 503 with `Retry-After`, so a flood costs clients retries, not the process
 * its memory. Health probes and `/metrics` never pass through here.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { Admission } from "./admission.ts";
 * import { RequestContext } from "./context.ts";
 * const admission = new Admission({
 *   maxBodyMemoryBytes: 1000,
 *   maxBodyBytes: 1000,
 *   queueTimeoutMs: 50,
 * });
 * const post = (size: number) =>
 *   new RequestContext(
 *     new Request("http://localhost/forward", {
 *       method: "POST",
 *       body: "x".repeat(size),
 *       headers: { "content-length": String(size) },
 *     }),
 *     false,
 *   );
 * const { promise: gate, resolve: release } = Promise.withResolvers<void>();
 * const slow = admission.admit(post(800), async () => {
 *   await gate;
 *   return new Response("done");
 * });
 * // 800 bytes are held: 300 more would pass the limit of 1000, so they wait for room, until
 * // their deadline 50 ms later.
 * const refused = await admission.admit(post(300), () => Promise.resolve(new Response()));
 * assert.equal(refused.status, 503);
 * assert.equal(refused.headers.get("retry-after"), "1");
 * // Waiting requests are let in as soon as room is made.
 * const waiting = admission.admit(post(300), () => Promise.resolve(new Response("in")));
 * release();
 * assert.equal(await (await waiting).text(), "in");
 * assert.equal(await (await slow).text(), "done");
 * assert.equal(admission.reservedBytes, 0);
 * ```
 *
 * @module
 */

import type { OpsModel } from "../../core/ops/mod.ts";
import {
  ModelBusyError,
  type PackedInputs,
  type PackedOutputs,
  RunCancelledError,
  type RunOptions,
  type Scheduler,
} from "../../core/runtime/mod.ts";
import type { BodyMeter, RequestContext, RequestRunner } from "./context.ts";
import { HttpError, jsonResponse, RETRY_AFTER_SECONDS, shuttingDown } from "../http/mod.ts";
import type { Handler } from "./compose.ts";
import { WorkQueue } from "./work_queue.ts";
import { AdmissionQueue } from "./admission_queue.ts";

/** The default of {@link AdmissionOptions.maxBodyMemoryBytes}: 16 bodies of the default 1 MiB limit. */
export const DEFAULT_MAX_BODY_MEMORY_BYTES = 16 << 20;

/** The default deadline of queued rows: a client waiting longer is better served by another replica. */
export const DEFAULT_QUEUE_TIMEOUT_MS = 5_000;

/** Memory the default queue bound allows for queued rows: 128 MiB. */
const QUEUE_MEMORY_BYTES = 128 << 20;

/**
 * The default bound of the model's queue, in rows: as many as fit in 128 MiB at an estimated
 * `100 × (places + transitions) + 200` bytes per queued row, and at least one default batch.
 */
export function defaultMaxQueueRows(places: number, transitions: number): number {
  return Math.max(1024, Math.floor(QUEUE_MEMORY_BYTES / (100 * (places + transitions) + 200)));
}

export { RETRY_AFTER_SECONDS };

/** Answers of at least this many bytes are counted as held until the socket has taken them. */
const LARGE_ANSWER_BYTES = 64 << 10;
/** The default of {@link AdmissionOptions.maxWaiting}. */
export const DEFAULT_MAX_WAITING = 8192;
/** How often the admission queue is checked for room while requests wait, in ms. */
const PUMP_MS = 5;
/** The most waiters let through per check (their rows are not queued yet when it runs). */
const PUMP_MOST = 64;
/** A refused body up to this size is read and dropped, so that its connection stays open. */
const SMALL_BODY_BYTES = 64 << 10;
/** Bodies of at least this many bytes wait for their turn to be parsed (`./work_queue.ts`). */
const HEAVY_BODY_BYTES = 64 << 10;
/** Runs of at least this many rows wait for their turn before their response is written. */
const HEAVY_RUN_ROWS = 1024;

/** Why a request was not served (`client_gone`: it hung up before its rows ran). */
export type RefusalReason =
  | "body_memory"
  | "queue_full"
  | "queue_timeout"
  | "model_unavailable"
  | "shutting_down"
  | "client_gone"
  | "logs_full";

/** Settings of an {@link Admission}. */
export interface AdmissionOptions {
  /** Bytes of request bodies and large responses held at once (one request is always admitted). */
  readonly maxBodyMemoryBytes: number;
  /** The body limit: a larger declared body is left to the handler's 413 and holds nothing. */
  readonly maxBodyBytes: number;
  /**
   * How long a request may wait for its turn to be parsed, in ms; past it, 503 `queue_timeout`.
   * @default {DEFAULT_QUEUE_TIMEOUT_MS}
   */
  readonly queueTimeoutMs?: number | undefined;
  /** The model's queue: while it is full, new requests wait before they are read. */
  readonly queue?:
    | Pick<Scheduler, "queuedRows" | "limits" | "hasRoom" | "cancelAdmitted">
    | undefined;
  /** The model the admitted requests' operations run on. */
  readonly model?: OpsModel | undefined;
  /**
   * The most requests waiting for room; past it a request is refused at once.
   * @default {DEFAULT_MAX_WAITING}
   */
  readonly maxWaiting?: number | undefined;
  /** Aborts at the drain's deadline: admitted requests are answered 503, new ones refused. */
  readonly cutoff?: AbortSignal | undefined;
  /** Called once for each request not served, with the reason. */
  readonly onRefused?: ((reason: RefusalReason) => void) | undefined;
}

/** The shutdown signal's reason, to tell it from a client hanging up. */
const SHUTTING_DOWN = "petri-serve: the drain's deadline has passed";

/** See the module doc. */
export class Admission implements RequestRunner, BodyMeter {
  readonly #maxReserved: number;
  readonly #maxBodyBytes: number;
  readonly #cutoff: AbortSignal;
  readonly #onRefused: (reason: RefusalReason) => void;
  readonly #workQueue: WorkQueue;
  readonly #queueTimeoutMs: number;
  readonly #queue: AdmissionOptions["queue"];
  readonly #model: OpsModel | undefined;
  readonly #line: AdmissionQueue<number>;
  #inTransitCount = 0;
  /** The recent rows of a request's first run (an average), to foresee what those will add. */
  #firstRunRows = 1;
  #pumpTimer: ReturnType<typeof setTimeout> | undefined;
  #reserved = 0;
  #inFlight = 0;

  /** Throws a RangeError when `maxBodyMemoryBytes` is not a positive integer. */
  constructor(options: AdmissionOptions) {
    const { maxBodyMemoryBytes } = options;
    if (!Number.isSafeInteger(maxBodyMemoryBytes) || maxBodyMemoryBytes <= 0) {
      throw new RangeError(
        `maxBodyMemoryBytes must be a positive integer, got ${maxBodyMemoryBytes}`,
      );
    }
    this.#maxReserved = maxBodyMemoryBytes;
    this.#maxBodyBytes = options.maxBodyBytes;
    const cutoff = new AbortController();
    // No signal of its own for each request (that cost a controller and a listener each): the
    // deadline refuses admitted requests in the queue and at their turn to be parsed at once.
    const cut = () => {
      cutoff.abort(SHUTTING_DOWN);
      this.#queue?.cancelAdmitted(SHUTTING_DOWN);
      this.#line.close();
    };
    this.#line = new AdmissionQueue(options.maxWaiting ?? DEFAULT_MAX_WAITING);
    options.cutoff?.addEventListener("abort", cut, { once: true });
    if (options.cutoff?.aborted) cut();
    this.#cutoff = cutoff.signal;
    this.#workQueue = new WorkQueue(cutoff.signal);
    this.#onRefused = options.onRefused ?? (() => {});
    this.#queueTimeoutMs = options.queueTimeoutMs ?? DEFAULT_QUEUE_TIMEOUT_MS;
    this.#queue = options.queue;
    this.#model = options.model;
  }

  /** Bytes of bodies and responses held by admitted requests now. */
  get reservedBytes(): number {
    return this.#reserved;
  }

  /** Admitted requests not answered yet. */
  get inFlight(): number {
    return this.#inFlight;
  }

  /** Requests waiting for room to be admitted. */
  get waiting(): number {
    return this.#line.length;
  }

  /**
   * Answers `context`'s request with `next` if it fits, or refuses it with 503 under the
   * context's `errorKey`; errors of `next` pass through once the request's bytes are released.
   */
  async admit(context: RequestContext, next: Handler): Promise<Response> {
    const { request, errorKey } = context;
    if (this.#cutoff.aborted) return this.#refuse(shuttingDown(), "shutting_down", errorKey);
    const reserved = this.#reservationFor(request);
    const arrived = context.started;
    let deadline = arrived + this.#queueTimeoutMs;
    // First come, first served: a newcomer waits behind those already waiting.
    if (this.#line.length > 0 || !this.#take(reserved)) {
      if (this.#line.full) {
        const reason = this.#blockedBy(reserved) ?? "queue_full";
        const detail = `${this.#line.length} requests already wait for room (the most that ` +
          `may); retry later`;
        return this.#refuseUnread(request, reason, detail, errorKey);
      }
      const waiting = this.#line.wait(reserved, deadline, context.clientSignal);
      this.#schedulePump();
      const outcome = await waiting;
      if (outcome === "closed") return this.#refuse(shuttingDown(), "shutting_down", errorKey);
      if (outcome === "gone") {
        this.#onRefused("client_gone");
        return jsonResponse(499, { [errorKey]: "The client closed the connection" });
      }
      if (outcome === "expired") {
        const reason = this.#blockedBy(reserved) ?? "queue_timeout";
        return this.#refuseUnread(
          request,
          reason,
          this.#waitedDetail(reason, performance.now() - arrived),
          errorKey,
        );
      }
      // Admitted now: the wait for room is not counted against the run's deadline.
      deadline = performance.now() + this.#queueTimeoutMs;
    }
    this.#inFlight++;
    // Until the body has arrived: `complete` counts it again from then (the upload is not the
    // queue's business).
    context.deadline = deadline;
    context.reservedBytes = reserved;
    context.meter = this;
    context.runner = this;
    context.model ??= this.#model;
    this.#inTransitCount++;
    context.inTransit = true;
    // A body without a declared length is counted as it streams in (`received`).
    context.metered = reserved === 0 && !request.headers.has("content-length");
    try {
      let response: Response;
      try {
        response = await next(context);
      } catch (error) {
        throw this.#cut(context.bodyDone) ?? error;
      }
      // A body whose reading the drain's deadline broke is refused 503, not blamed on the client.
      if (response.status === 400) {
        response = this.#cutResponse(context.bodyDone, errorKey) ?? response;
      }
      const size = context.responseBytes;
      if (size === undefined || size < LARGE_ANSWER_BYTES || response.body === null) {
        return response;
      }
      // A large response stays in memory until the socket has taken it: count it until then.
      this.#reserved += size;
      const total = context.reservedBytes + size;
      context.reservedBytes = 0;
      const release = once(() => {
        this.#reserved -= total;
        this.#pump();
      });
      if (context.streamedResponse === response) {
        // Its stream tells when it has been sent (or cancelled).
        context.responseSent = release;
        return response;
      }
      return await releasedWhenSent(response, release);
    } finally {
      this.#inFlight--;
      this.#reserved -= context.reservedBytes;
      context.reservedBytes = 0;
      if (context.inTransit) this.#inTransitCount--;
      context.inTransit = false;
      this.#pump();
    }
  }

  /** Counts a chunk of a body without a declared length; throws 503 past the limit. */
  received(context: RequestContext, bytes: number): void {
    if (!context.metered) return;
    this.#reserved += bytes;
    context.reservedBytes += bytes;
    if (this.#reserved > this.#maxReserved && context.reservedBytes < this.#reserved) {
      this.#onRefused("body_memory");
      throw this.#busy();
    }
  }

  /** The body has arrived: its deadline restarts, and a large one waits for its parse turn. */
  complete(context: RequestContext): Promise<void> | undefined {
    context.bodyDone = true;
    const deadline = performance.now() + this.#queueTimeoutMs;
    context.deadline = deadline;
    return context.bodyBytes >= HEAVY_BODY_BYTES
      ? this.#parseTurn(context.clientSignal, deadline)
      : undefined;
  }

  /**
   * Runs `context`'s rows on the model with its client's signal and its deadline; the model's
   * refusals become 503 with `Retry-After`, or 499 for a client that hung up; after the drain's
   * deadline, 503.
   */
  async run(
    context: RequestContext,
    inputs: PackedInputs,
    options: RunOptions,
  ): Promise<PackedOutputs> {
    if (context.inTransit) {
      // Its first run: the rows it was expected to bring are in the queue now.
      context.inTransit = false;
      this.#inTransitCount--;
      this.#firstRunRows = 0.8 * this.#firstRunRows + 0.2 * inputs.batch;
    }
    let outputs;
    try {
      if (this.#cutoff.aborted) throw new RunCancelledError(SHUTTING_DOWN);
      outputs = await context.model!.runPacked(inputs, {
        withGradient: options.withGradient,
        signal: context.clientSignal,
        deadline: context.deadline,
        admitted: true,
        // In place only at low load: with others in flight, runs share the worker's batches.
        inPlace: this.#inFlight <= 1,
      });
    } catch (error) {
      throw this.#refusalFor(error);
    }
    // Rows of one run resolve together: their responses are written one per turn.
    if (inputs.batch >= HEAVY_RUN_ROWS) await this.#workQueue.turn();
    return outputs;
  }

  /** What keeps a request with a body of `bodyBytes` out now, if anything. */
  #blockedBy(bodyBytes: number): RefusalReason | undefined {
    if (this.#reserved > 0 && this.#reserved + bodyBytes > this.#maxReserved) return "body_memory";
    // Count the rows admitted requests are about to add: letting many more in would overfill it.
    const queue = this.#queue;
    const coming = this.#inTransitCount * this.#firstRunRows;
    if (queue !== undefined && queue.queuedRows + coming >= queue.limits.maxQueueRows) {
      return "queue_full";
    }
    const workQueue = this.#workQueue;
    const parsing = Math.max(workQueue.oldestWaitMs, workQueue.expectedWaitMs);
    if (bodyBytes >= HEAVY_BODY_BYTES && parsing >= this.#queueTimeoutMs / 2) {
      return "queue_timeout";
    }
    return undefined;
  }

  /** Admits a request with a body of `bodyBytes` if nothing keeps it out: reserves its bytes. */
  #take(bodyBytes: number): boolean {
    if (this.#blockedBy(bodyBytes) !== undefined) return false;
    this.#reserved += bodyBytes;
    return true;
  }

  /** Lets waiting requests in while they fit; checks again soon while some still wait. */
  #pump(): void {
    if (this.#line.length === 0) return;
    this.#line.pump((bodyBytes) => this.#take(bodyBytes), PUMP_MOST);
    this.#schedulePump();
  }

  #schedulePump(): void {
    if (this.#pumpTimer !== undefined || this.#line.length === 0) return;
    this.#pumpTimer = setTimeout(() => {
      this.#pumpTimer = undefined;
      this.#pump();
    }, PUMP_MS);
  }

  /** The 503 for a body the drain's deadline broke while it was read (Deno would make it a 400). */
  #cut(bodyDone: boolean): HttpError | undefined {
    return this.#cutoff.aborted && !bodyDone ? shuttingDown() : undefined;
  }

  #cutResponse(bodyDone: boolean, errorKey: "detail" | "error"): Response | undefined {
    const error = this.#cut(bodyDone);
    if (error === undefined) return undefined;
    this.#onRefused("shutting_down");
    return jsonResponse(error.status, { [errorKey]: error.detail }, error.headers);
  }

  /** Why a request that waited `waitedMs` for room was refused. */
  #waitedDetail(reason: RefusalReason, waitedMs: number): string {
    const waited = `The request waited ${Math.round(waitedMs)} ms for room, up to its deadline ` +
      `(the queue's time-out is ${this.#queueTimeoutMs} ms)`;
    const queue = this.#queue;
    switch (reason) {
      case "body_memory":
        return `${waited}: the request bodies and answers held stayed at their limit of ` +
          `${this.#maxReserved} bytes (--max-body-memory-bytes); retry later`;
      case "queue_full":
        return `${waited}: the model's queue stayed full (${queue?.queuedRows} rows wait, its ` +
          `limit is ${queue?.limits.maxQueueRows} rows); retry later`;
      default:
        return `${waited}: large bodies wait too long to be parsed; retry later`;
    }
  }

  /** Waits for a large body's turn to be parsed, within the request's deadline. */
  async #parseTurn(signal: AbortSignal | undefined, deadline: number): Promise<void> {
    const since = performance.now();
    if (await this.#workQueue.turnBefore(deadline, signal)) return;
    if (this.#cutoff.aborted) throw this.#refusalFor(new RunCancelledError(SHUTTING_DOWN));
    if (signal?.aborted) throw this.#refusalFor(new RunCancelledError(signal.reason));
    throw this.#refusalFor(
      new ModelBusyError(
        "queue_timeout",
        `The request passed its deadline while it waited ${
          Math.round(performance.now() - since)
        } ms for its turn to be parsed (the queue's time-out is ${this.#queueTimeoutMs} ms)`,
      ),
    );
  }

  #busy(): HttpError {
    return new HttpError(
      503,
      `The server is busy: this body would take the request bodies and answers it holds ` +
        `past its limit of ${this.#maxReserved} bytes (--max-body-memory-bytes); retry later`,
      {
        "retry-after": String(RETRY_AFTER_SECONDS),
        connection: "close",
      },
    );
  }

  /** The HTTP error for a model refusal (counted), or `error` itself. */
  #refusalFor(error: unknown): unknown {
    if (error instanceof ModelBusyError) {
      this.#onRefused(error.reason);
      return new HttpError(503, error.message, { "retry-after": String(RETRY_AFTER_SECONDS) });
    }
    if (error instanceof RunCancelledError) {
      if (error.cause === SHUTTING_DOWN) {
        this.#onRefused("shutting_down");
        return shuttingDown();
      }
      this.#onRefused("client_gone");
      return new HttpError(499, "The client closed the connection before its answer was ready");
    }
    return error;
  }

  #refuse(error: HttpError, reason: RefusalReason, errorKey: "detail" | "error"): Response {
    this.#onRefused(reason);
    return jsonResponse(error.status, { [errorKey]: error.detail }, error.headers);
  }

  /**
   * Refuses `request` with 503 without taking its body: a small one is read and dropped so the
   * connection stays open for the retry; a larger or unfinished one closes it.
   */
  async #refuseUnread(
    request: Request,
    reason: RefusalReason,
    detail: string,
    errorKey: "detail" | "error",
  ): Promise<Response> {
    const headers: Record<string, string> = { "retry-after": String(RETRY_AFTER_SECONDS) };
    const declared = Number(request.headers.get("content-length") ?? NaN);
    if (request.body !== null) {
      const dropped = declared <= SMALL_BODY_BYTES && await dropWithin(request, 1_000);
      if (!dropped) headers.connection = "close";
    }
    this.#onRefused(reason);
    // A plain response, no error object: refusals come by the thousand under a flood.
    return jsonResponse(503, { [errorKey]: detail }, headers);
  }

  /** What `request`'s body reserves before it is read: its declared length, if any. */
  #reservationFor(request: Request): number {
    const bytes = Number(request.headers.get("content-length") ?? 0);
    // A declared length over the limit is refused 413 unread by the handler: nothing held.
    return Number.isSafeInteger(bytes) && bytes > 0 && bytes <= this.#maxBodyBytes ? bytes : 0;
  }
}

/** Reads `request`'s body and drops it; false when it has not arrived within `ms`. */
async function dropWithin(request: Request, ms: number): Promise<boolean> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  try {
    return await Promise.race([
      request.arrayBuffer().then(() => true, () => false),
      new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), ms))),
    ]);
  } finally {
    clearTimeout(timer);
  }
}

function once(action: () => void): () => void {
  let done = false;
  return () => {
    if (done) return;
    done = true;
    action();
  };
}

/** `response` as one chunk whose stream calls `release` once the socket has pulled it. */
async function releasedWhenSent(response: Response, release: () => void): Promise<Response> {
  let bytes: Uint8Array | undefined;
  try {
    bytes = await response.bytes();
  } catch (error) {
    release();
    throw error;
  }
  let sent = false;
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (sent) {
        controller.close();
        release();
        return;
      }
      sent = true;
      controller.enqueue(bytes!);
      bytes = undefined;
    },
    cancel: release,
  });
  const headers = new Headers(response.headers);
  headers.set("content-length", String(bytes.byteLength));
  return new Response(body, { status: response.status, headers });
}
