/**
 * HTTP throughput and latency of `cli.ts serve` and of `deno serve --parallel server/main.ts`
 * against a bare `Deno.serve` JSON echo (`http_echo.ts`) measured in the same run, with `wrk`
 * (`wrk.ts`) as the load generator. Every server runs in its own process on 127.0.0.1. Each
 * cell: the four POST operations, at 1 and 16 connections, on the credit-approval example and
 * on a 60-place layered net (`layered_net.ts`); a 1 s warm-up, then a bounded measured run.
 * Rows per ORT run come from a short extra run of the same load against
 * `http_serve_counted.ts` (`cli.ts serve`'s twin that counts runs). The table replaces the
 * `## http` section of `bench/README.md`.
 *
 * Not a `deno bench` file: run it as
 * `deno run -A bench/http_load.ts [--seconds 3] [--no-readme] [--base DIR] [--nets example,60]
 * [--endpoints forward,counterfactual] [--conns 1,16] [--faces serve,inProcess,parallel]`.
 * `--base DIR` adds `cli.ts serve` run from another checkout (say, of `main`) as a column, for
 * before/after ratios in one run; the other options measure a subset (all by default), and a
 * subset is never written to the README.
 *
 * @example
 * ```ts
 * import { httpSection } from "./http_load.ts";
 * httpSection([], "machine", 3).startsWith("## http"); // true
 * ```
 *
 * @module
 */

import { compileBundle } from "../core/bundle.ts";
import type { PetriModel } from "../core/net/types.ts";
import { EXAMPLE_BUNDLE_URL, writeBundle } from "../adapter/deno/bundle_files.ts";
import { startServerProcess } from "../tests/serve/server_process.ts";
import { replaceSection } from "./batch_rss.ts";
import { layeredModel } from "./layered_net.ts";
import { runWrk, type WrkResult } from "./wrk.ts";

const README = new URL("README.md", import.meta.url);

/** The measured endpoints. */
export const ENDPOINTS = ["forward", "anomaly", "counterfactual", "sensitivity"] as const;
/** One of {@link ENDPOINTS}. */
export type Endpoint = typeof ENDPOINTS[number];

/** The connection counts of each cell. */
export const CONNECTIONS = [1, 16] as const;

/** Request bodies per endpoint. */
export type Bodies = Readonly<Record<Endpoint, readonly string[]>>;

const AMOUNTS = [300, 800, 1500, 2500, 4000, 6000, 8000, 9500];

/**
 * Request bodies for the credit-approval example: loan amounts across the range, so the
 * firing decisions differ from request to request.
 *
 * @example
 * ```ts
 * import { EXAMPLE_BODIES } from "./http_load.ts";
 * JSON.parse(EXAMPLE_BODIES.forward[0]!).input_values; // { p_submitted: 300 }
 * ```
 */
