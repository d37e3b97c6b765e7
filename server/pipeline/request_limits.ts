/**
 * Per-request limits on work and response size, beside the body limit: the events of one
 * `/anomaly` trace, the model rows one request runs, and the size of a `/v2` infer response.
 * Each is refused with 413 naming the limit and how to set it. The defaults admit every body
 * within the default 1 MiB limit; they bound what a raised `--max-body-bytes` lets in.
 *
 * @module
 */

import { HttpError } from "../http/mod.ts";

/** The default limit on events in one `/anomaly` trace: more than a 1 MiB body can hold (12 bytes each). */
export const DEFAULT_MAX_TRACE_EVENTS = 100_000;

/** The default limit on model rows per request: a `/v2` row takes at least 2 bytes of a 1 MiB body. */
export const DEFAULT_MAX_REQUEST_ROWS = 1 << 19;

/**
 * The longest JSON text of a float32 value with its comma (`-0.0000015212857533697388,`), so a
 * response estimated at this many bytes per number is never underestimated.
 */
export const FLOAT32_JSON_BYTES = 26;

/** The least default limit on a `/v2` infer response (see {@link defaultMaxResponseBytes}). */
export const MIN_DEFAULT_MAX_RESPONSE_BYTES = 64 << 20;

/** Bytes of a 1 MiB body: what the defaults are sized to admit whole. */
const DEFAULT_BODY_BYTES = 1 << 20;

/** The per-request limits, resolved. */
export interface RequestLimits {
  /** Most events in one `/anomaly` trace. */
  readonly maxTraceEvents: number;
  /** Most model rows one request runs (a `/v2` infer's B, a counterfactual's probes). */
  readonly maxRequestRows: number;
  /** Largest estimated `/v2` infer response, in bytes. */
  readonly maxResponseBytes: number;
}

/** The limits as given; each one left out takes its default. */
export type RequestLimitOptions = { readonly [K in keyof RequestLimits]?: number | undefined };

/** The net's tensor widths, which size the default response limit. */
export interface NetWidths {
  /** Number of places (P). */
  readonly places: number;
  /** Number of transitions (T). */
  readonly transitions: number;
}

/**
 * The default limit on a `/v2` infer response for a net of P places and T transitions: the
 * largest response a 1 MiB body can ask for, and at least {@link MIN_DEFAULT_MAX_RESPONSE_BYTES}.
 */
export function defaultMaxResponseBytes({ places, transitions }: NetWidths): number {
  const rows = Math.ceil(DEFAULT_BODY_BYTES / (2 * Math.max(1, places)));
  const largest = rows * (places + transitions) * FLOAT32_JSON_BYTES + DEFAULT_BODY_BYTES / 16;
  return Math.max(MIN_DEFAULT_MAX_RESPONSE_BYTES, largest);
}

/**
 * The limits with defaults filled in.
 *
 * @throws {RangeError} naming the option when one is not a positive integer.
 */
export function resolveRequestLimits(
  options: RequestLimitOptions,
  widths: NetWidths,
): RequestLimits {
  const limit = (name: keyof RequestLimits, fallback: number) => {
    const value = options[name] ?? fallback;
    if (!Number.isSafeInteger(value) || value <= 0) {
      throw new RangeError(`${name} must be a positive integer, got ${value}`);
    }
    return value;
  };
  return {
    maxTraceEvents: limit("maxTraceEvents", DEFAULT_MAX_TRACE_EVENTS),
    maxRequestRows: limit("maxRequestRows", DEFAULT_MAX_REQUEST_ROWS),
    maxResponseBytes: limit("maxResponseBytes", defaultMaxResponseBytes(widths)),
  };
}

/** Where each limit is set: the `serve` flag and `adapter/deno/main.ts`'s environment variable. */
const SET_WITH: Readonly<Record<keyof RequestLimits, string>> = {
  maxTraceEvents: "serve --max-trace-events, PETRI_SERVE_MAX_TRACE_EVENTS",
  maxRequestRows: "serve --max-request-rows, PETRI_SERVE_MAX_REQUEST_ROWS",
  maxResponseBytes: "serve --max-response-bytes, PETRI_SERVE_MAX_RESPONSE_BYTES",
};

/**
 * Applies the limits a body of operation `name` can break before it is validated.
 *
 * @throws {HttpError} 413 as {@link checkTraceEvents}.
 */
export function checkRequestBody(name: string, body: unknown, limits: RequestLimits): void {
  if (name === "anomaly") checkTraceEvents(body, limits.maxTraceEvents);
}

/** What else than its body's size makes operation `name` respond 413, for its documentation. */
export function requestLimitNote(name: string, limits: Partial<RequestLimits>): string {
  if (name !== "anomaly") return "";
  const limit = limits.maxTraceEvents ?? DEFAULT_MAX_TRACE_EVENTS;
  return `, or the trace has more events than the limit of ${limit}`;
}

/**
 * Refuses a trace with more events than the limit, before the costly validation of each event.
 *
 * @throws {HttpError} 413 naming the count, the limit and its flag.
 */
export function checkTraceEvents(body: unknown, maxTraceEvents: number): void {
  const events = typeof body === "object" && body !== null
    ? (body as { events?: unknown }).events
    : undefined;
  if (Array.isArray(events) && events.length > maxTraceEvents) {
    throw new HttpError(
      413,
      `The trace has ${events.length} events, more than the limit of ${maxTraceEvents} ` +
        `(${SET_WITH.maxTraceEvents})`,
    );
  }
}

/**
 * Refuses a request that would run more model rows than the limit.
 *
 * @throws {HttpError} 413 naming the rows, the limit and its flag.
 */
export function checkRequestRows(rows: number, maxRequestRows: number): void {
  if (rows > maxRequestRows) throw new HttpError(413, tooManyRowsDetail(rows, maxRequestRows));
}

/** The 413 message for a request that needs `rows` model rows, over `maxRequestRows`. */
export function tooManyRowsDetail(rows: number, maxRequestRows: number): string {
  return `The request needs ${rows} model rows, more than the limit of ${maxRequestRows} ` +
    `(${SET_WITH.maxRequestRows}): send the rows in several requests`;
}

/**
 * Refuses a `/v2` infer whose response could pass the limit, before the model runs: `framing`
 * bytes plus {@link FLOAT32_JSON_BYTES} per number.
 *
 * @throws {HttpError} 413 naming the estimate, the rows, the limit and its flag.
 */
export function checkResponseBytes(
  answer: { readonly framing: number; readonly rows: number; readonly numbersPerRow: number },
  maxResponseBytes: number,
): void {
  const { framing, rows, numbersPerRow } = answer;
  const estimate = framing + rows * numbersPerRow * FLOAT32_JSON_BYTES;
  if (estimate > maxResponseBytes) {
    throw new HttpError(
      413,
      `The answer could take ${estimate} bytes (${rows} rows of ${numbersPerRow} numbers, up ` +
        `to ${FLOAT32_JSON_BYTES} bytes each), more than the limit of ${maxResponseBytes} bytes ` +
        `(${SET_WITH.maxResponseBytes}): send fewer rows per request, or ask for fewer outputs`,
    );
  }
}
