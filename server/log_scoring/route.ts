/**
 * `POST /batch`: scores a whole event log sent as the body and streams the entries back, with
 * the pipeline `cli.ts batch` runs (`core/log_scoring/score_log.ts`): the response is byte for byte
 * what `batch` writes for the same log (`Accept: application/json`, the default) or
 * `batch --output-format jsonl` (`Accept: application/x-ndjson`). What the request asks is read
 * by `./request.ts`.
 *
 * - **Streaming with backpressure**: the body is parsed as it arrives, a chunk at a time, and
 *   read only as fast as scoring and the client's reading of the response allow
 *   (`./log_body.ts`, `./response_stream.ts`); memory holds a few batches whatever the log's size.
 * - **Fair**: at most `maxConcurrentLogs` logs at once (503 with `Retry-After` beyond); runs go
 *   to the model's queue like any request's, never in place on the serving thread, and a log
 *   gives the serving thread up every few traces (`./pacing.ts`), so other requests are
 *   not kept waiting behind it.
 * - **Stopping**: a client that hangs up stops the work at once (its queued rows are withdrawn,
 *   the body is no longer read); new logs are refused once a drain begins, and the drain's
 *   deadline cuts the logs still being scored.
 * - **Errors**: anything wrong before the first entry is an error response (400 for a log that
 *   cannot be read, naming where); a trace that cannot be scored is an error entry, as `batch`
 *   writes it; a log that breaks after entries went out ends with a final record, the
 *   layout's `stopped` record (`error`, `incomplete: true`, `traces_written`, no
 *   `trace_index`), so a cut response is never mistaken for a whole one.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { createApp } from "../app.ts";
 * import { loadOrt } from "../../adapter/deno/ort.ts";
 * import { readBundle } from "../../adapter/deno/bundle_files.ts";
 * await using model = await readBundle(await loadOrt(), "examples/rest_serving");
 * const app = await createApp(model);
 * const response = await app.fetch(new Request("http://localhost/batch", {
 *   method: "POST",
 *   headers: { "content-type": "text/csv", accept: "application/x-ndjson" },
 *   body: "case_id,activity,risk_score\nA-1,approve loan,0.9\nA-2,decline loan,0.1\n",
 * }));
 * const lines = (await response.text()).trimEnd().split("\n").map((l) => JSON.parse(l));
 * assert.deepEqual(lines.map((e) => e.trace_index), [0, 1]);
 * ```
 *
 * @module
 */

import type { Model } from "../../core/bundle/mod.ts";
import {
  entryLayout,
  type EntrySink,
  type LogTally,
  measureBatchSize,
  scoreLog,
  textSink,
} from "../../core/log_scoring/mod.ts";
import { ModelBusyError, type PackedInputs, RunCancelledError } from "../../core/runtime/mod.ts";
import { readTraces, TraceReadError } from "../../core/event_log/mod.ts";
import { ResponseStream } from "./response_stream.ts";
import { type BatchRequest, readBatchRequest, RESPONSE_TYPES } from "./request.ts";
import type { Readiness, RequestContext } from "../pipeline/mod.ts";
import { HttpError, RETRY_AFTER_SECONDS, shuttingDown } from "../http/mod.ts";
import { LogPacing } from "./pacing.ts";
import { LogBody } from "./log_body.ts";
import type { Metrics } from "../metrics/mod.ts";

/** The default of {@link LogScoringOptions.maxConcurrentLogs}. */
export const DEFAULT_MAX_CONCURRENT_LOGS = 2;

/** The default of {@link LogScoringOptions.readAheadBytes}: 64 MiB. */
export const DEFAULT_LOG_READ_AHEAD_BYTES = 64 << 20;

/**
 * Batches in flight per log while the next is read: two, as `batch` runs, while the log is
 * alone; one while other requests come, so that their rows rarely find a log's batch waiting
 * in the model's queue before them.
 */
const depthOf = (pacing: LogPacing) => pacing.busy ? 1 : 2;

/**
 * The most traces per run: a batch's entries are formatted in one go on the serving thread,
 * and smaller batches keep that go short for the requests waiting meanwhile.
 */
const MAX_BATCH_SIZE = 256;

/** How long a log whose body was cut short waits for its client's hang-up to be told, in ms. */
const HANG_UP_NOTICE_MS = 250;

/** The name the log's read errors start with. */
const LOG_NAME = "request body";

/** Settings of {@link LogScoring}. */
export interface LogScoringOptions {
  /** Logs scored at once; more are answered 503 with `Retry-After`. */
  readonly maxConcurrentLogs: number;
  /** Time allowed between two chunks of a log's body, in ms (`--body-timeout-ms`). */
  readonly idleMs: number;
  /**
   * Bytes of a log's body read ahead while its response waits for the client (one that sends all
   * of its log before it reads: `./log_body.ts`); past it the log is cut.
   */
  readonly readAheadBytes: number;
  /** The drain: new logs are refused once it begins, and its cutoff cuts those in progress. */
  readonly readiness: Readiness;
  /** Counts logs, traces and refusals. */
  readonly metrics?: Metrics | undefined;
  /** Told of each unexpected error (the log's response then ends, or is a 500). */
  readonly onError?: ((error: unknown, request: Request) => void) | undefined;
}

