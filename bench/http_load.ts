/**
 * HTTP throughput and latency of `cli.ts serve` (WASM and native ORT, in its worker or
 * in-process) and of `deno serve --parallel adapter/deno/main.ts` against two baselines measured in
 * the same run: a bare `Deno.serve` JSON echo (`http_echo.ts`) and the naive 40-line model
 * server of issue 21 (`naive_server.ts`, POST /forward only, with `onnxruntime-node` and with
 * onnxruntime-web), with `wrk` (`wrk.ts`) as the load generator. Every server runs in its own
 * process on 127.0.0.1. Each cell: a POST operation at 1 and 16 connections, on the
 * credit-approval example, a 60-place and a 500-place layered net (`layered_net.ts`; on the
 * 500-place net /forward and /sensitivity only, unless `--endpoints` names others); a 1 s
 * warm-up, then a bounded measured run. Rows per ORT run come from a short extra run of the
 * same load against `http_serve_counted.ts` (`cli.ts serve`'s twin that counts runs). The
 * table and issue 21's goals replace the `## http` section of `bench/README.md`.
 *
 * Not a `deno bench` file: run it as
 * `deno run -A bench/http_load.ts [--seconds 3] [--no-readme] [--base DIR]
 * [--nets example,60,500] [--endpoints forward,counterfactual] [--conns 1,16]
 * [--faces serve,native,inProcess,inProcessNative,parallel,naiveNode,naiveWeb] [--threads N]`.
 * `--threads N` is the native faces' `--threads` (ORT intra-op threads, default 1).
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

import { compileBundle } from "../core/bundle/mod.ts";
import { EXAMPLE_BUNDLE_URL, writeBundle } from "../adapter/deno/bundle_files.ts";
import { startServerProcess } from "../tests/cli/serve/server_process.ts";
import { replaceSection } from "./batch_rss.ts";
import { check, type Endpoint, ENDPOINTS, EXAMPLE_BODIES, layeredBodies } from "./http_bodies.ts";
import { machine } from "./machine.ts";
import { layeredModel } from "./layered_net.ts";
import { startFace } from "./serve_faces.ts";
import { runWrk, type WrkResult } from "./wrk.ts";

// The bodies moved to `http_bodies.ts`; tests import them from here too.
export {
  type Bodies,
  type Endpoint,
  ENDPOINTS,
  EXAMPLE_BODIES,
  layeredBodies,
} from "./http_bodies.ts";

const README = new URL("README.md", import.meta.url);

/** The connection counts of each cell. */
export const CONNECTIONS = [1, 16] as const;

/** The measured servers besides the echo. */
export const FACES = [
  "serve",
  "native",
  "base",
  "inProcess",
  "inProcessNative",
  "parallel",
  "naiveNode",
  "naiveWeb",
] as const;
/**
 * One of {@link FACES}: `cli.ts serve` (WASM); the same with `--runtime native`; `cli.ts serve`
 * from the `--base` checkout; with `--ort-in-process` (WASM, then native);
 * `deno serve --parallel`; the naive server with `onnxruntime-node`, then onnxruntime-web.
 */
export type Face = typeof FACES[number];

const FACE_TITLES: Readonly<Record<Face, string>> = {
  serve: "serve",
  native: "serve native",
  base: "serve at base",
  inProcess: "--ort-in-process",
  inProcessNative: "--ort-in-process native",
  parallel: "--parallel",
  naiveNode: "naive node",
  naiveWeb: "naive web",
};

/** The faces that are `cli.ts serve` of this checkout (candidates for issue 21's goals). */
const SERVE_FACES: readonly Face[] = ["serve", "native", "inProcess", "inProcessNative"];

/** The naive servers answer POST /forward only. */
const NAIVE_FACES: readonly Face[] = ["naiveNode", "naiveWeb"];

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
  threads = 1,
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
    "process on 127.0.0.1. Baselines: a bare `Deno.serve` JSON echo",
    "(`Response.json(await request.json())`, same bodies) and, for POST /forward, the naive",
    "server of issue 21 (`bench/naive_server.ts`: `Deno.serve`, the four input tensors filled",
    "by place index, one `session.run` per request, `JSON.stringify` of the two id maps; with",
    "`onnxruntime-node`, 1 intra-op thread, _naive node_, and with onnxruntime-web's WASM",
    "in-process, _naive web_). Measured: `cli.ts serve` (ORT in a worker; _serve_ is WASM,",
    `_serve native_ is \`--runtime native --threads ${threads}\`), \`cli.ts serve --ort-in-process\``,
    "(ORT on the serving thread; WASM, then native) and `deno serve --parallel adapter/deno/main.ts`",
    "(one instance per core, each running the model on its own thread, in-process, WASM)" +
    (hasBase
      ? `, and \`cli.ts serve\` of ${base} (_serve at base_: the code before this change)`
      : "") +
    `. Each cell: 1 s of warm-up, then ${seconds} s measured. Every answer`,
    "must be 2xx (wrk counts the others; none occurred). *Ratio* is requests/s over the echo's in",
    "the same cell. *Rows / run* and *req / run*: ORT rows and requests per ORT run, from a short",
    "extra run of the same load against `bench/http_serve_counted.ts` (`serve`'s twin with a run",
    "counter, WASM). Nets: the credit-approval example (3 places, 2 transitions), a 60-place,",
    "48-transition and a 500-place, 331-transition layered net from `bench/layered_net.ts`.",
    "",
    `Machine: ${machine}. wrk and the server under test share the cores, so absolute`,
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
    "Goals of issue 21, in this run:",
    "",
    ...goals(rows),
  ].join("\n");
}

