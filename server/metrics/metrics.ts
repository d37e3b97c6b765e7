/**
 * `GET /metrics`: the server's counters in the Prometheus text format (version 0.0.4), named
 * by Prometheus's conventions (base units, `_total` counters, `_seconds` durations).
 *
 * | metric | type | labels |
 * |---|---|---|
 * | `petri_serve_requests_total` | counter | `method`, `route` (the route template), `status` |
 * | `petri_serve_request_duration_seconds` | histogram | `method`, `route` |
 * | `petri_serve_ort_run_rows` | histogram | `gradient` |
 * | `petri_serve_ort_run_duration_seconds` | histogram | `gradient` |
 * | `petri_serve_ort_in_place_runs_total` | counter | (runs made on the serving thread, not the worker) |
 * | `petri_serve_queue_rows` | gauge | (rows waiting for the next ORT run) |
 * | `petri_serve_queue_wait_seconds` | histogram | (time each request's rows waited in the queue) |
 * | `petri_serve_requests_shed_total` | counter | `reason` (admission's `RefusalReason`) |
 * | `petri_serve_requests_in_flight` | gauge | (admitted model requests not answered yet) |
 * | `petri_serve_requests_waiting` | gauge | (model requests waiting for room to be admitted) |
 * | `petri_serve_held_body_bytes` | gauge | (bytes of bodies and responses admission holds) |
 * | `petri_serve_model_restarts_total` | counter | (ORT sessions recreated after failed runs) |
 * | `petri_serve_batch_logs_in_progress` | gauge | (logs `POST /batch` is scoring now) |
 * | `petri_serve_batch_logs_total` | counter | `outcome`: `complete`, `cut` (ended by a final error record), `client_gone`, `refused` (an error response) |
 * | `petri_serve_batch_traces_total` | counter | (entries `POST /batch` has written, error entries included) |
 * | `process_resident_memory_bytes` | gauge | (when the runtime reports it) |
 *
 * Our own small writer rather than `prom-client`, which imports `node:cluster` and three more
 * packages for a few maps, and would tie `server/` to a runtime.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { Metrics } from "./metrics.ts";
 * const metrics = new Metrics();
 * metrics.recordRequest({ method: "POST", route: "/forward", status: 200, seconds: 0.002 });
 * const line = 'petri_serve_requests_total{method="POST",route="/forward",status="200"} 1';
 * assert.ok(metrics.render().split("\n").includes(line));
 * ```
 *
 * @module
 */

import type { ModelSession, RunRecord } from "../../core/runtime/mod.ts";

/** The content type of the text format. */
export const METRICS_CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8";

/** One answered request, as the metrics count it. */
export interface RequestSample {
  readonly method: string;
  /** The route template (e.g. `/v2/models/{name}/infer`), never the raw path. */
  readonly route: string;
  readonly status: number;
  readonly seconds: number;
}

/** What the metrics read at scrape time. */
export interface Gauges {
  /** Rows waiting for the next ORT run. */
  readonly queuedRows?: (() => number) | undefined;
  /** Admitted model requests not answered yet. */
  readonly inFlight?: (() => number) | undefined;
  /** Model requests waiting for room to be admitted. */
  readonly waiting?: (() => number) | undefined;
  /** Bytes of request bodies and responses held by admitted requests. */
  readonly reservedBytes?: (() => number) | undefined;
  /** ORT sessions recreated after failed runs. */
  readonly restarts?: (() => number) | undefined;
  /** Logs `POST /batch` is scoring now. */
  readonly logsInProgress?: (() => number) | undefined;
}

const METHODS = new Set(["GET", "HEAD", "POST", "PUT", "DELETE", "PATCH", "OPTIONS"]);