/** Why a log stopped early without a client to tell. */
class ClientGone extends Error {
  override readonly name = "ClientGone";
}

/** A model run of the log failed: it stops the log (its `cause` says why). */
class RunFailed extends Error {
  override readonly name = "RunFailed";
  constructor(cause: unknown) {
    super("a model run failed", { cause });
  }
}

/** The logs being scored and the handler of `POST /batch`; see the module doc. */
export class LogScoring {
  readonly #model: Model;
  readonly #options: LogScoringOptions;
  #active = 0;
  #batchSize: Promise<number> | undefined;
  /**
   * When the last request arrived (`performance.now()` ms), set by the app for each one: a log
   * yields the thread more often while others come (`./pacing.ts`).
   */
  lastArrival = -Infinity;

  /** @throws {RangeError} when `maxConcurrentLogs` is not a positive integer. */
  constructor(model: Model, options: LogScoringOptions) {
    const max = options.maxConcurrentLogs;
    if (!Number.isSafeInteger(max) || max <= 0) {
      throw new RangeError(`maxConcurrentLogs must be a positive integer, got ${max}`);
    }
    this.#model = model;
    this.#options = options;
  }

  /** Logs being scored now (their responses still streaming). */
  get inProgress(): number {
    return this.#active;
  }

  /** Answers `POST /batch` (see the module doc). */
  readonly handle = async (context: RequestContext): Promise<Response> => {
    const { request } = context;
    const { readiness, metrics } = this.#options;
    if (readiness.draining) {
      metrics?.recordRefused("shutting_down");
      metrics?.recordLog("refused");
      throw shuttingDown();
    }
    const asked = readBatchRequest(request);
    if (this.#active >= this.#options.maxConcurrentLogs) {
      metrics?.recordRefused("logs_full");
      metrics?.recordLog("refused");
      throw new HttpError(
        503,
        `${this.#active} logs are being scored, the most at once (serve ` +
          "--max-concurrent-logs); retry later",
        // The body is left unread: the connection cannot carry another request.
        { "retry-after": String(RETRY_AFTER_SECONDS), connection: "close" },
      );
    }
    this.#active++;
    let streaming = false;
    try {
      const answer = await this.#score(context, asked);
      streaming = true;
      return answer;
    } finally {
      if (!streaming) this.#active--;
    }
  };

  /**
   * Scores the log of `context`'s body and responds once the first entries are ready (or with
   * the error that came first); the rest streams on, and the log's slot is freed when it ends.
   */
  async #score(context: RequestContext, asked: BatchRequest): Promise<Response> {
    const { metrics, readiness } = this.#options;
    // The client hung up or the drain's deadline came: stop now, and drop the body.
    const stop = new AbortController();
    // The log ends early, for any reason: the response's writes stop waiting for the client.
    const ending = new AbortController();
    stop.signal.addEventListener("abort", () => ending.abort(), { once: true });
    const hungUp = () => stop.abort(new ClientGone("the client closed the connection"));
    const cut = () => stop.abort(shuttingDown());
    const client = context.clientSignal;
    client?.addEventListener("abort", hungUp, { once: true });
    readiness.cutoff.addEventListener("abort", cut, { once: true });
    if (client?.aborted) hungUp();
    if (readiness.cutoff.aborted) cut();
    const release = () => {
      client?.removeEventListener("abort", hungUp);
      readiness.cutoff.removeEventListener("abort", cut);
    };
    const body = new LogBody(context.request.body ?? emptyBody(), {
      signal: stop.signal,
      idleMs: this.#options.idleMs,
      readAheadBytes: this.#options.readAheadBytes,
      onFailure: () => ending.abort(),
    });
    const answer = new ResponseStream(
      (reason) => stop.abort(new ClientGone(String(reason))),
      (waiting) => body.responseWaiting(waiting),
    );
    const pacing = new LogPacing(() => this.lastArrival, context.started);
    if (asked.afterUpload) {
      try {
        await body.readWhole();
      } catch (error) {
        const problem = this.#problem(error, stop.signal, context.request);
        if (problem.status === 413) await body.discardRest();
        release();
        metrics?.recordLog(problem.status === 499 ? "client_gone" : "refused");
        throw problem;
      }
    }

