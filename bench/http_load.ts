/**
 * HTTP throughput and latency of `cli.ts serve` against a bare `Deno.serve` JSON echo server
 * measured in the same run. Both listen on 127.0.0.1: `serve` runs the credit-approval example
 * in its own process, the echo server (`request.json()` then `Response.json()`) runs in this
 * one, and every cell is measured by `http_client.ts` in a separate process: each POST
 * endpoint with realistic bodies for the example model, at 1 and 16 connections, bounded by a
 * request count and a time (whichever comes first), and the echo server with the same bodies.
 * The table replaces the `## http` section of `bench/README.md`, keeping the other sections.
 *
 * Not a `deno bench` file: run it as
 * `deno run -A bench/http_load.ts [--max-requests 2000] [--max-seconds 5] [--no-readme]`.
 *
 * @example
 * ```ts
 * import { httpSection } from "./http_load.ts";
 * httpSection([], "machine").startsWith("## http"); // true
 * ```
 *
 * @module
 */

import { replaceSection } from "./batch_rss.ts";
import { startServerProcess } from "../tests/serve/server_process.ts";
import type { LoadPlan, Measurement } from "./http_client.ts";

const ROOT = new URL("../", import.meta.url);
const README = new URL("README.md", import.meta.url);
const CLIENT = "bench/http_client.ts";

/** The measured endpoints. */
export const ENDPOINTS = ["forward", "anomaly", "counterfactual", "sensitivity"] as const;
/** One of {@link ENDPOINTS}. */
export type Endpoint = typeof ENDPOINTS[number];

/** The connection counts of each cell. */
export const CONNECTIONS = [1, 16] as const;

const AMOUNTS = [300, 800, 1500, 2500, 4000, 6000, 8000, 9500];

/**
 * Request bodies for the credit-approval example: loan amounts across the range, so the
 * firing decisions differ from request to request.
 *
 * @example
 * ```ts
 * import { BODIES } from "./http_load.ts";
 * JSON.parse(BODIES.forward[0]!).input_values; // { p_submitted: 300 }
 * ```
 */
export const BODIES: Readonly<Record<Endpoint, readonly string[]>> = {
  forward: AMOUNTS.map((amount) =>
    JSON.stringify({ input_marking: { p_submitted: 1 }, input_values: { p_submitted: amount } })
  ),
  anomaly: AMOUNTS.map((amount, i) =>
    JSON.stringify({
      input_marking: { p_submitted: 1 },
      input_values: { p_submitted: amount },
      events: i % 3 === 2
        ? [{ name: "decline loan" }, { name: "approve loan", attributes: { amount } }]
        : [{ name: i % 2 ? "approve loan" : "decline loan", attributes: { amount } }],
      attributes: { case_id: `loan-${i}`, amount },
    })
  ),
  counterfactual: AMOUNTS.map((amount) =>
    JSON.stringify({
      input_marking: { p_submitted: 1 },
      input_values: { p_submitted: amount },
      flip_place: "p_submitted",
      target_transition: "t_approve",
      flip_channel: "value",
      search_range: [0, 10000],
      tolerance: 0.001,
    })
  ),
  sensitivity: AMOUNTS.map((amount, i) =>
    JSON.stringify({
      input_marking: { p_submitted: 1 },
      input_values: { p_submitted: amount },
      target_transition: i % 2 ? "t_approve" : "t_decline",
    })
  ),
};

/** A key each endpoint's answer must have (checked once before measuring). */
const ANSWER_KEY: Readonly<Record<Endpoint, string>> = {
  forward: "transition_activations",
  anomaly: "trace_score",
  counterfactual: "found",
  sensitivity: "value_gradients",
};

/** One row of the table: an endpoint at a connection count, served and echoed. */
export interface Row {
  readonly endpoint: Endpoint;
  readonly connections: number;
  readonly serve: Measurement;
  readonly echo: Measurement;
  /** ORT runs per request on the instrumented twin of `serve` (`http_serve_counted.ts`). */
  readonly runsPerRequest: number;
}

/** Bounds of each cell. */
export interface Bounds {
  readonly maxRequests: number;
  readonly maxSeconds: number;
}

/**
 * Runs `http_client.ts` in its own process against `url` and returns its measurement (after a
 * warm-up of 200 requests or 1 s unless `warmUp` is false).
 *
 * @example
 * ```ts
 * import { BODIES, measure } from "./http_load.ts";
 * await measure("http://127.0.0.1:8000/forward", BODIES.forward, 16, {
 *   maxRequests: 2000,
 *   maxSeconds: 5,
 * });
 * ```
 */
