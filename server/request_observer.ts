/**
 * Observes every answered request once: the metrics count it, and an optional sink (the access
 * log) gets its record. {@link observeRequests} wraps the app's handler; the app resolves each
 * request's path and route template once, before answering it, so the labels never hold raw
 * paths and the route is found by one lookup. Answers 404 and 405 are counted under one label
 * set, `method="other",route="unmatched"`, whatever was asked: scanners probing paths and
 * methods would otherwise add a series per probe.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { Metrics } from "./metrics.ts";
 * import { observeRequests } from "./request_observer.ts";
 * const metrics = new Metrics();
 * const fetch = observeRequests(
 *   () => ({ path: "/healthz", route: "/healthz", requestId: "r1" }),
 *   () => Promise.resolve(new Response("ok")),
 *   { metrics },
 * );
 * await (await fetch(new Request("http://localhost/healthz"))).text();
 * assert.ok(metrics.render().includes('route="/healthz",status="200"} 1'));
 * ```
 *
 * @module
 */

import type { RequestRecord } from "./access_log.ts";
import type { Metrics } from "./metrics.ts";
import { rowsOf } from "./request_rows.ts";

/** A request's path and its route template (`unmatched` when none), as the app resolved them. */
export interface ResolvedRequest {
  /** The URL's path, as `new URL(url).pathname` gives it. */
  readonly path: string;
  /** The route template, for the metrics' labels and the access log. */
  readonly route: string;
  /** The request's id (`./request_id.ts`), echoed on the answer and logged. */
  readonly requestId: string;
}

/** Where the observations go. */
export interface Observers {
  readonly metrics: Metrics;
  /** Gets one record per answered request (e.g. `accessLog.record`); must not throw. */
  readonly onRequest?: ((record: RequestRecord) => void) | undefined;
}

/**
 * `handle`, timed and recorded: `resolve` finds the request's path and route once, `handle`
 * answers it with what `resolve` found and must never reject (the app maps every error).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { Metrics } from "./metrics.ts";
 * import { observeRequests } from "./request_observer.ts";
 * const statuses: number[] = [];
 * const fetch = observeRequests(
 *   () => ({ path: "/ping", route: "/ping", requestId: "r1", status: 204 }),
 *   (_request, resolved) => Promise.resolve(new Response(null, { status: resolved.status })),
 *   { metrics: new Metrics(), onRequest: (record) => statuses.push(record.status) },
 * );
 * await fetch(new Request("http://localhost/ping"));
 * assert.deepEqual(statuses, [204]);
 * ```
 */
export function observeRequests<R extends ResolvedRequest>(
  resolve: (request: Request) => R,
  handle: (request: Request, resolved: R) => Promise<Response>,
  observers: Observers,
): (request: Request) => Promise<Response> {
  const { metrics, onRequest } = observers;
  return async (request) => {
    const time = Date.now();
    const started = performance.now();
    const resolved = resolve(request);
    const response = await handle(request, resolved);
    const seconds = (performance.now() - started) / 1000;
    const { path, route, requestId } = resolved;
    const { method } = request;
    const { status } = response;
    const unmatched = status === 404 || status === 405;
    metrics.recordRequest({
      method: unmatched ? "other" : method,
      route: unmatched ? "unmatched" : route,
      status,
      seconds,
    });
    onRequest?.({ time, method, path, route, status, seconds, rows: rowsOf(request), requestId });
    return response;
  };
}
