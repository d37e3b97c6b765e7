/**
 * The figures `serving_path.ts` measures, and their report: one markdown table per section and
 * issue 25's goals table (today, goal, this run's figure before and after, met). Pure: no
 * measuring here, so the tables can be printed again from a saved `--json` file
 * (`deno run -A bench/serving_path.ts --report FILE`).
 *
 * @example
 * ```ts
 * import { report } from "./serving_path_report.ts";
 * report({ machine: "m", settings: "s", checkouts: { after: "." } }).startsWith("## serving path"); // true
 * ```
 *
 * @module
 */

import type { ServeFace } from "./serve_faces.ts";
import { FACE_TITLES, NAIVE_PEER } from "./serve_faces.ts";

/** One measured cell (medians over rounds; errors summed). */
export interface Sample {
  readonly requests: number;
  readonly requestsPerSecond: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  /** Socket errors plus answers that were not 2xx or 3xx. */
  readonly errors: number;
  /** The serving thread's CPU time per request, µs, when it was measured. */
  readonly cpuUs?: number | undefined;
}

/** The checkout measured: `after` (the one under work), `before` (`--baseline`). */
export type Side = "after" | "before";

/** A figure for each side measured (`before` only with `--baseline`). */
export interface BySide<T> {
  readonly after: T;
  readonly before?: T | undefined;
}

/** Serving-thread CPU of one endpoint on the example, 16 connections. */
export interface CpuRow {
  readonly endpoint: string;
  readonly echo: Sample;
  /** The naive batching server's (`/forward` only; absent from runs before it was measured). */
  readonly floor?: Sample | undefined;
  readonly sides: BySide<Sample>;
}

/** One face against the naive server on its ONNX Runtime, measured between its two sides. */
export interface NaiveCell {
  readonly naive: Sample;
  readonly sides: BySide<Sample>;
}

/** POST /forward on one net at one connection count, every face against the baselines. */
export interface NaiveRow {
  readonly net: string;
  readonly connections: number;
  readonly echo: Sample;
  readonly faces: Readonly<Partial<Record<ServeFace, NaiveCell>>>;
}

/** What one flood did to one server. */
export interface FloodFigures {
  /** 2xx answers per second. */
  readonly okPerSecond: number;
  readonly peakRssMiB: number;
  readonly healthzP99Ms: number;
  readonly healthzMaxMs: number;
  /** The slowest answer of `/healthz`, `/readyz` and `/metrics`. */
  readonly probeMaxMs: number;
  readonly probeFailures: number;
  /** Answers by status (`closed`, `timeout`: no answer). */
  readonly statuses: Readonly<Record<string, number>>;
  /** Whether the server was still running after the flood. */
  readonly alive: boolean;
}

/** One flood scenario of `bench/flood_bench.ts`, each side flooded once. */
export interface FloodRow {
  readonly scenario: string;
  readonly connections: number;
  readonly seconds: number;
  readonly sides: BySide<FloodFigures>;
}

/** `serve --runtime native` against `serve` (WASM) on the 500-place net, 16 connections. */
export interface Native500Row {
  readonly endpoint: string;
  readonly sides: BySide<{ readonly wasm: Sample; readonly native: Sample }>;
}

/** `/v2` infer of the example with requests of `rowsPerRequest` rows. */
export interface V2RowsRow {
  readonly connections: number;
  readonly rowsPerRequest: number;
  readonly sides: BySide<Sample>;
}

/** Everything one run measured. */
export interface Results {
  /** Machine, runtimes and load averages, one sentence. */
  readonly machine: string;
  /** Windows, rounds and flags, one sentence. */
  readonly settings: string;
  /** The checkouts, as given, with their commits. */
  readonly checkouts: BySide<string>;
  /** The 1-minute load average at the start of each section measured, and at the end. */
  readonly loads?: Readonly<Record<string, number>>;
  /** The machine's cores (a load average above them means other work competed). */
  readonly cores?: number;
  readonly cpu?: readonly CpuRow[];
  readonly naive?: readonly NaiveRow[];
  readonly floods?: readonly FloodRow[];
  readonly native500?: readonly Native500Row[];
  readonly v2rows?: readonly V2RowsRow[];
}

/**
 * The median of each figure of `samples` (not empty); errors summed.
 *
 * @example
 * ```ts
 * import { medianSample } from "./serving_path_report.ts";
 * const s = { requests: 1, requestsPerSecond: 10, p50Ms: 1, p99Ms: 2, errors: 1 };
 * medianSample([s, { ...s, requestsPerSecond: 30 }, s]).requestsPerSecond; // 10
 * ```
 */