export async function measure(
  url: string,
  bodies: readonly string[],
  connections: number,
  bounds: Bounds,
  warmUp = true,
): Promise<Measurement> {
  const plan: LoadPlan = {
    url,
    bodies,
    connections,
    ...bounds,
    warmupRequests: warmUp ? 200 : 0,
    warmupSeconds: warmUp ? 1 : 0,
  };
  const output = await new Deno.Command(Deno.execPath(), {
    args: ["run", "--allow-net=127.0.0.1", CLIENT, JSON.stringify(plan)],
    cwd: ROOT,
    stdin: "null",
  }).output();
  const stdout = new TextDecoder().decode(output.stdout).trim();
  if (output.code !== 0) {
    throw new Error(
      `the client failed (exit ${output.code}): ${new TextDecoder().decode(output.stderr)}`,
    );
  }
  const measurement: Measurement = JSON.parse(stdout.split("\n").at(-1)!);
  if (measurement.errors > 0) {
    throw new Error(
      `${url}: ${measurement.errors} of ${measurement.requests} requests failed, first: ` +
        measurement.firstError,
    );
  }
  return measurement;
}

/**
 * The markdown of the `## http` section for `rows`.
 *
 * @example
 * ```ts
 * import { httpSection } from "./http_load.ts";
 * httpSection([], "machine").includes("| endpoint |"); // true
 * ```
 */
export function httpSection(
  rows: readonly Row[],
  machine: string,
  bounds: Bounds = { maxRequests: 2000, maxSeconds: 5 },
): string {
  const ms = (value: number) => value.toFixed(2);
  const rate = (value: number) => Math.round(value).toLocaleString("en-US");
  const lines = [
    "## http",
    "",
    "`cli.ts serve` (the credit-approval example) against a bare `Deno.serve` JSON echo server",
    "(`Response.json(await request.json())`) measured in the same run by `bench/http_load.ts`",
    "(`deno run -A bench/http_load.ts`). Both listen on 127.0.0.1, `serve` in its own process.",
    "The load comes from `bench/http_client.ts` in a separate process: N concurrent loops of",
    "`fetch` (one keep-alive connection each) POSTing realistic bodies for the example (eight",
    "loan amounts from 300 to 9,500 in turn); the echo server gets the same bodies. Every answer",
    "must be 200. *Ratio* is the endpoint's requests/s over the echo server's with the same",
    "bodies and connections.",
    "",
    `Each cell: a warm-up (200 requests or 1 s), then ${
      bounds.maxRequests.toLocaleString("en-US")
    } ` +
    `requests or ${bounds.maxSeconds} s, whichever comes first.`,
    "*ORT runs / request* comes from a short extra run of the same load against",
    "`bench/http_serve_counted.ts`, which serves the example exactly as `serve` does and also",
    "reports `ModelSession.runCount`.",
    "",
    `Machine: ${machine}.`,
    "The client, `serve` and the echo server share these cores, so the echo figures are the",
    "ceiling of this set-up rather than of `Deno.serve`.",
    "",
    "| endpoint | connections | requests | req/s | p50 ms | p99 ms | echo req/s | echo p50 ms | echo p99 ms | ratio to echo | ORT runs / request |",
    "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
    ...rows.map((r) =>
      `| POST /${r.endpoint} | ${r.connections} | ${r.serve.requests.toLocaleString("en-US")} | ` +
      `${rate(r.serve.requestsPerSecond)} | ${ms(r.serve.p50Ms)} | ${ms(r.serve.p99Ms)} | ` +
      `${rate(r.echo.requestsPerSecond)} | ${ms(r.echo.p50Ms)} | ${ms(r.echo.p99Ms)} | ` +
      `${(r.serve.requestsPerSecond / r.echo.requestsPerSecond).toFixed(2)} | ` +
      `${r.runsPerRequest.toFixed(2)} |`
    ),
    "",
    ...scaling(rows),
    "",
    ...coalescing(rows),
  ];
  return lines.join("\n");
}

function scaling(rows: readonly Row[]): string[] {
  return ENDPOINTS.flatMap((endpoint) => {
    const one = rows.find((r) => r.endpoint === endpoint && r.connections === 1);
    const many = rows.find((r) => r.endpoint === endpoint && r.connections === 16);
    if (!one || !many) return [];
    const times = (a: Measurement, b: Measurement) =>
      `${(b.requestsPerSecond / a.requestsPerSecond).toFixed(1)}×`;
    return [
      `- POST /${endpoint}: 16 connections give ${times(one.serve, many.serve)} the requests/s ` +
      `of 1 (echo: ${times(one.echo, many.echo)}); ORT runs a request: ` +
      `${one.runsPerRequest.toFixed(2)} at 1 connection, ${many.runsPerRequest.toFixed(2)} at 16`,
    ];
  });
}

