/**
 * The floods of issue 16 against `cli.ts serve` with default flags, from this checkout or
 * another one (say, the commit before admission control), one server process per run, all on
 * 127.0.0.1: `tests/serve/flood.ts` sends the load, times every answer, probes `/healthz`,
 * `/readyz` and `/metrics` every 250 ms and reads the server's peak RSS; the server's shed
 * counters come from `/metrics` at the end. Prints one JSON line per run.
 *
 * Not a `deno bench` file: run it as
 * `deno run -A bench/flood_bench.ts [--scenario infer256,anomaly512,anomaly2000,cf2000]
 * [--seconds 20] [--checkout DIR] [--label after] [-- EXTRA SERVE FLAGS]`.
 *
 * | scenario | load |
 * |---|---|
 * | `infer256` | 256 connections × 0.84 MB `/v2/models/credit_approval_coloured/infer` (60,000 rows) |
 * | `anomaly512` | 512 connections × 0.93 MB `/anomaly` (17,500 events) |
 * | `anomaly2000` | 2,000 connections × the same |
 * | `cf2000` | 2,000 connections × wide-range `/counterfactual` (about 160 rows each) |
 *
 * @example
 * ```ts
 * import { SCENARIOS } from "./flood_bench.ts";
 * SCENARIOS.infer256!.connections; // 256
 * ```
 *
 * @module
 */

import { parseArgs } from "node:util";
import { startServerProcess } from "../tests/serve/server_process.ts";
import { flood, type FloodReport } from "../tests/serve/flood.ts";
import { anomalyBody, inferBody, wideCounterfactualBody } from "../tests/serve/flood_bodies.ts";

/** One flood: where, what, how many connections. */
export interface Scenario {
  readonly path: string;
  readonly body: () => string;
  readonly connections: number;
}

/** The floods of issue 16's table. */
export const SCENARIOS: Readonly<Record<string, Scenario>> = {
  infer256: {
    path: "/v2/models/credit_approval_coloured/infer",
    body: () => inferBody(60_000),
    connections: 256,
  },
  anomaly512: { path: "/anomaly", body: () => anomalyBody(17_500), connections: 512 },
  anomaly2000: { path: "/anomaly", body: () => anomalyBody(17_500), connections: 2000 },
  cf2000: { path: "/counterfactual", body: wideCounterfactualBody, connections: 2000 },
};

/** One run's results, as printed. */
export interface FloodRun {
  readonly label: string;
  readonly scenario: string;
  readonly seconds: number;
  readonly report: FloodReport;
  /** The server's `petri_serve_requests_shed_total` by reason, at the end (after only). */
  readonly shed: Record<string, number>;
  /** The server's exit: code, or `"died"` when it ended during the flood. */
  readonly exit: number | "died";
  /** The last line of the server's stderr, when it died. */
  readonly lastError: string;
  /** `uptime`'s load averages when the run started. */
  readonly loadAverage: string;
}

/** Runs `scenario` once against a fresh `cli.ts serve` from `checkout`. */
export async function runFlood(
  name: string,
  checkout: string,
  label: string,
  seconds: number,
  extraFlags: readonly string[],
): Promise<FloodRun> {
  const scenario = SCENARIOS[name];
  if (scenario === undefined) throw new Error(`Unknown scenario ${name}`);
  const loadAverage = (await Deno.readTextFile("/proc/loadavg")).split(" ").slice(0, 3).join(" ");
  await using server = await startServerProcess(
    ["run", "-A", "cli.ts", "serve", "--port", "0", ...extraFlags],
    { cwd: checkout },
  );
  const port = Number(new URL(server.origin).port);
  const report = await flood({
    port,
    path: scenario.path,
    body: scenario.body(),
    connections: scenario.connections,
    seconds,
    pid: server.pid,
  });
  const shed: Record<string, number> = {};
  let exit: number | "died" = "died";
  let lastError = "";
  if (!server.exited) {
    try {
      const text = await (await fetch(`${server.origin}/metrics`)).text();
      for (
        const match of text.matchAll(/petri_serve_requests_shed_total\{reason="(\w+)"\} (\d+)/g)
      ) {
        shed[match[1]!] = Number(match[2]);
      }
    } catch {
      // the server died after the flood
    }
    server.kill("SIGTERM");
    exit = (await server.finished()).code;
  } else {
    const finished = await server.finished();
    lastError = finished.stderr.trim().split("\n").filter((l) => l.trim()).slice(-3).join(" | ");
  }
  return { label, scenario: name, seconds, report, shed, exit, lastError, loadAverage };
}

if (import.meta.main) {
  const { values, positionals } = parseArgs({
    args: Deno.args,
    options: {
      scenario: { type: "string", default: Object.keys(SCENARIOS).join(",") },
      seconds: { type: "string", default: "20" },
      checkout: { type: "string", default: new URL("..", import.meta.url).pathname },
      label: { type: "string", default: "after" },
    },
    allowPositionals: true,
  });
  for (const name of values.scenario.split(",")) {
    const run = await runFlood(
      name,
      values.checkout,
      values.label,
      Number(values.seconds),
      positionals,
    );
    console.log(
      JSON.stringify(run, (_, value) => value instanceof Map ? Object.fromEntries(value) : value),
    );
  }
}