export function medianSample(samples: readonly Sample[]): Sample {
  const mid = (pick: (s: Sample) => number) => {
    const sorted = samples.map(pick).sort((a, b) => a - b);
    const n = sorted.length;
    return n % 2 ? sorted[(n - 1) / 2]! : (sorted[n / 2 - 1]! + sorted[n / 2]!) / 2;
  };
  const cpu = samples.every((s) => s.cpuUs !== undefined) ? mid((s) => s.cpuUs!) : undefined;
  return {
    requests: mid((s) => s.requests),
    requestsPerSecond: mid((s) => s.requestsPerSecond),
    p50Ms: mid((s) => s.p50Ms),
    p99Ms: mid((s) => s.p99Ms),
    errors: samples.reduce((n, s) => n + s.errors, 0),
    ...(cpu === undefined ? {} : { cpuUs: cpu }),
  };
}

const rate = (value: number) => Math.round(value).toLocaleString("en-US");
const ms = (value: number) => value.toFixed(2);
const x = (value: number) => `${value.toFixed(2)}×`;
const us = (value: number | undefined) => (value === undefined ? "—" : value.toFixed(1));
const warn = (s: Sample | undefined) => (s && s.errors > 0 ? ` (**${s.errors} errors**)` : "");
const speed = (s: Sample | undefined) =>
  s === undefined ? "—" : `${rate(s.requestsPerSecond)}${warn(s)}`;
const latency = (s: Sample | undefined) =>
  s === undefined ? "—" : `${ms(s.p50Ms)} / ${ms(s.p99Ms)}`;
const ratio = (a: number | undefined, b: number | undefined) =>
  a === undefined || b === undefined || b === 0 ? "—" : x(a / b);
const rps = (s: Sample | undefined) => s?.requestsPerSecond;

function table(head: readonly string[], rows: readonly (readonly string[])[], left = 1): string {
  return [
    `| ${head.join(" | ")} |`,
    `| ${head.map((_, i) => (i < left ? "---" : "---:")).join(" | ")} |`,
    ...rows.map((row) => `| ${row.join(" | ")} |`),
  ].join("\n");
}

/** The sides present in `results`: `before` first when it was measured. */
function sidesOf(results: Results): Side[] {
  return results.checkouts.before === undefined ? ["after"] : ["before", "after"];
}

function cpuTable(rows: readonly CpuRow[], sides: readonly Side[]): string {
  const both = sides.length === 2;
  return table(
    [
      "endpoint",
      "echo µs / req",
      "floor µs / req",
      ...sides.flatMap((side) => [`${side} µs / req`, "× echo"]),
      "after × floor",
      ...(both ? ["after ÷ before"] : []),
      "echo req/s",
      ...sides.map((side) => `${side} req/s`),
    ],
    rows.map((r) => [
      r.endpoint === "v2" ? "POST /v2 infer (1 row)" : `POST /${r.endpoint}`,
      us(r.echo.cpuUs),
      us(r.floor?.cpuUs),
      ...sides.flatMap((side) => {
        const s = r.sides[side];
        return [us(s?.cpuUs), ratio(s?.cpuUs, r.echo.cpuUs)];
      }),
      ratio(r.sides.after.cpuUs, r.floor?.cpuUs),
      ...(both ? [ratio(r.sides.after.cpuUs, r.sides.before?.cpuUs)] : []),
      speed(r.echo),
      ...sides.map((side) => speed(r.sides[side])),
    ]),
  );
}

function naiveTable(rows: readonly NaiveRow[], sides: readonly Side[]): string {
  const both = sides.length === 2;
  const lines: string[][] = [];
  for (const r of rows) {
    for (const [face, cell] of Object.entries(r.faces) as [ServeFace, NaiveCell][]) {
      const peer = cell.naive;
      lines.push([
        r.net,
        String(r.connections),
        FACE_TITLES[face],
        `${FACE_TITLES[NAIVE_PEER[face]]} ${speed(peer)}`,
        latency(peer),
        ...sides.flatMap((side) => {
          const s = cell.sides[side];
          return [speed(s), latency(s), ratio(rps(s), rps(peer)), ratio(peer.p50Ms, s?.p50Ms)];
        }),
        ...(both ? [ratio(rps(cell.sides.after), rps(cell.sides.before))] : []),
        speed(r.echo),
      ]);
    }
  }
  return table(
    [
      "net",
      "conns",
      "face",
      "naive req/s",
      "naive p50 / p99 ms",
      ...sides.flatMap((side) => [
        `${side} req/s`,
        "p50 / p99 ms",
        "× naive req/s",
        "naive p50 ÷ p50",
      ]),
      ...(both ? ["after ÷ before"] : []),
      "echo req/s",
    ],
    lines,
    3,
  );
}

