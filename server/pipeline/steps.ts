/**
 * The steps of the app's pipeline (`./compose.ts`), in their order: {@link observe} counts
 * and logs every response, {@link finish} applies the HTTP conventions to it, {@link catchErrors}
 * turns a thrown error into its response, and {@link route} finds the handler in the route table
 * (admission control first on the routes that run the model).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { compose } from "./compose.ts";
 * import { catchErrors, route } from "./steps.ts";
 * import { RequestContext } from "./context.ts";
 * const routes = (path: string) => path === "/hi"
 *   ? { template: "/hi", methods: { GET: () => Promise.resolve(new Response("hi")) }, admitted: false, errorKey: "detail" as const }
 *   : undefined;
 * const handle = compose([catchErrors(() => {}), route(routes)], (c) => c.handler!(c));
 * const post = await handle(new RequestContext(new Request("http://localhost/hi", { method: "POST" }), false));
 * assert.deepEqual([post.status, post.headers.get("allow")], [405, "GET, HEAD"]);
 * ```
 *
 * @module
 */

import type { Metrics, RequestRecord } from "../metrics/mod.ts";
import type { Admission } from "./admission.ts";
import {
  compressResponse,
  type Cors,
  type ErrorLogger,
  errorResponse,
  hostName,
  HttpError,
  jsonResponse,
  REQUEST_ID_HEADER,
  type RouteDoc,
  shuttingDown,
  withoutBody,
} from "../http/mod.ts";
import type { Handler, Step } from "./compose.ts";

/** One row of the route table. */
export interface Route {
  /** The route template: the metrics' label and the access log's route. */
  readonly template: string;
  /** The handler of each method; `HEAD` is answered by `GET`'s. */
  readonly methods: Readonly<Partial<Record<string, Handler>>>;
  /** Answers every method (a mounted handler decides for itself). */
  readonly any?: Handler | undefined;
  /** The 405 for `method` (default: `Method Not Allowed` with `Allow`). */
  readonly notAllowed?: ((method: string) => HttpError) | undefined;
  /** Whether the route runs the model, and so passes admission control first. */
  readonly admitted: boolean;
  /** Error responses' key: `detail`, or `error` for the Open Inference Protocol. */
  readonly errorKey: "detail" | "error";
  /** The route in the OpenAPI document; undocumented when absent. */
  readonly docs?: RouteDoc | undefined;
}

/** The size a 422 may always take, whatever its body's size. */
const MIN_ERROR_BYTES = 4096;

/** The probes answered as usual on connections opened during a drain. */
const PROBES: ReadonlySet<string> = new Set([
  "/healthz",
  "/readyz",
  "/v2/health/live",
  "/v2/health/ready",
]);

/**
 * Whether a request to `path` counts as traffic a log being scored makes room for at once
 * (`../log_scoring/pacing.ts`): probes and scrapes, which come now and then, wait for its next turn.
 */
export function wantsLogPacing(path: string): boolean {
  return !PROBES.has(path) && path !== "/metrics";
}

/** Where {@link observe} sends what it sees. */
export interface Observers {
  readonly metrics: Metrics;
  /** Gets one record per answered request (e.g. `accessLog.record`); must not throw. */
  readonly onRequest?: ((record: RequestRecord) => void) | undefined;
}

/** Counts every response in the metrics and hands its record to the access log. */
export function observe({ metrics, onRequest }: Observers): Step {
  return async (context, next) => {
    const response = await next(context);
    const seconds = (performance.now() - context.started) / 1000;
    const { method } = context.request;
    const { status } = response;
    const unmatched = status === 404 || status === 405;
    metrics.recordRequest({
      method: unmatched ? "other" : method,
      route: unmatched ? "unmatched" : context.route,
      status,
      seconds,
    });
    onRequest?.({
      time: context.time,
      method,
      path: context.target,
      route: context.route,
      status,
      seconds,
      rows: context.rows,
      requestId: context.requestId,
    });
    return response;
  };
}

/** What {@link finish} applies. */
export interface Conventions {
  /** The CORS policy; none adds no header. */
  readonly cors?: Cors | undefined;
  /** Dynamic responses at least this long are compressed (default `COMPRESS_MIN_BYTES`). */
  readonly compressMinBytes?: number | undefined;
}