    const layout = entryLayout(asked.outputFormat);
    let written = 0;
    let cutting = false;
    const { promise: started, resolve: start } = Promise.withResolvers<void>();
    const text = textSink(layout, (chunk) => {
      if (chunk === "") return;
      start();
      if (cutting) answer.push(chunk);
      else return answer.write(chunk, ending.signal);
    });
    const sink: EntrySink = {
      write: async (entries) => {
        await text.write(entries);
        written += entries.length;
        metrics?.recordLogTraces(entries.length);
      },
      close: () => text.close(),
      abort: () => text.abort(),
    };
    const session = this.#model.session;
    const traces = readTraces(body.stream, {
      name: LOG_NAME,
      format: asked.format,
      gzip: asked.gzip,
      caseColumn: asked.caseColumn,
      activityColumn: asked.activityColumn,
    });
    const done = (async (): Promise<LogTally> => {
      const batchSize = await this.#batchSizeOf();
      return await scoreLog(this.#model, traces, sink, {
        batchSize,
        depth: () => depthOf(pacing),
        layout,
        signal: stop.signal,
        writeChars: 0,
        eager: true,
        // In the model's queue like any request's, never on the serving thread; a run that
        // fails stops the log at once, even while its body is slow to come.
        run: async (inputs: PackedInputs) => {
          try {
            return await session.runPacked(inputs, {
              withGradient: false,
              signal: stop.signal,
              inPlace: false,
              admitted: true,
            });
          } catch (error) {
            body.fail(new RunFailed(error));
            throw error;
          }
        },
        pause: () => pacing.pause(),
        onFailure: () => ending.abort(),
      });
    })().then((tally) => ({ tally }), (error: unknown) => ({ error }));

    const first = await Promise.race([started.then(() => undefined), done]);
    if (first !== undefined) {
      const error = "error" in first
        ? this.#problem(first.error, stop.signal, context.request)
        : new HttpError(400, `${LOG_NAME}: no traces parsed from the log`);
      // A client that sends all of its log before it reads gets to read this response.
      if (error.status !== 499 && error.status !== 503) await body.discardRest();
      release();
      metrics?.recordLog(error.status === 499 ? "client_gone" : "refused");
      throw error;
    }
    void (async () => {
      const result = await done;
      // A body cut short: its client hung up, which the host may tell a moment later than
      // the read failed; or the server is shutting down (`deno serve`), which tells none.
      if ("error" in result && body.broken) await abortedWithin(client, HANG_UP_NOTICE_MS);
      try {
        if ("tally" in result) {
          await sink.close();
          answer.end();
          metrics?.recordLog("complete");
        } else if (stop.signal.reason instanceof ClientGone || answer.over) {
          metrics?.recordRefused("client_gone");
          metrics?.recordLog("client_gone");
          answer.fail(stop.signal.reason ?? result.error);
        } else {
          const error = this.#problem(result.error, stop.signal, context.request);
          cutting = true;
          await text.write([layout.stopped(error.detail, written)]);
          await text.close();
          // A client that sends all of its log before it reads gets to read this response.
          if (error.status !== 503) await body.discardRest();
          answer.end();
          metrics?.recordLog("cut");
        }
      } catch (error) {
        this.#options.onError?.(error, context.request);
        answer.fail(error);
      } finally {
        release();
        this.#active--;
      }
    })();
    const headers = {
      "content-type": RESPONSE_TYPES[asked.outputFormat][0]!,
      "cache-control": "no-store",
    };
    const response = new Response(answer.readable, { headers });
    context.identityResponse = response;
    return response;
  }

  /**
   * The rows per run: measured on the model once, at the first log, as `batch` measures it
   * (at most {@link MAX_BATCH_SIZE}).
   */
  #batchSizeOf(): Promise<number> {
    this.#batchSize ??= measureBatchSize(this.#model.session).then((m) =>
      Math.min(m.size, MAX_BATCH_SIZE)
    );
    this.#batchSize.catch(() => (this.#batchSize = undefined));
    return this.#batchSize;
  }

  /** What stopped a log, as an HTTP error (its detail is the final record's `error`). */
  #problem(error: unknown, signal: AbortSignal, request: Request): HttpError {
    if (signal.aborted) {
      const reason = signal.reason;
      if (reason instanceof HttpError) return reason;
      return new HttpError(499, "The client closed the connection");
    }
    for (let cause = error; cause instanceof Error; cause = cause.cause) {
      if (cause instanceof HttpError) return cause;
      if (cause instanceof RunFailed) {
        error = cause.cause;
        break;
      }
    }
    if (error instanceof TraceReadError) return new HttpError(400, error.message);
    if (error instanceof ModelBusyError) {
      this.#options.metrics?.recordRefused(error.reason);
      return new HttpError(503, error.message, { "retry-after": String(RETRY_AFTER_SECONDS) });
    }
    if (error instanceof RunCancelledError) return new HttpError(499, "The run was cancelled");
    this.#options.onError?.(error, request);
    return new HttpError(500, "Internal Server Error");
  }
}

/** Resolves once `signal` aborts, or after `ms` (at once without a signal). */
function abortedWithin(signal: AbortSignal | undefined, ms: number): Promise<void> {
  if (signal === undefined || signal.aborted) return Promise.resolve();
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      signal.removeEventListener("abort", done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener("abort", done, { once: true });
  });
}

function emptyBody(): ReadableStream<Uint8Array> {
  return new ReadableStream({ start: (controller) => controller.close() });
}