/** /forward at 16 connections on the example against the echo: every face of the run. */
function echoLines(results: Results, sides: readonly Side[]): string[][] {
  const lines: string[][] = [];
  const forward = results.cpu?.find((r) => r.endpoint === "forward");
  if (forward) {
    lines.push([
      "serve (CPU cells)",
      speed(forward.echo),
      ...sides.flatMap((side) => {
        const s = forward.sides[side];
        return [speed(s), ratio(rps(s), rps(forward.echo))];
      }),
    ]);
    // The floor is one server, whichever checkout: its figure goes in the last side's columns.
    if (forward.floor) {
      lines.push([
        "the floor: `naive_batching_server.ts` (CPU cells)",
        speed(forward.echo),
        ...sides.flatMap((side) =>
          side === sides.at(-1)
            ? [speed(forward.floor), ratio(rps(forward.floor), rps(forward.echo))]
            : ["", ""]
        ),
      ]);
    }
  }
  const row = results.naive?.find((r) => r.net === "example" && r.connections === 16);
  if (row) {
    for (const [face, cell] of Object.entries(row.faces) as [ServeFace, NaiveCell][]) {
      lines.push([
        FACE_TITLES[face],
        speed(row.echo),
        ...sides.flatMap((side) => {
          const s = cell.sides[side];
          return [speed(s), ratio(rps(s), rps(row.echo))];
        }),
      ]);
    }
  }
  return lines;
}

function floodTable(rows: readonly FloodRow[], sides: readonly Side[]): string {
  const seconds = (value: number) => (value / 1000).toFixed(2);
  return table(
    [
      "flood",
      "side",
      "200/s",
      "peak RSS",
      "/healthz p99 / max s",
      "slowest probe s",
      "answers",
      "process",
    ],
    rows.flatMap((r) =>
      sides.flatMap((side) => {
        const f = r.sides[side];
        if (f === undefined) return [];
        const answers = Object.entries(f.statuses).map(([status, n]) => `${rate(n)} × ${status}`)
          .join(", ");
        return [[
          `${r.connections} × ${r.scenario.replace(/\d+$/, "")}, ${r.seconds} s`,
          side,
          f.okPerSecond.toFixed(1),
          `${rate(f.peakRssMiB)} MiB`,
          `${seconds(f.healthzP99Ms)} / ${seconds(f.healthzMaxMs)}`,
          seconds(f.probeMaxMs) + (f.probeFailures ? ` (${f.probeFailures} failed)` : ""),
          answers || "–",
          f.alive ? "alive" : "**died**",
        ]];
      })
    ),
    2,
  );
}

function nativeTable(rows: readonly Native500Row[], sides: readonly Side[]): string {
  return table(
    [
      "endpoint",
      "side",
      "WASM req/s",
      "WASM p50 / p99 ms",
      "native req/s",
      "native p50 / p99 ms",
      "native ÷ WASM",
    ],
    rows.flatMap((r) =>
      sides.flatMap((side) => {
        const s = r.sides[side];
        return s === undefined ? [] : [[
          `POST /${r.endpoint}`,
          side,
          speed(s.wasm),
          latency(s.wasm),
          speed(s.native),
          latency(s.native),
          ratio(rps(s.native), rps(s.wasm)),
        ]];
      })
    ),
    2,
  );
}

function v2Table(rows: readonly V2RowsRow[], sides: readonly Side[]): string {
  const both = sides.length === 2;
  return table(
    [
      "conns",
      ...sides.flatMap((side) => [`${side} rows/s`, "req/s", "p50 / p99 ms"]),
      ...(both ? ["after ÷ before"] : []),
    ],
    rows.map((r) => [
      String(r.connections),
      ...sides.flatMap((side) => {
        const s = r.sides[side];
        return [
          s ? rate(s.requestsPerSecond * r.rowsPerRequest) : "—",
          speed(s),
          latency(s),
        ];
      }),
      ...(both ? [ratio(rps(r.sides.after), rps(r.sides.before))] : []),
    ]),
  );
}

/** One line of the goals table: the figure per side, and whether it meets the goal. */
interface Goal {
  readonly figure: string;
  readonly today: string;
  readonly goal: string;
  readonly value: (side: Side) => { readonly text: string; readonly met?: boolean } | undefined;
}

