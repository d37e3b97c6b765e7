/**
 * `GET /metrics`: the server's own metrics (`./metrics.ts`), the build info, extra text such as
 * the process metrics and, when asked, every `deno serve --parallel` instance's metrics
 * (`./instances.ts`), merged into one exposition (`./exposition.ts`).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { Metrics } from "./metrics.ts";
 * import { metricsRoute } from "./route.ts";
 * const route = metricsRoute(new Metrics(), "# TYPE b gauge\nb 1\n", {});
 * const text = await (await route()).text();
 * assert.ok(text.startsWith("# HELP petri_serve_requests_total"));
 * assert.ok(text.endsWith("b 1\n"));
 * ```
 *
 * @module
 */

import { type Metrics, METRICS_CONTENT_TYPE } from "./metrics.ts";
import { mergeExpositions, selectFamilies } from "./exposition.ts";
import { InstanceMetrics } from "./instances.ts";
import { type RouteDoc, TAGS } from "../http/mod.ts";

/** `GET /metrics` in the OpenAPI document. */
export const METRICS_DOC: RouteDoc = {
  GET: {
    tags: [TAGS.serving.name],
    operationId: "metrics",
    summary: "Prometheus metrics (text format 0.0.4)",
    description: "Request counts and durations by route template, ONNX Runtime run sizes and " +
      "durations, the run queue, the build info (server version, model, model SHA-256) and " +
      "the process metrics. Under deno serve --parallel, every instance's series, labelled " +
      "instance_id.",
    responses: {
      200: {
        description: "The metrics",
        content: { "text/plain; version=0.0.4": { schema: { type: "string" } } },
      },
    },
  },
};

/** What else `/metrics` shows besides the server's own metrics. */
export interface MetricsRouteOptions {
  /** More exposition text, read at each scrape (the process metrics). */
  readonly extraMetrics?: (() => string) | undefined;
  /**
   * Gather every instance's metrics, until `signal` aborts (the instances' channel keeps an
   * isolate alive).
   */
  readonly metricsInstances?: { readonly signal: AbortSignal } | undefined;
}

/** Families that belong to the process, not to one instance: shown once, unlabelled. */
const processWide = (family: string) => family.startsWith("process_");

/** The route's handler for `metrics` plus `buildInfo` (exposition text) and `options`. */
export function metricsRoute(
  metrics: Metrics,
  buildInfo: string,
  options: MetricsRouteOptions,
): () => Promise<Response> {
  const signal = options.metricsInstances?.signal;
  const instances = signal && !signal.aborted
    ? new InstanceMetrics(() => selectFamilies(metrics.render(), (f) => !processWide(f)))
    : undefined;
  signal?.addEventListener("abort", () => instances?.[Symbol.dispose](), { once: true });
  const exposition = async () => {
    const own = metrics.render();
    const extra = options.extraMetrics?.() ?? "";
    if (instances === undefined) return mergeExpositions([own, buildInfo, extra]);
    const process = selectFamilies(own, processWide);
    return mergeExpositions([...await instances.gather(), buildInfo, process, extra]);
  };
  return async () =>
    new Response(await exposition(), { headers: { "content-type": METRICS_CONTENT_TYPE } });
}
