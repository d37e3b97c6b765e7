/**
 * The server's error mapping, done once: a {@link RequestError} from an operation is 400, a
 * {@link ValidationError} is 422 with FastAPI's issue list, an {@link HttpError} carries its own
 * status; anything else is logged once and answered with a bare 500.
 *
 * @module
 */

import { RequestError } from "../../core/ops/mod.ts";
import type { ValidationIssue } from "../../core/schemas/mod.ts";
import { jsonResponse, stringifyJson } from "./json.ts";

/** An HTTP error answered as `{"detail": message}` with `status` and optional headers. */
export class HttpError extends Error {
  /** Always `"HttpError"`. */
  override readonly name = "HttpError";

  /** An error answered with `status`, `detail` and extra `headers` (e.g. `Allow` for 405). */
  constructor(
    readonly status: number,
    readonly detail: string,
    readonly headers: Readonly<Record<string, string>> = {},
  ) {
    super(detail);
  }
}

/** Seconds a refused client is told to wait (`Retry-After`). */
export const RETRY_AFTER_SECONDS = 1;

/** The one "shutting down" refusal: 503, `Retry-After`, and the connection closed. */
export function shuttingDown(): HttpError {
  return new HttpError(503, "The server is shutting down", {
    "retry-after": String(RETRY_AFTER_SECONDS),
    connection: "close",
  });
}

/** A body that is not JSON or does not match the request schema (HTTP 422). */
export class ValidationError extends Error {
  /** Always `"ValidationError"`. */
  override readonly name = "ValidationError";

  /** The error of FastAPI-shaped `issues`, at least one. */
  constructor(readonly issues: readonly ValidationIssue[]) {
    super(`The request body is invalid: ${issues.map((i) => i.msg).join("; ")}`);
  }
}

/** Called once for every error that is not a client's fault (the response is a 500). */
export type ErrorLogger = (error: unknown, request: Request) => void;

/** Logs to stderr with the request's method and path. */
export const logToConsole: ErrorLogger = (error, request) => {
  const { pathname } = new URL(request.url);
  console.error(`petri-serve: unexpected error answering ${request.method} ${pathname}:`, error);
};

/** The response for an error thrown while handling `request`. */
export function errorResponse(
  error: unknown,
  log: (error: unknown) => void,
  maxBytes: number = Infinity,
): Response {
  if (error instanceof RequestError) return jsonResponse(400, { detail: error.detail });
  if (error instanceof ValidationError) {
    return jsonResponse(422, { detail: boundedIssues(error.issues, maxBytes) });
  }
  if (error instanceof HttpError) {
    return jsonResponse(error.status, { detail: error.detail }, error.headers);
  }
  log(error);
  return jsonResponse(500, { detail: "Internal Server Error" });
}

/** `issues`, dropping the largest echoed `input` until they fit `maxBytes`: a 422 stays small. */
function boundedIssues(
  issues: readonly ValidationIssue[],
  maxBytes: number,
): readonly ValidationIssue[] {
  const sizes = issues.map((issue) => stringifyJson(issue).length);
  let total = sizes.reduce((a, b) => a + b, 0);
  if (total <= maxBytes) return issues;
  const out = [...issues];
  const order = sizes.map((size, i) => [size, i] as const).sort((a, b) => b[0] - a[0]);
  for (const [, i] of order) {
    if (total <= maxBytes) break;
    const { input: _, ...rest } = out[i]!;
    const size = stringifyJson(rest).length;
    total += size - sizes[i]!;
    out[i] = rest;
  }
  return out;
}