const DURATION_BUCKETS = [
  0.0005,
  0.001,
  0.0025,
  0.005,
  0.01,
  0.025,
  0.05,
  0.1,
  0.25,
  0.5,
  1,
  2.5,
  5,
  10,
];
const RUN_DURATION_BUCKETS = [
  0.0001,
  0.00025,
  0.0005,
  0.001,
  0.0025,
  0.005,
  0.01,
  0.025,
  0.05,
  0.1,
  0.25,
  1,
];
const ROW_BUCKETS = [1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096];
const WAIT_BUCKETS = [0.001, 0.005, 0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

/**
 * Metrics for a model's `session`: every ORT run is recorded, and the queue and restart gauges
 * read the session.
 */
export function metricsFor(session: ModelSession, gauges: Gauges = {}): Metrics {
  const metrics = new Metrics({
    ...gauges,
    queuedRows: () => session.queue.queuedRows,
    restarts: () => session.restarts,
  });
  session.observe((run) => metrics.recordRun(run));
  return metrics;
}

/** A histogram for one label set: cumulative counts are computed when rendering. */
class Histogram {
  readonly counts: number[];
  sum = 0;
  count = 0;
  constructor(readonly buckets: readonly number[]) {
    this.counts = new Array(buckets.length).fill(0);
  }
  observe(value: number): void {
    this.sum += value;
    this.count++;
    const i = this.buckets.findIndex((bound) => value <= bound);
    if (i >= 0) this.counts[i]!++;
  }
}

/** The server's metrics; see the module doc. */
export class Metrics {
  /** The rendered label sets of each (method, status, route) seen, so each is escaped once. */
  readonly #requestLabels = new Map<string, { labels: string; key: string }>();
  readonly #requests = new Map<string, number>();
  readonly #durations = new Map<string, Histogram>();
  readonly #runRows = new Map<string, Histogram>();
  readonly #runDurations = new Map<string, Histogram>();
  #inPlaceRuns = 0;
  readonly #queueWait = new Histogram(WAIT_BUCKETS);
  readonly #shed = new Map<string, number>();
  readonly #logs = new Map<string, number>();
  #logTraces = 0;
  readonly #gauges: Gauges;

  /** Metrics whose gauges read `gauges` at scrape time. */
  constructor(gauges: Gauges = {}) {
    this.#gauges = gauges;
  }

  /** Counts one answered request. */
  recordRequest(sample: RequestSample): void {
    // Methods come from clients: unknown ones share one label value, so series stay bounded.
    const method = METHODS.has(sample.method) ? sample.method : "other";
    // Rendered once per (method, status, route): methods and statuses hold no space.
    const cacheKey = `${method} ${sample.status} ${sample.route}`;
    let rendered = this.#requestLabels.get(cacheKey);
    if (rendered === undefined) {
      const labels = `method=${label(method)},route=${label(sample.route)}`;
      rendered = { labels, key: `${labels},status=${label(String(sample.status))}` };
      this.#requestLabels.set(cacheKey, rendered);
    }
    const { labels, key } = rendered;
    this.#requests.set(key, (this.#requests.get(key) ?? 0) + 1);
    histogram(this.#durations, labels, DURATION_BUCKETS).observe(sample.seconds);
  }

  /** Counts one ORT run. */
  recordRun(sample: RunRecord): void {
    const labels = sample.withGradient ? GRADIENT_RUN : FORWARD_RUN;
    histogram(this.#runRows, labels, ROW_BUCKETS).observe(sample.rows);
    histogram(this.#runDurations, labels, RUN_DURATION_BUCKETS).observe(sample.seconds);
    for (const seconds of sample.queueSeconds ?? []) this.#queueWait.observe(seconds);
    if (sample.inPlace) this.#inPlaceRuns++;
  }

  /** Counts one request that was not served, by reason. */
  recordRefused(reason: string): void {
    this.#shed.set(reason, (this.#shed.get(reason) ?? 0) + 1);
  }

  /** Counts entries `POST /batch` has written, error entries included. */
  recordLogTraces(count: number): void {
    this.#logTraces += count;
  }

  /** Counts one log `POST /batch` has finished with, by outcome (`refused`: nothing scored). */
  recordLog(outcome: "complete" | "cut" | "client_gone" | "refused"): void {
    this.#logs.set(outcome, (this.#logs.get(outcome) ?? 0) + 1);
  }

  /** The exposition text. */
  render(): string {
    const out: string[] = [];
    const head = (name: string, type: string, help: string) =>
      out.push(`# HELP ${name} ${help}`, `# TYPE ${name} ${type}`);

    head("petri_serve_requests_total", "counter", "HTTP requests answered, by route template.");
    for (const [labels, n] of this.#requests) {
      out.push(`petri_serve_requests_total{${labels}} ${n}`);
    }
    writeHistograms(
      out,
      head,
      "petri_serve_request_duration_seconds",
      "Time from a request's arrival to its answer, in seconds.",
      this.#durations,
    );
    writeHistograms(
      out,
      head,
      "petri_serve_ort_run_rows",
      "Rows per ONNX Runtime run (requests queued together share a run).",
      this.#runRows,
    );
    writeHistograms(
      out,
      head,
      "petri_serve_ort_run_duration_seconds",
      "Wall time of one ONNX Runtime run, in seconds.",
      this.#runDurations,
    );
    head(
      "petri_serve_ort_in_place_runs_total",
      "counter",
      "ONNX Runtime runs made on the serving thread (a lone client's small batch), not the worker.",
    );
    out.push(`petri_serve_ort_in_place_runs_total ${this.#inPlaceRuns}`);
    const sample = sampleWriter(out, head);
    sample(
      "petri_serve_queue_rows",
      "gauge",
      "Rows waiting for the next ONNX Runtime run.",
      this.#gauges.queuedRows,
    );
    this.#renderAdmission(out, head);
    this.#renderLogs(out, head);
    sample(
      "process_resident_memory_bytes",
      "gauge",
      "Resident memory size in bytes.",
      denoResidentMemory(),
    );
    return out.join("\n") + "\n";
  }

  /** The admission and model-health metrics (`../pipeline/admission.ts`, `../pipeline/model_health.ts`). */
  #renderAdmission(
    out: string[],
    head: (name: string, type: string, help: string) => void,
  ): void {
    writeHistograms(
      out,
      head,
      "petri_serve_queue_wait_seconds",
      "Time each request's rows waited in the queue before their ONNX Runtime run, in seconds.",
      new Map(this.#queueWait.count > 0 ? [["", this.#queueWait]] : []),
    );
    head(
      "petri_serve_requests_shed_total",
      "counter",
      "Requests not served: refused with 503, or withdrawn by a client that hung up, by reason.",
    );
    for (const [reason, n] of this.#shed) {
      out.push(`petri_serve_requests_shed_total{reason=${label(reason)}} ${n}`);
    }
    const { inFlight, waiting, reservedBytes, restarts } = this.#gauges;
    const sample = sampleWriter(out, head);
    sample(
      "petri_serve_requests_in_flight",
      "gauge",
      "Admitted model requests not answered yet.",
      inFlight,
    );
    sample(
      "petri_serve_requests_waiting",
      "gauge",
      "Model requests waiting, their bodies unread, for room to be admitted.",
      waiting,
    );
    sample(
      "petri_serve_held_body_bytes",
      "gauge",
      "Bytes of request bodies and large answers held by admitted requests.",
      reservedBytes,
    );
    sample(
      "petri_serve_model_restarts_total",
      "counter",
      "ONNX Runtime sessions recreated after failed runs.",
      restarts,
    );
  }

  /** The metrics of `POST /batch` (`../log_scoring/route.ts`). */
  #renderLogs(out: string[], head: (name: string, type: string, help: string) => void): void {
    const { logsInProgress } = this.#gauges;
    if (logsInProgress === undefined) return;
    const sample = sampleWriter(out, head);
    sample(
      "petri_serve_batch_logs_in_progress",
      "gauge",
      "Logs POST /batch is scoring now.",
      logsInProgress,
    );
    head(
      "petri_serve_batch_logs_total",
      "counter",
      "Logs POST /batch has finished with, by outcome (complete, cut, client_gone, refused).",
    );
    for (const [outcome, n] of this.#logs) {
      out.push(`petri_serve_batch_logs_total{outcome=${label(outcome)}} ${n}`);
    }
    head(
      "petri_serve_batch_traces_total",
      "counter",
      "Entries POST /batch has written: traces scored, error entries included.",
    );
    out.push(`petri_serve_batch_traces_total ${this.#logTraces}`);
  }
}

/** Writes a one-value metric, with its header, when there is a reading for it. */
function sampleWriter(out: string[], head: (name: string, type: string, help: string) => void) {
  return (name: string, type: string, help: string, read: (() => number) | undefined) => {
    if (read === undefined) return;
    head(name, type, help);
    out.push(`${name} ${number(read())}`);
  };
}

function histogram(
  map: Map<string, Histogram>,
  labels: string,
  buckets: readonly number[],
): Histogram {
  let h = map.get(labels);
  if (h === undefined) map.set(labels, h = new Histogram(buckets));
  return h;
}

function writeHistograms(
  out: string[],
  head: (name: string, type: string, help: string) => void,
  name: string,
  help: string,
  map: ReadonlyMap<string, Histogram>,
): void {
  head(name, "histogram", help);
  for (const [labels, h] of map) {
    // An unlabelled histogram ("" labels) has only `le` on its buckets and nothing on the rest.
    const first = labels === "" ? "" : `${labels},`;
    const own = labels === "" ? "" : `{${labels}}`;
    let cumulative = 0;
    h.buckets.forEach((bound, i) => {
      cumulative += h.counts[i]!;
      out.push(`${name}_bucket{${first}le="${number(bound)}"} ${cumulative}`);
    });
    out.push(`${name}_bucket{${first}le="+Inf"} ${h.count}`);
    out.push(`${name}_sum${own} ${number(h.sum)}`);
    out.push(`${name}_count${own} ${h.count}`);
  }
}

/** A label value, quoted and escaped as the text format requires. */
/** The label sets of a run with and without gradients, escaped once. */
const GRADIENT_RUN = `gradient=${label("true")}`;
const FORWARD_RUN = `gradient=${label("false")}`;

function label(value: string): string {
  return `"${value.replace(/\\/g, "\\\\").replace(/"/g, '\\"').replace(/\n/g, "\\n")}"`;
}

function number(value: number): string {
  if (Number.isNaN(value)) return "NaN";
  if (!Number.isFinite(value)) return value > 0 ? "+Inf" : "-Inf";
  return String(value);
}

/** Deno's resident set size, when the runtime is Deno (CLI or Deploy). */
function denoResidentMemory(): (() => number) | undefined {
  const deno = (globalThis as { Deno?: { memoryUsage?: () => { rss: number } } }).Deno;
  const usage = deno?.memoryUsage;
  return usage ? () => usage().rss : undefined;
}
