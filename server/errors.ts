/**
 * The server's error mapping, done once (STYLE.md 5): a {@link RequestError} from an operation
 * is 400, a {@link ValidationError} from schema parsing is 422 with FastAPI's issue list, an
 * {@link HttpError} carries its own status (404, 405, 408, 413); anything else is logged once
 * and answered with a bare 500 JSON body.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { errorResponse, HttpError } from "./errors.ts";
 * const response = errorResponse(new HttpError(404, "Not Found"), () => {});
 * assert.deepEqual(response.status, 404);
 * ```
 *
 * @module
 */

import { RequestError } from "../core/ops/errors.ts";
import type { ValidationIssue } from "../core/schemas.ts";
import { jsonResponse, stringifyJson } from "./json.ts";

/**
 * An HTTP error answered as `{"detail": message}` with `status` and optional headers.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { errorResponse, HttpError } from "./errors.ts";
 * const response = errorResponse(new HttpError(405, "Method Not Allowed", { allow: "POST" }), () => {});
 * assert.equal(response.status, 405);
 * assert.equal(response.headers.get("allow"), "POST");
 * assert.deepEqual(await response.json(), { detail: "Method Not Allowed" });
 * ```
 */
export class HttpError extends Error {
  /** Always `"HttpError"`. */
  override readonly name = "HttpError";

  /**
   * Builds the error.
   *
   * @param status the HTTP status
   * @param detail the `detail` of the answer
   * @param headers extra response headers (e.g. `Allow` for 405)
   */
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

/**
 * The one "shutting down" refusal: 503, `Retry-After`, and the connection closed.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { shuttingDown } from "./errors.ts";
 * assert.deepEqual([shuttingDown().status, shuttingDown().headers.connection], [503, "close"]);
 * ```
 */
export function shuttingDown(): HttpError {
  return new HttpError(503, "The server is shutting down", {
    "retry-after": String(RETRY_AFTER_SECONDS),
    connection: "close",
  });
}

/**
 * A body that is not JSON or does not match the request schema (HTTP 422).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { ValidationError } from "./errors.ts";
 * const error = new ValidationError([{ type: "missing", loc: ["body"], msg: "Field required" }]);
 * assert.equal(error.message, "The request body is invalid: Field required");
 * ```
 */
export class ValidationError extends Error {
  /** Always `"ValidationError"`. */
  override readonly name = "ValidationError";

  /**
   * Builds the error and its message.
   *
   * @param issues FastAPI-shaped issues, at least one
   */
  constructor(readonly issues: readonly ValidationIssue[]) {
    super(`The request body is invalid: ${issues.map((i) => i.msg).join("; ")}`);
  }
}

/** Called once for every error that is not a client's fault (the answer is a 500). */
export type ErrorLogger = (error: unknown, request: Request) => void;

/**
 * Logs to stderr with the request's method and path.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { logToConsole } from "./errors.ts";
 * const logged: unknown[][] = [];
 * const { error } = console;
 * console.error = (...args: unknown[]) => void logged.push(args);
 * try {
 *   logToConsole(new Error("boom"), new Request("http://localhost/forward", { method: "POST" }));
 * } finally {
 *   console.error = error;
 * }
 * assert.equal(logged[0]![0], "petri-serve: unexpected error answering POST /forward:");
 * assert.equal((logged[0]![1] as Error).message, "boom");
 * ```
 */
export const logToConsole: ErrorLogger = (error, request) => {
  const { pathname } = new URL(request.url);
  console.error(`petri-serve: unexpected error answering ${request.method} ${pathname}:`, error);
};

/**
 * The answer for an error thrown while handling `request`.
 *
 * @example
 * ```ts
 * import { RequestError } from "../core/ops/errors.ts";
 * import { errorResponse } from "./errors.ts";
 * import assert from "node:assert/strict";
 * const response = errorResponse(new RequestError("flip_place 'p_x' is not in the net's place set"), () => {});
 * assert.equal(response.status, 400);
 * assert.deepEqual(await response.json(), { detail: "flip_place 'p_x' is not in the net's place set" });
 * // Anything else is logged once and answered with a bare 500.
 * const logged: unknown[] = [];
 * const failure = errorResponse(new Error("boom"), (error) => logged.push(error));
 * assert.deepEqual([failure.status, await failure.json(), logged.length], [500, { detail: "Internal Server Error" }, 1]);
 * ```
 */
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

/**
 * `issues`, with the echoed `input` of the largest dropped until their JSON fits in
 * `maxBytes` (a 422 never costs much more than the body it answers).
 */
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