/** The note on coalescing, with what this run saw. */
function coalescing(rows: readonly Row[]): string[] {
  const pairs = ENDPOINTS.flatMap((endpoint) => {
    const one = rows.find((r) => r.endpoint === endpoint && r.connections === 1);
    const many = rows.find((r) => r.endpoint === endpoint && r.connections === 16);
    return one && many ? [{ endpoint, one: one.runsPerRequest, many: many.runsPerRequest }] : [];
  });
  const lines = [
    "`core/runtime.ts` coalesces concurrent requests into batched ORT runs: ORT sessions are not",
    "re-entrant, so runs are serialised, and the requests queued when a run starts share it as",
    "extra rows (up to 1,024 rows a run; only requests with the same gradient flag share a run).",
    "A batched run costs little more than a one-row run, so at 16 connections coalescing should",
    "show as fewer ORT runs than requests in the last column (/counterfactual needs several runs",
    "a request on its own: a 129-point grid plus the base point, then 31-probe refinements).",
    "",
  ];
  if (pairs.length === 0) return lines;
  if (pairs.every((p) => p.many >= 0.95 * p.one)) {
    return [
      ...lines,
      "**In this run it did not happen over HTTP**: at 16 connections every request still had",
      "runs of its own. onnxruntime-web's WASM backend computes a run without yielding to the",
      "event loop, and the queue waits only a microtask before taking a batch, so it catches",
      "calls made in the same tick (concurrent in-process calls) but not HTTP requests, which",
      "reach the model in separate event-loop turns. The gain from 1 to 16 connections is the",
      "overlap of HTTP, JSON and validation work with the client, as for the echo server.",
      "",
    ];
  }
  const shared = pairs.map((p) => `/${p.endpoint} ${(p.one / p.many).toFixed(1)}×`).join(", ");
  return [
    ...lines,
    `In this run one ORT run at 16 connections answered, per run at 1 connection: ${shared}.`,
    "",
  ];
}

/**
 * ORT runs per request of one cell's load on the counted twin (a short run, no warm-up: its
 * throughput is not reported).
 */
async function countRuns(
  origin: string,
  endpoint: Endpoint,
  connections: number,
  bounds: Bounds,
): Promise<number> {
  const runs = async () => (await (await fetch(`${origin}/__runs`)).json()).runs as number;
  const before = await runs();
  const load = await measure(`${origin}/${endpoint}`, BODIES[endpoint], connections, {
    maxRequests: Math.min(1000, bounds.maxRequests),
    maxSeconds: Math.min(2, bounds.maxSeconds),
  }, false);
  return (await runs() - before) / load.requests;
}

async function machine(): Promise<string> {
  const cpu = (await Deno.readTextFile("/proc/cpuinfo").catch(() => ""))
    .match(/model name\s*:\s*(.+)/)?.[1] ?? "unknown CPU";
  return `Deno ${Deno.version.deno}, onnxruntime-web (WASM, 1 thread), ` +
    `${navigator.hardwareConcurrency} cores (${cpu}, shared with other work)`;
}

function option(name: string, fallback: number): number {
  const at = Deno.args.indexOf(name);
  return at === -1 ? fallback : Number(Deno.args[at + 1] ?? fallback);
}

if (import.meta.main) {
  const bounds: Bounds = {
    maxRequests: option("--max-requests", 2000),
    maxSeconds: option("--max-seconds", 5),
  };
  const echo = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen() {} },
    async (request) => Response.json(await request.json()),
  );
  const rows: Row[] = [];
  let exitCode: number;
  try {
    await using serve = await startServerProcess(["run", "-A", "cli.ts", "serve", "--port", "0"]);
    await using counted = await startServerProcess(["run", "-A", "bench/http_serve_counted.ts"]);
    const echoOrigin = `http://127.0.0.1:${echo.addr.port}`;
    for (const endpoint of ENDPOINTS) {
      for (const body of BODIES[endpoint]) {
        const response = await fetch(`${serve.origin}/${endpoint}`, { method: "POST", body });
        const answer = await response.json();
        if (response.status !== 200 || !(ANSWER_KEY[endpoint] in answer)) {
          throw new Error(`/${endpoint} answered ${response.status}: ${JSON.stringify(answer)}`);
        }
      }
    }
    for (const endpoint of ENDPOINTS) {
      for (const connections of CONNECTIONS) {
        const bodies = BODIES[endpoint];
        const served = await measure(`${serve.origin}/${endpoint}`, bodies, connections, bounds);
        const echoed = await measure(`${echoOrigin}/${endpoint}`, bodies, connections, bounds);
        const runsPerRequest = await countRuns(counted.origin, endpoint, connections, bounds);
        rows.push({ endpoint, connections, serve: served, echo: echoed, runsPerRequest });
        console.error(
          `/${endpoint} ×${connections}: ${Math.round(served.requestsPerSecond)} req/s ` +
            `(p50 ${served.p50Ms.toFixed(2)} ms, p99 ${served.p99Ms.toFixed(2)} ms); echo ` +
            `${Math.round(echoed.requestsPerSecond)} req/s; ` +
            `${runsPerRequest.toFixed(2)} ORT runs a request`,
        );
      }
    }
    serve.kill("SIGTERM");
    exitCode = (await serve.finished()).code;
  } finally {
    await echo.shutdown();
  }
  if (exitCode !== 0) throw new Error(`cli.ts serve exited ${exitCode} on SIGTERM`);
  const section = httpSection(rows, await machine(), bounds);
  console.log(section);
  if (!Deno.args.includes("--no-readme")) {
    const current = await Deno.readTextFile(README).catch(() => "# Benchmarks\n");
    await Deno.writeTextFile(README, replaceSection(current, section));
    await new Deno.Command(Deno.execPath(), { args: ["fmt", README.pathname] }).output();
  }
}