/**
 * Answers a CORS preflight at once; on every other response, in this order: compression of a
 * large one, the CORS headers, the request id, and `HEAD`'s response without its body.
 */
export function finish(conventions: Conventions, onError: ErrorLogger): Step {
  const { cors, compressMinBytes } = conventions;
  return async (context, next) => {
    const { request } = context;
    const response = cors?.preflight(request) ?? await next(context);
    try {
      const plain = context.plainResponse === response ? context.responseBytes : undefined;
      const streamed = context.streamedResponse === response;
      let answer = context.identityResponse === response
        ? response
        : await compressResponse(request, response, compressMinBytes, plain, streamed);
      if (cors) answer = cors.apply(request, answer);
      // A plain response that went out as it was made carries its id already.
      if (answer !== context.plainResponse) {
        answer.headers.set(REQUEST_ID_HEADER, context.requestId);
      }
      return request.method === "HEAD" ? await withoutBody(answer) : answer;
    } catch (error) {
      onError(error, request);
      return internalError();
    }
  };
}

/** Turns an error thrown by the steps after it into its response, once. */
export function catchErrors(onError: ErrorLogger): Step {
  return async (context, next) => {
    try {
      return await next(context);
    } catch (error) {
      try {
        if (context.errorKey === "error" && error instanceof HttpError) {
          return jsonResponse(error.status, { error: error.detail }, error.headers);
        }
        // A 422 echoes its body's values: at most about the body's own size.
        const maxBytes = Math.max(MIN_ERROR_BYTES, context.bodyBytes);
        return errorResponse(error, (e) => onError(e, context.request), maxBytes);
      } catch (failure) {
        // Writing the error failed too (e.g. an echoed input too deep to serialise).
        onError(failure, context.request);
        return internalError();
      }
    }
  };
}

/**
 * Refuses a request whose `Host` names none of `allowed` with 421 (a page on another site
 * reaching a local server through DNS rebinding sends its own host name); `*` allows any. A
 * request without `Host` (HTTP/1.0) passes: browsers always send one.
 */
export function checkHost(allowed: readonly string[]): Step {
  const names = new Set(allowed.map((host) => hostName(host)));
  return (context, next) => {
    const host = context.request.headers.get("host");
    if (host !== null && !names.has(hostName(host))) {
      throw new HttpError(
        421,
        `The Host header names ${JSON.stringify(host)}, which this server does not answer ` +
          `for (allowed: ${allowed.join(", ")}; serve --allowed-host adds more)`,
      );
    }
    return next(context);
  };
}

/**
 * Finds the request's route and method handler: 404 for no route, 405 with `Allow` for
 * another method, 503 for anything but a probe on a connection opened during the drain.
 * The model's routes pass `admission` first.
 */
export function route(find: (path: string) => Route | undefined, admission?: Admission): Step {
  const allows = new WeakMap<Route, string>();
  const allowOf = (found: Route) => {
    let allow = allows.get(found);
    if (allow === undefined) {
      allow = Object.keys(found.methods).flatMap((m) => m === "GET" ? ["GET", "HEAD"] : [m])
        .join(", ");
      allows.set(found, allow);
    }
    return allow;
  };
  return (context, next) => {
    const found = find(context.path);
    if (found === undefined) throw new HttpError(404, "Not Found");
    context.route = found.template;
    context.errorKey = found.errorKey;
    if (context.draining && !PROBES.has(context.path)) throw shuttingDown();
    const method = context.request.method === "HEAD" ? "GET" : context.request.method;
    // Own keys only: a method such as "constructor" must not find Object.prototype's.
    const handler = found.any ??
      (Object.hasOwn(found.methods, method) ? found.methods[method] : undefined);
    if (handler === undefined) {
      throw found.notAllowed?.(method) ??
        new HttpError(405, "Method Not Allowed", { allow: allowOf(found) });
    }
    context.handler = handler;
    return found.admitted && admission !== undefined
      ? admission.admit(context, next)
      : next(context);
  };
}

function internalError(): Response {
  return new Response('{"detail":"Internal Server Error"}', {
    status: 500,
    headers: { "content-type": "application/json" },
  });
}
