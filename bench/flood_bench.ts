/**
 * The floods of issue 16 against `cli.ts serve` with default flags, from this checkout or
 * another one (say, the commit before admission control), one server process per run, all on
 * 127.0.0.1: `tests/cli/serve/flood.ts` sends the load, times every answer, probes `/healthz`,
 * `/readyz` and `/metrics` every 250 ms and reads the server's peak RSS; the server's shed
 * counters come from `/metrics` at the end. Prints one JSON line per run.
 *
 * Not a `deno bench` file: run it as
 * `deno run -A bench/flood_bench.ts [--scenario infer256,anomaly512,anomaly2000,cf2000]
 * [--seconds 20] [--checkout DIR|echo] [--label after] [-- EXTRA SERVE FLAGS] >> runs.jsonl`,
 * then `deno run -A bench/flood_bench.ts --table runs.jsonl` prints the table of
 * bench/README.md. `--checkout echo` floods `bench/http_echo.ts` (a bare `Deno.serve` that
 * parses and echoes each body, no model, no admission control): the baseline of the same run.
 * `--drain MS` measures the drain under load instead: `SIGTERM` 4 s into a flood of 256 ×
 * `/anomaly`, with `--drain-ms MS` and the access log on; it prints the exit time and the
 * statuses the server logged and the client saw.
 *
 * | scenario | load |
 * |---|---|
 * | `infer256` | 256 connections × 0.84 MB `/v2/models/credit_approval_coloured/infer` (60,000 rows) |
 * | `anomaly512` | 512 connections × 0.93 MB `/anomaly` (17,500 events) |
 * | `anomaly2000` | 2,000 connections × the same |
 * | `cf2000` | 2,000 connections × wide-range `/counterfactual` (about 160 rows each) |
 * | `anomaly512polite`, `cf2000polite` | the same, but clients wait `Retry-After` after a 503 |
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
import { startServerProcess } from "../tests/cli/serve/server_process.ts";
import { flood, type FloodReport } from "../tests/cli/serve/flood.ts";
import { anomalyBody, inferBody, wideCounterfactualBody } from "../tests/cli/serve/flood_bodies.ts";

/** One flood: where, what, how many connections. */
export interface Scenario {
  readonly path: string;
  readonly body: () => string;
  readonly connections: number;
  /** Clients wait `Retry-After` after a 503, instead of retrying at once as `wrk` does. */
  readonly polite?: boolean;
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
  anomaly512polite: {
    path: "/anomaly",
    body: () => anomalyBody(17_500),
    connections: 512,
    polite: true,
  },
  cf2000polite: {
    path: "/counterfactual",
    body: wideCounterfactualBody,
    connections: 2000,
    polite: true,
  },
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
  await using server = checkout === "echo"
    ? await startServerProcess(["run", "-A", "bench/http_echo.ts"])
    : await startServerProcess(
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
    honorRetryAfter: scenario.polite ?? false,
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

/** What {@link runDrain} measured. */
export interface DrainRun {
  readonly checkout: string;
  readonly drainMs: number;
  /** From SIGTERM to the process's exit. */
  readonly exitMs: number;
  readonly code: number;
  /** `POST /anomaly` answers in the access log, by status. */
  readonly logged: Record<string, number>;
  /** What the client saw, by status (`closed`: no answer). */
  readonly statuses: Record<string, number>;
}

/**
 * SIGTERM 4 s into a flood of 256 × `/anomaly` against `cli.ts serve --drain-ms drainMs` from
 * `checkout`.
 */
export async function runDrain(checkout: string, drainMs: number): Promise<DrainRun> {
  await using server = await startServerProcess(
    ["run", "-A", "cli.ts", "serve", "--port", "0", "--drain-ms", String(drainMs)],
    { cwd: checkout, stdout: true },
  );
  const flooding = flood({
    port: Number(new URL(server.origin).port),
    path: "/anomaly",
    body: anomalyBody(17_500),
    connections: 256,
    seconds: drainMs / 1000 + 8,
    tailMs: 5_000,
  });
  await new Promise((resolve) => setTimeout(resolve, 4_000));
  const signalled = performance.now();
  server.kill("SIGTERM");
  const exit = await server.finished();
  const exitMs = Math.round(performance.now() - signalled);
  const report = await flooding;
  const logged: Record<string, number> = {};
  for (const [, status] of exit.stdout.matchAll(/ POST \/anomaly (\d{3}) /g)) {
    logged[status!] = (logged[status!] ?? 0) + 1;
  }
  const statuses = Object.fromEntries(report.statuses);
  return { checkout, drainMs, exitMs, code: exit.code, logged, statuses };
}

/** A run as printed: maps became objects. */
type PrintedRun = Omit<FloodRun, "report"> & {
  readonly report: Omit<FloodReport, "statuses" | "probes"> & {
    readonly statuses: Record<string, number>;
    readonly probes: Record<string, { p50: number; max: number; failures: number }>;
  };
};

/**
 * The markdown table of printed runs (one JSON line each), in their order.
 *
 * @example
 * ```ts
 * import { floodTable } from "./flood_bench.ts";
 * floodTable([]).startsWith("| flood |"); // true
 * ```
 */
export function floodTable(runs: readonly PrintedRun[]): string {
  const seconds = (ms: number) => Number.isNaN(ms) ? "–" : (ms / 1000).toFixed(2);
  const rows = runs.map((run) => {
    const { report } = run;
    const count = (status: string) => report.statuses[status] ?? 0;
    const others = Object.entries(report.statuses)
      .filter(([status]) => !["200", "503", "429"].includes(status))
      .map(([status, n]) => `${n} × ${status}`).join(", ") || "–";
    const probes = Object.values(report.probes);
    const probeP50 = Math.max(...probes.map((p) => p.p50));
    const probeMax = Math.max(...probes.map((p) => p.max));
    const failures = probes.reduce((n, p) => n + p.failures, 0);
    const shed = Object.entries(run.shed).map(([reason, n]) => `${n} ${reason}`).join(", ");
    const scenario = SCENARIOS[run.scenario]!;
    return [
      `${scenario.connections} × ${run.scenario.replace(/\d+(polite)?$/, "")}${
        scenario.polite ? ", clients wait Retry-After" : ""
      }`,
      run.label,
      report.okPerSecond.toFixed(1),
      `${seconds(report.ok.p50)} / ${seconds(report.ok.p99)}`,
      String(count("503") + count("429")),
      others,
      shed || "–",
      `${Math.round(report.peakRssBytes / 2 ** 20)} MiB`,
      `${seconds(probeP50)} / ${seconds(probeMax)}${failures ? ` (${failures} failed)` : ""}`,
      run.exit === "died" ? `**died** (${run.lastError.slice(0, 60)})` : "alive",
      run.loadAverage.split(" ")[0]!,
    ];
  });
  const head = [
    "flood",
    "server",
    "200/s",
    "200 p50 / p99 s",
    "503 + 429",
    "other outcomes",
    "shed by reason (server)",
    "peak RSS",
    "probe p50 / max s",
    "process",
    "load",
  ];
  return [head, head.map(() => "---"), ...rows].map((row) => `| ${row.join(" | ")} |`).join(
    "\n",
  );
}

if (import.meta.main) {
  const { values, positionals } = parseArgs({
    args: Deno.args,
    options: {
      scenario: { type: "string", default: Object.keys(SCENARIOS).join(",") },
      seconds: { type: "string", default: "20" },
      checkout: { type: "string", default: new URL("..", import.meta.url).pathname },
      label: { type: "string", default: "after" },
      table: { type: "string" },
      drain: { type: "string" },
    },
    allowPositionals: true,
  });
  if (values.drain !== undefined) {
    console.log(JSON.stringify(await runDrain(values.checkout, Number(values.drain))));
    Deno.exit(0);
  }
  if (values.table !== undefined) {
    const lines = (await Deno.readTextFile(values.table)).split("\n").filter((l) =>
      l.startsWith("{")
    );
    console.log(floodTable(lines.map((line) => JSON.parse(line))));
    Deno.exit(0);
  }
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