/**
 * Issue 21's goals checked on `rows`, one line each: against the naive server at 1 and 16
 * connections (/forward, best `cli.ts serve` face, named), /forward against the echo at 16
 * connections on the example, /counterfactual against /forward, and native against WASM on
 * the 500-place net.
 *
 * @example
 * ```ts
 * import { goals } from "./http_load.ts";
 * goals([]); // []
 * ```
 */
export function goals(rows: readonly Row[]): string[] {
  const find = (net: string, endpoint: Endpoint, connections: number) =>
    rows.find((r) => r.net === net && r.endpoint === endpoint && r.connections === connections);
  const mark = (ok: boolean) => (ok ? "met" : "**not met**");
  const x = (value: number) => `${value.toFixed(2)}×`;
  const rps = (r: WrkResult) => Math.round(r.requestsPerSecond).toLocaleString("en-US");
  const best = (row: Row) =>
    SERVE_FACES.flatMap((face) => {
      const result = row.faces[face];
      return result ? [{ face, result }] : [];
    }).sort((a, b) => b.result.requestsPerSecond - a.result.requestsPerSecond)[0];
  const lines: string[] = [];
  for (const net of new Set(rows.map((r) => r.net))) {
    const one = find(net, "forward", 1);
    const naiveOne = one && NAIVE_FACES.flatMap((face) => {
      const result = one.faces[face];
      return result ? [{ face, result }] : [];
    }).sort((a, b) => b.result.requestsPerSecond - a.result.requestsPerSecond)[0];
    const top = one && best(one);
    if (naiveOne && top) {
      const speed = top.result.requestsPerSecond / naiveOne.result.requestsPerSecond;
      const p50 = naiveOne.result.p50Ms / top.result.p50Ms;
      lines.push(
        `- ${net}, /forward at 1 connection, best serve face (${FACE_TITLES[top.face]}) against ` +
          `the faster naive server (${FACE_TITLES[naiveOne.face]}): ${rps(top.result)} against ` +
          `${rps(naiveOne.result)} req/s = ${x(speed)}, p50 ${
            top.result.p50Ms.toFixed(2)
          } against ` +
          `${naiveOne.result.p50Ms.toFixed(2)} ms = ${x(p50)} (goal ≥ 1.0× both): ` +
          mark(speed >= 1 && p50 >= 1),
      );
    }
    const sixteen = find(net, "forward", 16);
    const naive16 = sixteen?.faces.naiveNode;
    const top16 = sixteen && best(sixteen);
    if (naive16 && top16) {
      const speed = top16.result.requestsPerSecond / naive16.requestsPerSecond;
      lines.push(
        `- ${net}, /forward at 16 connections, best serve face (${FACE_TITLES[top16.face]}) ` +
          `against naive node: ${rps(top16.result)} against ${rps(naive16)} req/s = ` +
          `${x(speed)} (goal ≥ 2×): ${mark(speed >= 2)}`,
      );
    }
    if (net === "example" && sixteen) {
      for (const face of SERVE_FACES) {
        const f = sixteen.faces[face];
        if (f === undefined) continue;
        const ratio = f.requestsPerSecond / sixteen.echo.requestsPerSecond;
        lines.push(
          `- example, ${FACE_TITLES[face]}: /forward at 16 connections = ${x(ratio)} echo ` +
            `(goal ≥ 0.5×): ${mark(ratio >= 0.5)}`,
        );
      }
    }
    const counterfactual = find(net, "counterfactual", 16);
    if (sixteen && counterfactual) {
      for (const face of SERVE_FACES) {
        const [f, c] = [sixteen.faces[face], counterfactual.faces[face]];
        if (f === undefined || c === undefined) continue;
        const ratio = c.requestsPerSecond / f.requestsPerSecond;
        lines.push(
          `- ${net}, ${FACE_TITLES[face]}: /counterfactual = ${x(ratio)} /forward at 16 ` +
            `connections (goal ≥ 0.5×): ${mark(ratio >= 0.5)}`,
        );
      }
    }
    if (net === "500 places") {
      for (const endpoint of ["forward", "sensitivity"] as const) {
        const row = find(net, endpoint, 16);
        if (row === undefined) continue;
        for (const [native, wasm] of [["native", "serve"], ["inProcessNative", "inProcess"]]) {
          const [n, w] = [row.faces[native as Face], row.faces[wasm as Face]];
          if (n === undefined || w === undefined) continue;
          const ratio = n.requestsPerSecond / w.requestsPerSecond;
          lines.push(
            `- 500 places, /${endpoint} at 16 connections, ${FACE_TITLES[native as Face]} ` +
              `against ${FACE_TITLES[wasm as Face]}: ${rps(n)} against ${rps(w)} req/s = ` +
              `${x(ratio)} (goal ≥ 2×): ${mark(ratio >= 2)}`,
          );
        }
      }
    }
  }
  return lines;
}