export const EXAMPLE_BODIES: Bodies = {
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

/**
 * Bodies for a layered net: its first-layer (source) places supplied with eight different
 * markings; events, targets and the flipped place picked from the net.
 */
export function layeredBodies(model: PetriModel): Bodies {
  const sources = [...model.net.initialMarking.keys()];
  const transitions = model.net.transitions;
  const markings = Array.from(
    { length: 8 },
    (_, i) => Object.fromEntries(sources.map((p, k) => [p, ((i * 7 + k * 3) % 10) / 10])),
  );
  const last = (i: number) => transitions[transitions.length - 1 - (i % 5)]!;
  return {
    forward: markings.map((input_marking) => JSON.stringify({ input_marking })),
    anomaly: markings.map((input_marking, i) =>
      JSON.stringify({
        input_marking,
        events: [{ name: transitions[i]! }, { name: last(i) }],
      })
    ),
    counterfactual: markings.map((input_marking, i) =>
      JSON.stringify({
        input_marking,
        flip_place: sources[i % sources.length]!,
        target_transition: last(i),
        flip_channel: "marking",
        search_range: [0, 1],
      })
    ),
    sensitivity: markings.map((input_marking, i) =>
      JSON.stringify({ input_marking, target_transition: last(i) })
    ),
  };
}

/** A key each endpoint's answer must have (checked once before measuring). */
const ANSWER_KEY: Readonly<Record<Endpoint, string>> = {
  forward: "transition_activations",
  anomaly: "trace_score",
  counterfactual: "found",
  sensitivity: "value_gradients",
};

/** The measured servers besides the echo. */
export const FACES = ["serve", "base", "inProcess", "parallel"] as const;
/** One of {@link FACES}: `cli.ts serve`; the same from the `--base` checkout; with `--ort-in-process`; `deno serve --parallel`. */
export type Face = typeof FACES[number];

const FACE_TITLES: Readonly<Record<Face, string>> = {
  serve: "serve",
  base: "serve at base",
  inProcess: "--ort-in-process",
  parallel: "--parallel",
};

/** One row of the table: an endpoint at a connection count on one net. */
export interface Row {
  readonly net: string;
  readonly endpoint: Endpoint;
  readonly connections: number;
  readonly echo: WrkResult;
  /** The faces measured (`serve` always). */
  readonly faces: Readonly<Partial<Record<Face, WrkResult>>> & { readonly serve: WrkResult };
  /** Rows per ORT run on `serve`'s counted twin under the same load. */
  readonly rowsPerRun: number;
  /** Requests per ORT run on the twin. */
  readonly requestsPerRun: number;
}

/**
 * The markdown of the `## http` section for `rows`.
 *
 * @example
 * ```ts
 * import { httpSection } from "./http_load.ts";
 * httpSection([], "machine", 3).includes("| net |"); // true
 * ```
 */
export function httpSection(
  rows: readonly Row[],
  machine: string,
  seconds: number,
  base = "",
): string {
  const ms = (value: number) => value.toFixed(2);
  const rate = (value: number) => Math.round(value).toLocaleString("en-US");
  const ratio = (a: WrkResult, b: WrkResult) =>
    (a.requestsPerSecond / b.requestsPerSecond).toFixed(2);
  const faces = FACES.filter((face) => rows.some((r) => r.faces[face] !== undefined));
  const hasBase = faces.includes("base");
  const head = [
    "net",
    "endpoint",
    "conns",
    "echo req/s",
    "echo p50 / p99 ms",
    ...faces.flatMap((face) => [`${FACE_TITLES[face]} req/s`, "ratio", "p50 / p99 ms"]),
    "rows / run",
    "req / run",
    ...(hasBase ? ["serve / base"] : []),
  ];
  const cell = (r: Row, face: Face) => {
    const result = r.faces[face];
    return result === undefined ? ["—", "—", "—"] : [
      rate(result.requestsPerSecond),
      ratio(result, r.echo),
      `${ms(result.p50Ms)} / ${ms(result.p99Ms)}`,
    ];
  };
  return [
    "## http",
    "",
    "`bench/http_load.ts` (`deno run -A bench/http_load.ts`): `wrk -t1 -cN` (a native client;",
    "a Lua script POSTs eight different bodies in turn) against servers each in its own",
    "process on 127.0.0.1: a bare `Deno.serve` JSON echo (`Response.json(await request.json())`,",
    "the baseline, same bodies), `cli.ts serve` (ORT in a worker), `cli.ts serve --ort-in-process`",
    "(ORT on the serving thread, as before the worker) and `deno serve --parallel server/main.ts`",
    "(one instance per core, each running the model on its own thread, in-process)" +
    (hasBase
      ? `, and \`cli.ts serve\` of ${base} (_serve at base_: the code before this change)`
      : "") +
    `. Each cell: 1 s of warm-up, then ${seconds} s measured. Every answer`,
    "must be 2xx (wrk counts the others; none occurred). *Ratio* is requests/s over the echo's in",
    "the same cell. *Rows / run* and *req / run*: ORT rows and requests per ORT run, from a short",
    "extra run of the same load against `bench/http_serve_counted.ts` (`serve`'s twin with a run",
    "counter). Nets: the credit-approval example (3 places, 2 transitions) and a 60-place,",
    "48-transition layered net from `bench/layered_net.ts`.",
    "",
    `Machine: ${machine}. wrk and the server under test share the two cores, so absolute`,
    "figures are noisy; compare ratios within a row.",
    "",
    `| ${head.join(" | ")} |`,
    `| ${head.map((_, i) => (i < 2 ? "---" : "---:")).join(" | ")} |`,
    ...rows.map((r) =>
      `| ${
        [
          r.net,
          `POST /${r.endpoint}`,
          String(r.connections),
          rate(r.echo.requestsPerSecond),
          `${ms(r.echo.p50Ms)} / ${ms(r.echo.p99Ms)}`,
          ...faces.flatMap((face) => cell(r, face)),
          r.rowsPerRun.toFixed(1),
          r.requestsPerRun.toFixed(2),
          ...(hasBase ? [r.faces.base ? ratio(r.faces.serve, r.faces.base) : "—"] : []),
        ].join(" | ")
      } |`
    ),
    "",
    "Goals of issue 13, in this run:",
    "",
    ...goals(rows, faces.filter((face) => face !== "base")),
  ].join("\n");
}

function goals(rows: readonly Row[], faces: readonly Face[]): string[] {
  const find = (net: string, endpoint: Endpoint, connections: number) =>
    rows.find((r) => r.net === net && r.endpoint === endpoint && r.connections === connections);
  const mark = (ok: boolean) => (ok ? "met" : "**not met**");
  const lines: string[] = [];
  for (const net of new Set(rows.map((r) => r.net))) {
    const forward = find(net, "forward", 16);
    const counterfactual = find(net, "counterfactual", 16);
    if (forward) {
      for (const face of faces) {
        const f = forward.faces[face];
        if (f === undefined) continue;
        const x = f.requestsPerSecond / forward.echo.requestsPerSecond;
        lines.push(
          `- ${net}, ${face}: /forward at 16 connections = ${x.toFixed(2)}× echo ` +
            `(goal ≥ 0.5×): ${mark(x >= 0.5)}`,
        );
        const c = counterfactual?.faces[face];
        if (c) {
          const y = c.requestsPerSecond / f.requestsPerSecond;
          lines.push(
            `- ${net}, ${face}: /counterfactual = ${y.toFixed(2)}× /forward at 16 connections ` +
              `(goal ≥ 0.5×): ${mark(y >= 0.5)}`,
          );
        }
      }
    }
    for (const endpoint of ENDPOINTS) {
      const one = find(net, endpoint, 1);
      if (!one) continue;
      const bound = 2 * one.echo.p99Ms + 1;
      const marks = faces.flatMap((face) => {
        const result = one.faces[face];
        return result === undefined
          ? []
          : [`${face} ${result.p99Ms.toFixed(2)} ms ${mark(result.p99Ms <= bound)}`];
      });
      lines.push(
        `- ${net}, /${endpoint} p99 at 1 connection ≤ 2 × echo p99 + 1 ms = ` +
          `${bound.toFixed(2)} ms: ${marks.join(", ")}`,
      );
    }
  }
  return lines;
}

async function machine(): Promise<string> {
  const cpu = (await Deno.readTextFile("/proc/cpuinfo").catch(() => ""))
    .match(/model name\s*:\s*(.+)/)?.[1] ?? "unknown CPU";
  return `Deno ${Deno.version.deno}, onnxruntime-web 1.30 (WASM, 1 thread, in a worker), ` +
    `${navigator.hardwareConcurrency} cores (${cpu}, shared with other work), wrk 4`;
}

function option(name: string, fallback: number): number {
  const at = Deno.args.indexOf(name);
  return at === -1 ? fallback : Number(Deno.args[at + 1] ?? fallback);
}

function textOption(name: string): string | undefined {
  const at = Deno.args.indexOf(name);
  return at === -1 ? undefined : Deno.args[at + 1];
}

/** The listed values of option `name` (comma-separated) that pass `keep`; all when absent. */
function listOption<T>(name: string, all: readonly T[], key: (item: T) => string): T[] {
  const text = textOption(name);
  if (text === undefined) return [...all];
  const wanted = text.split(",");
  return all.filter((item) => wanted.some((w) => key(item).startsWith(w)));
}

async function check(origin: string, bodies: Bodies): Promise<void> {
  for (const endpoint of ENDPOINTS) {
    for (const body of bodies[endpoint]) {
      const response = await fetch(`${origin}/${endpoint}`, { method: "POST", body });
      const answer = await response.json();
      if (response.status !== 200 || !(ANSWER_KEY[endpoint] in answer)) {
        throw new Error(`/${endpoint} answered ${response.status}: ${JSON.stringify(answer)}`);
      }
    }
  }
}

async function measure(
  url: string,
  bodies: readonly string[],
  connections: number,
  seconds: number,
): Promise<WrkResult> {
  await runWrk(url, bodies, { connections, seconds: 1 });
  const result = await runWrk(url, bodies, { connections, seconds });
  if (result.socketErrors > 0 || result.statusErrors > 0) {
    throw new Error(
      `${url}: ${result.socketErrors} socket and ${result.statusErrors} status errors`,
    );
  }
  return result;
}

async function countRuns(
  origin: string,
  endpoint: Endpoint,
  bodies: readonly string[],
  connections: number,
) {
  const counts = async () =>
    (await (await fetch(`${origin}/__runs`)).json()) as {
      runs: number;
      rows: number;
    };
  const before = await counts();
  const load = await runWrk(`${origin}/${endpoint}`, bodies, { connections, seconds: 2 });
  const after = await counts();
  const runs = after.runs - before.runs;
  return { rowsPerRun: (after.rows - before.rows) / runs, requestsPerRun: load.requests / runs };
}

if (import.meta.main) {
  const seconds = option("--seconds", 3);
  const base = textOption("--base");
  const endpoints = listOption("--endpoints", ENDPOINTS, String);
  const conns = listOption("--conns", CONNECTIONS, String);
  const faces = listOption("--faces", FACES, String).filter((f) =>
    f === "serve" || f !== "base" || base
  );
  if (base && !faces.includes("base")) faces.push("base");
  const subset = ["--nets", "--endpoints", "--conns", "--faces"].some((o) => Deno.args.includes(o));
  const dir = await Deno.makeTempDir({ prefix: "petri_http_load_" });
  const rows: Row[] = [];
  try {
    const layered = `${dir}/layered_60.onnx`;
    const model = layeredModel(60);
    await writeBundle(layered, await compileBundle(model, { savedAt: new Date(0) }));
    const nets = listOption("--nets", [
      { net: "example", bundle: EXAMPLE_BUNDLE_URL.pathname, bodies: EXAMPLE_BODIES },
      { net: "60 places", bundle: layered, bodies: layeredBodies(model) },
    ], (n) => n.net);
    await using echo = await startServerProcess([
      "run",
      "--allow-net=127.0.0.1",
      "bench/http_echo.ts",
    ]);
    for (const { net, bundle, bodies } of nets) {
      const servers: Partial<Record<Face, Awaited<ReturnType<typeof startServerProcess>>>> = {};
      const serveArgs = ["run", "-A", "cli.ts", "serve", bundle, "--port", "0"];
      servers.serve = await startServerProcess(serveArgs);
      if (faces.includes("base")) {
        servers.base = await startServerProcess(serveArgs, { cwd: base! });
      }
      if (faces.includes("parallel")) {
        servers.parallel = await startServerProcess(
          ["serve", "--parallel", "--allow-read", "--allow-env", "--allow-net", "server/main.ts"],
          { env: { DENO_SERVE_ADDRESS: "tcp:127.0.0.1:0", PETRI_SERVE_BUNDLE: bundle } },
        );
      }
      if (faces.includes("inProcess")) {
        servers.inProcess = await startServerProcess([...serveArgs, "--ort-in-process"]);
      }
      await using counted = await startServerProcess([
        "run",
        "-A",
        "bench/http_serve_counted.ts",
        bundle,
      ]);
      try {
        for (const server of [...Object.values(servers), counted]) {
          await check(server.origin, bodies);
        }
        for (const endpoint of endpoints) {
          for (const connections of conns) {
            const list = bodies[endpoint];
            const at = (origin: string) => `${origin}/${endpoint}`;
            const echoed = await measure(at(echo.origin), list, connections, seconds);
            const results: Partial<Record<Face, WrkResult>> = {};
            for (const face of FACES) {
              const server = servers[face];
              if (server) {
                results[face] = await measure(at(server.origin), list, connections, seconds);
              }
            }
            const runs = await countRuns(counted.origin, endpoint, list, connections);
            const row: Row = {
              net,
              endpoint,
              connections,
              echo: echoed,
              faces: { ...results, serve: results.serve! },
              ...runs,
            };
            rows.push(row);
            console.error(
              `${net} /${endpoint} ×${connections}: echo ${
                Math.round(echoed.requestsPerSecond)
              }, ` +
                Object.entries(results).map(([face, r]) =>
                  `${face} ${Math.round(r.requestsPerSecond)} (p99 ${r.p99Ms.toFixed(2)} ms)`
                ).join(", ") + `, ${runs.rowsPerRun.toFixed(1)} rows/run`,
            );
          }
        }
        const all = [...Object.values(servers), counted];
        for (const server of all) server.kill("SIGTERM");
        for (const server of all) {
          const exit = await server.finished();
          if (exit.code !== 0) throw new Error(`a server exited ${exit.code}: ${exit.stderr}`);
        }
      } finally {
        for (const server of Object.values(servers)) await server[Symbol.asyncDispose]();
      }
    }
    echo.kill("SIGTERM");
    await echo.finished();
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
  const section = httpSection(rows, await machine(), seconds, base ?? "");
  console.log(section);
  if (!subset && !Deno.args.includes("--no-readme")) {
    const current = await Deno.readTextFile(README).catch(() => "# Benchmarks\n");
    await Deno.writeTextFile(README, replaceSection(current, section));
    await new Deno.Command(Deno.execPath(), { args: ["fmt", README.pathname] }).output();
  }
}
