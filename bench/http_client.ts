/**
 * The load client of `http_load.ts`, run as its own process so it does not share a core's
 * event loop with the servers it measures. It POSTs JSON bodies (cycling through the list) to
 * one URL from `connections` concurrent loops (Deno's fetch keeps one keep-alive connection
 * per loop), first a warm-up, then a measured run that stops at `maxRequests` or
 * `maxSeconds`, whichever comes first. It prints one JSON line ({@link Measurement}).
 *
 * ```sh
 * deno run --allow-net bench/http_client.ts '{"url": "http://127.0.0.1:8000/forward",
 *   "bodies": ["{\"input_marking\": {}}"], "connections": 16, "maxRequests": 2000,
 *   "maxSeconds": 5, "warmupRequests": 200, "warmupSeconds": 1}'
 * ```
 *
 * @module
 */

/** What to measure. */
export interface LoadPlan {
  /** The URL to POST to (127.0.0.1 only). */
  readonly url: string;
  /** JSON bodies, sent in turn. */
  readonly bodies: readonly string[];
  /** Concurrent request loops. */
  readonly connections: number;
  /** The measured run stops after this many requests... */
  readonly maxRequests: number;
  /** ...or after this long, whichever comes first. */
  readonly maxSeconds: number;
  /** Requests of the warm-up (not measured); it also stops after `warmupSeconds`. */
  readonly warmupRequests: number;
  readonly warmupSeconds: number;
}

/** One measured cell. */
export interface Measurement {
  /** Requests answered in the measured run. */
  readonly requests: number;
  /** Answers that were not 200 (or failed). */
  readonly errors: number;
  readonly firstError?: string;
  readonly seconds: number;
  readonly requestsPerSecond: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
}

/**
 * Runs requests from `plan.connections` loops until `maxRequests` have started or
 * `maxSeconds` have passed, and measures them.
 *
 * @example
 * ```ts
 * import { load } from "./http_client.ts";
 * const m = await load({
 *   url: "http://127.0.0.1:8000/forward",
 *   bodies: ['{"input_marking": {}}'],
 *   connections: 1,
 *   maxRequests: 10,
 *   maxSeconds: 1,
 *   warmupRequests: 0,
 *   warmupSeconds: 0,
 * });
 * m.requestsPerSecond;
 * ```
 */
export async function load(plan: LoadPlan): Promise<Measurement> {
  await run(plan, plan.warmupRequests, plan.warmupSeconds);
  return await run(plan, plan.maxRequests, plan.maxSeconds);
}

async function run(plan: LoadPlan, maxRequests: number, maxSeconds: number): Promise<Measurement> {
  const latencies: number[] = [];
  let started = 0;
  let errors = 0;
  let firstError: string | undefined;
  const t0 = performance.now();
  const deadline = t0 + maxSeconds * 1000;
  const loop = async () => {
    while (started < maxRequests && performance.now() < deadline) {
      const body = plan.bodies[started % plan.bodies.length]!;
      started++;
      const t = performance.now();
      try {
        const response = await fetch(plan.url, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body,
        });
        const text = await response.text();
        if (response.status !== 200) {
          errors++;
          firstError ??= `${response.status} ${text.slice(0, 200)}`;
        }
      } catch (error) {
        errors++;
        firstError ??= String(error);
      }
      latencies.push(performance.now() - t);
    }
  };
  await Promise.all(Array.from({ length: plan.connections }, loop));
  const seconds = (performance.now() - t0) / 1000;
  latencies.sort((a, b) => a - b);
  return {
    requests: latencies.length,
    errors,
    ...(firstError === undefined ? {} : { firstError }),
    seconds,
    requestsPerSecond: latencies.length / seconds,
    p50Ms: percentile(latencies, 0.5),
    p99Ms: percentile(latencies, 0.99),
  };
}

/** Nearest-rank percentile of sorted values. */
function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.ceil(p * sorted.length) - 1)]!;
}

if (import.meta.main) {
  const plan: LoadPlan = JSON.parse(Deno.args[0] ?? "{}");
  console.log(JSON.stringify(await load(plan)));
}