function option(name: string, fallback: number): number {
  const at = Deno.args.indexOf(name);
  return at === -1 ? fallback : Number(Deno.args[at + 1] ?? fallback);
}

function textOption(name: string): string | undefined {
  const at = Deno.args.indexOf(name);
  return at === -1 ? undefined : Deno.args[at + 1];
}

/**
 * The items of `all` named in option `name` (comma-separated; a name matches a key it starts
 * with, or only an equal key when `exact`); all when the option is absent.
 */
function listOption<T>(
  name: string,
  all: readonly T[],
  key: (item: T) => string,
  exact = false,
): T[] {
  const text = textOption(name);
  if (text === undefined) return [...all];
  const wanted = text.split(",");
  return all.filter((item) =>
    wanted.some((w) => (exact ? key(item) === w : key(item).startsWith(w)))
  );
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

/** The endpoints measured on the 500-place net unless `--endpoints` is given. */
const BIG_NET_ENDPOINTS: readonly Endpoint[] = ["forward", "sensitivity"];

if (import.meta.main) {
  const seconds = option("--seconds", 3);
  const threads = option("--threads", 1);
  const base = textOption("--base");
  const endpointsGiven = Deno.args.includes("--endpoints");
  const endpoints = listOption("--endpoints", ENDPOINTS, String);
  const conns = listOption("--conns", CONNECTIONS, String);
  const faces = listOption("--faces", FACES, String, true).filter((f) =>
    f === "serve" || f !== "base" || base
  );
  if (!faces.includes("serve")) faces.unshift("serve");
  if (base && !faces.includes("base")) faces.push("base");
  const subset = ["--nets", "--endpoints", "--conns", "--faces"].some((o) => Deno.args.includes(o));
  const dir = await Deno.makeTempDir({ prefix: "petri_http_load_" });
  const rows: Row[] = [];
  try {
    const layered = async (places: number) => {
      const path = `${dir}/layered_${places}.onnx`;
      const model = layeredModel(places);
      await writeBundle(path, await compileBundle(model, { savedAt: new Date(0) }));
      return { bundle: path, bodies: layeredBodies(model) };
    };
    const nets = listOption("--nets", [
      {
        net: "example",
        make: () => ({ bundle: EXAMPLE_BUNDLE_URL.pathname, bodies: EXAMPLE_BODIES }),
      },
      { net: "60 places", make: () => layered(60) },
      { net: "500 places", make: () => layered(500) },
    ], (n) => n.net);
    await using echo = await startFace("echo", { bundle: "" });
    for (const { net, make } of nets) {
      const { bundle, bodies } = await make();
      const netEndpoints = net === "500 places" && !endpointsGiven
        ? endpoints.filter((e) => BIG_NET_ENDPOINTS.includes(e))
        : endpoints;
      const servers: Partial<Record<Face, Awaited<ReturnType<typeof startServerProcess>>>> = {};
      const start = (face: Face) =>
        face === "base"
          ? startFace("serve", { bundle, checkout: base! })
          : startFace(face, { bundle, threads });
      for (const face of FACES) {
        if (faces.includes(face)) servers[face] = await start(face);
      }
      await using counted = await startServerProcess([
        "run",
        "-A",
        "bench/http_serve_counted.ts",
        bundle,
      ]);
      try {
        for (const [face, server] of Object.entries(servers)) {
          const naive = NAIVE_FACES.includes(face as Face);
          await check(server.origin, bodies, naive ? ["forward"] : ENDPOINTS);
        }
        await check(counted.origin, bodies);
        for (const endpoint of netEndpoints) {
          for (const connections of conns) {
            const list = bodies[endpoint];
            const at = (origin: string) => `${origin}/${endpoint}`;
            const echoed = await measure(at(echo.origin), list, connections, seconds);
            const results: Partial<Record<Face, WrkResult>> = {};
            for (const face of FACES) {
              const server = servers[face];
              if (server && (endpoint === "forward" || !NAIVE_FACES.includes(face))) {
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
                  `${face} ${Math.round(r.requestsPerSecond)} (p50 ${r.p50Ms.toFixed(2)} ms)`
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
  const section = httpSection(rows, await machine(), seconds, base ?? "", threads);
  console.log(section);
  if (!subset && !Deno.args.includes("--no-readme")) {
    const current = await Deno.readTextFile(README).catch(() => "# Benchmarks\n");
    await Deno.writeTextFile(README, replaceSection(current, section));
    await new Deno.Command(Deno.execPath(), { args: ["fmt", README.pathname] }).output();
  }
}
