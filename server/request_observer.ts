/**
 * Observes every answered request once: the metrics count it, and an optional sink (the access
 * log) gets its record. {@link observeRequests} wraps the app's handler; the route template comes
 * from the app, so the labels never hold raw paths.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { Metrics } from "./metrics.ts";
 * import { observeRequests } from "./request_observer.ts";
 * const metrics = new Metrics();
 * const fetch = observeRequests(() => Promise.resolve(new Response("ok")), {
 *   routeOf: () => "/healthz",
 *   metrics,
 * });
 * await (await fetch(new Request("http://localhost/healthz"))).text();
 * assert.ok(metrics.render().includes('route="/healthz",status="200"} 1'));
 * ```
 *
 * @module
 */

import type { RequestRecord } from "./access_log.ts";
import type { Metrics } from "./metrics.ts";
import { rowsOf } from "./request_rows.ts";
import { pathOf } from "./request_path.ts";

/** Where the observations go. */
export interface Observers {
  /** The route template of a path (`unmatched` when none). */
  readonly routeOf: (path: string) => string;
  readonly metrics: Metrics;
  /** Gets one record per answered request (e.g. `accessLog.record`); must not throw. */
  readonly onRequest?: ((record: RequestRecord) => void) | undefined;
}

/**
 * `handle`, timed and recorded. `handle` must never reject (the app maps every error).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { Metrics } from "./metrics.ts";
 * import { observeRequests } from "./request_observer.ts";
 * const statuses: number[] = [];
 * const fetch = observeRequests(() => Promise.resolve(new Response(null, { status: 204 })), {
 *   routeOf: (path) => path,
 *   metrics: new Metrics(),
 *   onRequest: (record) => statuses.push(record.status),
 * });
 * await fetch(new Request("http://localhost/ping"));
 * assert.deepEqual(statuses, [204]);
 * ```
 */
export function observeRequests(
  handle: (request: Request) => Promise<Response>,
  observers: Observers,
): (request: Request) => Promise<Response> {
  const { routeOf, metrics, onRequest } = observers;
  return async (request) => {
    const time = Date.now();
    const started = performance.now();
    const response = await handle(request);
    const seconds = (performance.now() - started) / 1000;
    const path = pathOf(request);
    const route = routeOf(path);
    const { method } = request;
    metrics.recordRequest({ method, route, status: response.status, seconds });
    onRequest?.({
      time,
      method,
      path,
      route,
      status: response.status,
      seconds,
      rows: rowsOf(request),
    });
    return response;
  };
}