/** Issue 25's goals, as its table states them ("today" is its measurement on main). */
function goalList(results: Results): Goal[] {
  const goals: Goal[] = [];
  const forwardCpu = results.cpu?.find((r) => r.endpoint === "forward");
  if (forwardCpu) {
    goals.push({
      figure: "serving-thread CPU per POST /forward, example, 16 conns, against the echo's",
      today: "92.7 µs against 14.3 µs = 6.5×",
      goal: "≤ 3×",
      value: (side) => {
        const s = forwardCpu.sides[side];
        if (s?.cpuUs === undefined || forwardCpu.echo.cpuUs === undefined) return undefined;
        const times = s.cpuUs / forwardCpu.echo.cpuUs;
        return {
          text: `${us(s.cpuUs)} against ${us(forwardCpu.echo.cpuUs)} µs = ${x(times)}`,
          met: times <= 3,
        };
      },
    });
  }
  const naive = results.naive ?? [];
  const today: Record<string, string> = {
    "serve example": "0.46× / 1.29×",
    "serve 60 places": "0.77× / 1.91× (59 places)",
    "native example": "0.42× / 1.08×",
    "native 60 places": "0.64× / 1.41× (59 places)",
  };
  for (const face of ["serve", "native"] as const) {
    for (const net of new Set(naive.map((r) => r.net))) {
      const one = naive.find((r) => r.net === net && r.connections === 1);
      const sixteen = naive.find((r) => r.net === net && r.connections === 16);
      if (!one?.faces[face] && !sixteen?.faces[face]) continue;
      goals.push({
        figure: `${FACE_TITLES[face]} against ${FACE_TITLES[NAIVE_PEER[face]]}, ${net}, 1 / 16 ` +
          "conns",
        today: today[`${face} ${net}`] ?? "—",
        goal: "≥ 1.0× (req/s and p50) / ≥ 2×",
        value: (side) => {
          const a = one?.faces[face];
          const b = sixteen?.faces[face];
          const [sa, sb] = [a?.sides[side], b?.sides[side]];
          if (sa === undefined && sb === undefined) return undefined;
          const speedOne = sa && sa.requestsPerSecond / a!.naive.requestsPerSecond;
          const p50One = sa && a!.naive.p50Ms / sa.p50Ms;
          const speed16 = sb && sb.requestsPerSecond / b!.naive.requestsPerSecond;
          const text = `${speedOne === undefined ? "—" : x(speedOne)} (p50 ${
            p50One === undefined ? "—" : x(p50One)
          }) / ${speed16 === undefined ? "—" : x(speed16)}`;
          const complete = speedOne !== undefined && p50One !== undefined &&
            speed16 !== undefined;
          return complete ? { text, met: speedOne >= 1 && p50One >= 1 && speed16 >= 2 } : { text };
        },
      });
    }
  }
  const echoRow = naive.find((r) => r.net === "example" && r.connections === 16);
  if (forwardCpu || echoRow?.faces.serve) {
    goals.push({
      figure: "/forward against the echo, example, 16 conns (serve)",
      today: "0.17× (12.1k against 72.4k req/s)",
      goal: "≥ 0.3×",
      value: (side) => {
        const [s, echo] = forwardCpu
          ? [forwardCpu.sides[side], forwardCpu.echo]
          : [echoRow?.faces.serve?.sides[side], echoRow?.echo];
        if (s === undefined || echo === undefined) return undefined;
        const times = s.requestsPerSecond / echo.requestsPerSecond;
        return {
          text: `${x(times)} (${rate(s.requestsPerSecond)} against ${
            rate(echo.requestsPerSecond)
          } req/s)`,
          met: times >= 0.3,
        };
      },
    });
  }
  for (const flood of results.floods ?? []) {
    goals.push({
      figure: `flood: ${flood.connections} × ${flood.scenario.replace(/\d+$/, "")}, ` +
        `${flood.seconds} s, default flags`,
      today: flood.scenario.startsWith("infer")
        ? "peak RSS 2.2 GiB, /healthz up to 4.2 s (30 s)"
        : "peak RSS 2.2 GiB (30 s)",
      goal: "RSS ≤ 2 GiB, probes < 1 s",
      value: (side) => {
        const f = flood.sides[side];
        if (f === undefined) return undefined;
        return {
          text: `${rate(f.peakRssMiB)} MiB, /healthz max ${(f.healthzMaxMs / 1000).toFixed(2)} s ` +
            `(p99 ${(f.healthzP99Ms / 1000).toFixed(2)} s), slowest probe ${
              (f.probeMaxMs / 1000).toFixed(2)
            } s${f.alive ? "" : ", **died**"}`,
          met: f.alive && f.peakRssMiB <= 2048 && f.probeMaxMs < 1000 && f.probeFailures === 0,
        };
      },
    });
  }
  const todayNative: Record<string, string> = { forward: "1.21×", sensitivity: "1.26×" };
  for (const row of results.native500 ?? []) {
    goals.push({
      figure: `serve native against serve (WASM), 500 places, 16 conns, /${row.endpoint}`,
      today: todayNative[row.endpoint] ?? "—",
      goal: "≥ 2×",
      value: (side) => {
        const s = row.sides[side];
        if (s === undefined) return undefined;
        const times = s.native.requestsPerSecond / s.wasm.requestsPerSecond;
        return { text: x(times), met: times >= 2 };
      },
    });
  }
  for (const row of results.v2rows ?? []) {
    goals.push({
      figure: `/v2 infer rows/s, ${rate(row.rowsPerRequest)}-row requests, ${row.connections} ` +
        `conn${row.connections === 1 ? "" : "s"}`,
      today: "—",
      goal: "before and after",
      value: (side) => {
        const s = row.sides[side];
        return s && { text: rate(s.requestsPerSecond * row.rowsPerRequest) };
      },
    });
  }
  return goals;
}

/**
 * Issue 25's goals table for `results`: today (the issue's figure), goal, each side's figure in
 * this run, and whether the `after` side meets it.
 *
 * @example
 * ```ts
 * import { goalsTable } from "./serving_path_report.ts";
 * goalsTable({ machine: "m", settings: "s", checkouts: { after: "." } }).startsWith("| figure"); // true
 * ```
 */
export function goalsTable(results: Results): string {
  const sides = sidesOf(results);
  return table(
    ["figure", "today (issue 25)", "goal", ...sides, "met (after)"],
    goalList(results).map((goal) => {
      const after = goal.value("after");
      const met = after?.met === undefined ? "—" : after.met ? "met" : "**not met**";
      return [
        goal.figure,
        goal.today,
        goal.goal,
        ...sides.map((side) => goal.value(side)?.text ?? "—"),
        met,
      ];
    }),
    3 + sides.length + 1,
  );
}

/**
 * The whole report: a `## serving path` heading, the run's settings, a table per measured
 * section and the goals table.
 *
 * @example
 * ```ts
 * import { report } from "./serving_path_report.ts";
 * report({ machine: "m", settings: "s", checkouts: { after: "." } }).includes("### goals"); // true
 * ```
 */
export function report(results: Results): string {
  const sides = sidesOf(results);
  const parts = [
    "## serving path",
    "",
    `Machine: ${results.machine}`,
    "",
    `Run: ${results.settings}`,
    "",
    `Checkouts: after = ${results.checkouts.after}` +
    (results.checkouts.before === undefined ? "" : `; before = ${results.checkouts.before}`),
  ];
  const loads = Object.entries(results.loads ?? {});
  if (loads.length) {
    parts.push(
      "",
      `Load average (1 min) at the start of each section: ${
        loads.map(([name, load]) => `${name} ${load.toFixed(2)}`).join(", ")
      }.` + (loads.some(([, load]) =>
          load > (results.cores ?? Infinity)
        )
        ? ` **Above the ${results.cores} cores: other work competed, figures are not ` +
          "comparable with a quiet machine's.**"
        : ""),
    );
  }
  const section = (title: string, text: string) => parts.push("", `### ${title}`, "", text);
  if (results.cpu?.length) {
    section(
      "serving-thread CPU per request (example, 16 connections, `serve`)",
      cpuTable(results.cpu, sides),
    );
  }
  if (results.naive?.length) {
    section("against the naive server (POST /forward)", naiveTable(results.naive, sides));
  }
  const echo = echoLines(results, sides);
  if (echo.length) {
    section(
      "/forward against the echo (example, 16 connections)",
      table(
        [
          "face",
          "echo req/s",
          ...sides.flatMap((side) => [`${side} req/s`, "× echo"]),
        ],
        echo,
      ),
    );
  }
  if (results.floods?.length) {
    section("floods of ~0.9 MB bodies (default flags)", floodTable(results.floods, sides));
  }
  if (results.native500?.length) {
    section(
      "`--runtime native` against WASM (500 places, 16 connections)",
      nativeTable(results.native500, sides),
    );
  }
  if (results.v2rows?.length) {
    section(
      `/v2 infer of ${rate(results.v2rows[0]!.rowsPerRequest)}-row requests (example)`,
      v2Table(results.v2rows, sides),
    );
  }
  section("goals of issue 25", goalsTable(results));
  return parts.join("\n");
}
