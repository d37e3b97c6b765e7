/**
 * Issue 25's benchmark: every figure of its goals table in one run, for the checkout under
 * work ("after") and, with `--baseline DIR`, another checkout ("before", say a worktree at the
 * commit before the redesign), measured side by side with the same load and the same
 * baselines, the two sides alternating (A B, then B A) so that drift on a shared machine
 * cancels out. Sections (`--only` picks some):
 *
 * | name | what |
 * |---|---|
 * | `cpu` | serving-thread CPU per request (`/proc/<pid>/task/<pid>/stat`) of `cli.ts serve` for POST /forward, /anomaly, /sensitivity, /counterfactual and 1-row `/v2` infer on the example, 16 connections, against the JSON echo's (and, for /forward, the naive batching server's: the floor of a server that batches on an ORT worker) |
 * | `naive` | POST /forward req/s and p50 / p99 at 1 and 16 connections, on the example and the 60-place net, of `serve`, `serve --runtime native`, `--ort-in-process` (both runtimes) and `deno serve --parallel`, against the naive server on onnxruntime-node and -web and the echo |
 * | `flood` | 256 connections of 60,000-row `/v2` infer and 512 of `/anomaly` (~0.9 MB bodies, default flags): peak RSS and probe latency (`flood_bench.ts`) |
 * | `native500` | `serve --runtime native` against `serve` on the 500-place net, 16 connections, /forward and /sensitivity |
 * | `v2rows` | `/v2` infer rows/s with 1,000-row requests |
 *
 * /forward against the echo at 16 connections comes from the `cpu` and `naive` cells. Servers
 * are started through the command line only (`serve_faces.ts`) from each checkout, on
 * 127.0.0.1, port 0; nets are compiled by each checkout's own `cli.ts compile`. Load comes from
 * `wrk` (`wrk.ts`); every cell is a 1 s warm-up, then the measured window; figures are medians
 * over the rounds. Markdown on stdout (progress on stderr), the figures as JSON with `--json`.
 *
 * ```sh
 * deno run -A bench/serving_path.ts [--baseline DIR] [--checkout DIR] [--quick]
 *   [--only cpu,naive,flood,native500,v2rows] [--seconds 5] [--rounds 2] [--flood-seconds 30]
 *   [--nets example,60] [--faces serve,native,inProcess,inProcessNative,parallel] [--threads 1]
 *   [--json FILE]
 * deno run -A bench/serving_path.ts --report FILE   # the tables again, from a --json file
 * ```
 *
 * @module
 */

import { parseArgs } from "node:util";
import { resolve } from "node:path";
import { describeModel } from "../core/net/mod.ts";
import type { ServerProcess } from "../tests/cli/serve/server_process.ts";
import { check, type Endpoint, ENDPOINTS, EXAMPLE_BODIES, layeredBodies } from "./http_bodies.ts";
import { machine } from "./machine.ts";
import { layeredModel } from "./layered_net.ts";
import { runFlood, SCENARIOS } from "./flood_bench.ts";
import {
  type Baseline,
  BASELINES,
  FACE_TITLES,
  FLOOR,
  NAIVE_PEER,
  SERVE_FACES,
  type ServeFace,
  startFace,
} from "./serve_faces.ts";
import {
  type BySide,
  type CpuRow,
  type FloodFigures,
  type FloodRow,
  medianSample,
  type NaiveRow,
  type Native500Row,
  report,
  type Results,
  type Sample,
  type Side,
  type V2RowsRow,
} from "./serving_path_report.ts";
import { threadCpu } from "./thread_cpu.ts";
import { runWrk } from "./wrk.ts";

const ROOT = new URL("../", import.meta.url).pathname;
const SECTIONS = ["cpu", "naive", "flood", "native500", "v2rows"] as const;
type Section = typeof SECTIONS[number];
const EXAMPLE = "examples/credit_approval_coloured/credit_approval_coloured.onnx";
const FLOODS = ["infer256", "anomaly512"] as const;
/** Rows of each `/v2` infer request of the `v2rows` section. */
const V2_ROWS = 1000;

/** A bad command line: one line on stderr, exit 2. */
class UsageError extends Error {}

/** The command line; an unknown or malformed option is a {@link UsageError}. */
function options() {
  try {
    return parseArgs({
      args: Deno.args,
      options: {
        baseline: { type: "string" },
        checkout: { type: "string" },
        quick: { type: "boolean", default: false },
        only: { type: "string" },
        seconds: { type: "string" },
        rounds: { type: "string" },
        "flood-seconds": { type: "string" },
        nets: { type: "string" },
        faces: { type: "string" },
        threads: { type: "string", default: "1" },
        json: { type: "string" },
        report: { type: "string" },
      },
    }).values;
  } catch (error) {
    // node:util's parseArgs errors carry a code `ERR_PARSE_ARGS_…`.
    if (String((error as { code?: unknown }).code).startsWith("ERR_PARSE_ARGS")) {
      throw new UsageError((error as Error).message.split("\n")[0]!);
    }
    throw error;
  }
}

function positive(name: string, text: string | undefined, fallback: number): number {
  if (text === undefined) return fallback;
  const value = Number(text);
  if (!Number.isInteger(value) || value < 1) {
    throw new UsageError(`--${name} must be a positive whole number, not ${JSON.stringify(text)}`);
  }
  return value;
}

function list<T extends string>(name: string, text: string | undefined, all: readonly T[]): T[] {
  if (text === undefined) return [...all];
  const picked = text.split(",").map((s) => s.trim()).filter((s) => s !== "");
  const unknown = picked.find((s) => !(all as readonly string[]).includes(s));
  if (unknown !== undefined) {
    throw new UsageError(`--${name} takes ${all.join(", ")}, not ${JSON.stringify(unknown)}`);
  }
  return picked as T[];
}

async function checkoutDir(name: string, dir: string): Promise<string> {
  const path = resolve(dir);
  if (!(await Deno.stat(`${path}/cli.ts`).catch(() => undefined))?.isFile) {
    throw new UsageError(`--${name} ${dir} is not a checkout of petri-serve (no cli.ts)`);
  }
  return path;
}

/** `DIR (commit abc1234, with changes)`, or just DIR when it is not a git checkout. */
async function describeCheckout(dir: string): Promise<string> {
  const git = async (...args: string[]) => {
    const out = await new Deno.Command("git", { args: ["-C", dir, ...args], stderr: "null" })
      .output().catch(() => undefined);
    return out?.success ? new TextDecoder().decode(out.stdout).trim() : undefined;
  };
  const commit = await git("rev-parse", "--short", "HEAD");
  if (commit === undefined) return dir;
  const dirty = await git("status", "--porcelain", "--untracked-files=no");
  return `${dir} (commit ${commit}${dirty ? ", with uncommitted changes" : ""})`;
}

const log = (text: string) => console.error(text);

/** The order of the sides in round `round`: A B, then B A. */
function order(sides: readonly Side[], round: number): Side[] {
  return round % 2 ? [...sides].reverse() : [...sides];
}

/**
 * The cells of one comparison in round `round`: the sides in {@link order} with the baseline
 * between them (or first, with one side), so that drift shifts both sides' ratios alike.
 */
function sandwich(sides: readonly Side[], round: number): (Side | "baseline")[] {
  const [first, second] = order(sides, round);
  return second === undefined ? ["baseline", first!] : [first!, "baseline", second];
}

/** One wrk cell: a 1 s warm-up, then `seconds` measured; the serving thread's CPU with `pid`. */
async function sample(
  url: string,
  bodies: readonly string[],
  connections: number,
  seconds: number,
  pid?: number,
): Promise<Sample> {
  await runWrk(url, bodies, { connections, seconds: 1 });
  const before = pid === undefined ? undefined : await threadCpu(pid);
  const result = await runWrk(url, bodies, { connections, seconds });
  const after = pid === undefined ? undefined : await threadCpu(pid);
  return {
    requests: result.requests,
    requestsPerSecond: result.requestsPerSecond,
    p50Ms: result.p50Ms,
    p99Ms: result.p99Ms,
    errors: result.socketErrors + result.statusErrors,
    ...(before && after ? { cpuUs: (after.main - before.main) / result.requests } : {}),
  };
}

function show(label: string, s: Sample): string {
  const cpu = s.cpuUs === undefined ? "" : `, ${s.cpuUs.toFixed(1)} µs/req serving thread`;
  const errors = s.errors ? `, ${s.errors} ERRORS` : "";
  return `${label}: ${Math.round(s.requestsPerSecond)} req/s, p50 ${
    s.p50Ms.toFixed(2)
  } ms${cpu}${errors}`;
}

/** Samples by key, their medians at the end. */
class Cells {
  readonly #samples = new Map<string, Sample[]>();
  add(key: string, s: Sample): void {
    log(show(key, s));
    const list = this.#samples.get(key) ?? [];
    list.push(s);
    this.#samples.set(key, list);
  }
  median(key: string): Sample | undefined {
    const list = this.#samples.get(key);
    return list && medianSample(list);
  }
  /** Every sample, for the JSON file. */
  raw(): Record<string, Sample[]> {
    return Object.fromEntries(this.#samples);
  }
}

/**
 * Eight `/v2` infer bodies of `rows` rows for the example (places in `/schema` order:
 * p_approved, p_declined, p_submitted): one submitted loan a row, its amount varying.
 */
function v2Bodies(rows: number): string[] {
  return Array.from({ length: 8 }, (_, k) => {
    const marking: number[] = [], mask: number[] = [], values: number[] = [];
    const valuesMask: number[] = [];
    for (let i = 0; i < rows; i++) {
      marking.push(0, 0, 1);
      mask.push(1, 1, 1);
      values.push(0, 0, ((k * 1237 + i * 389) % 10_000) + 100);
      valuesMask.push(0, 0, 1);
    }
    const tensor = (name: string, data: number[]) => ({
      name,
      datatype: "FP32",
      shape: [rows, 3],
      data,
    });
    return JSON.stringify({
      inputs: [
        tensor("marking", marking),
        tensor("marking_mask", mask),
        tensor("values", values),
        tensor("values_mask", valuesMask),
      ],
    });
  });
}

/** The example's model name in `/v2/models/{name}`: its sidecar's `scenario_name`. */
async function exampleName(checkout: string): Promise<string> {
  const sidecar = JSON.parse(await Deno.readTextFile(`${checkout}/${EXAMPLE}.meta.json`));
  return sidecar.scenario_name;
}

async function checkV2(origin: string, path: string, bodies: readonly string[]): Promise<void> {
  for (const body of bodies) {
    const response = await fetch(`${origin}${path}`, { method: "POST", body });
    const answer = await response.json();
    if (response.status !== 200 || !Array.isArray(answer.outputs)) {
      throw new Error(`${path} answered ${response.status}: ${JSON.stringify(answer)}`);
    }
  }
}

/** Compiles `layeredModel(places)` with each checkout's own `cli.ts compile`. */
async function compileNet(
  dir: string,
  places: number,
  checkouts: BySide<string>,
): Promise<BySide<string>> {
  const model = `${dir}/layered_${places}.model.json`;
  await Deno.writeTextFile(model, JSON.stringify(describeModel(layeredModel(places))));
  const compile = async (side: Side, checkout: string) => {
    const out = `${dir}/${side}/layered_${places}.onnx`;
    const { success, stderr } = await new Deno.Command(Deno.execPath(), {
      args: [
        "run",
        "-A",
        "cli.ts",
        "compile",
        model,
        "-o",
        out,
        "--saved-at",
        "2026-01-01T00:00:00Z",
      ],
      cwd: checkout,
      stdin: "null",
      stdout: "null",
    }).output();
    if (!success) {
      throw new Error(`cli.ts compile in ${checkout} failed: ${new TextDecoder().decode(stderr)}`);
    }
    return out;
  };
  const after = await compile("after", checkouts.after);
  return checkouts.before === undefined
    ? { after }
    : { after, before: await compile("before", checkouts.before) };
}

/** The settings every section shares. */
interface Run {
  readonly sides: readonly Side[];
  readonly checkouts: BySide<string>;
  readonly seconds: number;
  readonly rounds: number;
  readonly threads: number;
  readonly dir: string;
  readonly cells: Cells;
}

/** Starts `face` of each side (from its checkout) on its bundle; `stack` stops them. */
async function startSides(
  stack: AsyncDisposableStack,
  run: Run,
  face: ServeFace,
  bundles: BySide<string>,
): Promise<Partial<Record<Side, ServerProcess>>> {
  const servers: Partial<Record<Side, ServerProcess>> = {};
  for (const side of run.sides) {
    const options = { bundle: bundles[side]!, checkout: run.checkouts[side], threads: run.threads };
    servers[side] = stack.use(await startFace(face, options));
  }
  return servers;
}

const bySide = <T>(sides: readonly Side[], pick: (side: Side) => T | undefined): BySide<T> => {
  const after = pick("after")!;
  const before = sides.includes("before") ? pick("before") : undefined;
  return before === undefined ? { after } : { after, before };
};

const exampleBundles = (run: Run): BySide<string> =>
  bySide(run.sides, (side) => `${run.checkouts[side]}/${EXAMPLE}`);

const CPU_ENDPOINTS = [...ENDPOINTS, "v2"] as const;

async function cpuSection(run: Run): Promise<CpuRow[]> {
  await using stack = new AsyncDisposableStack();
  const echo = stack.use(await startFace("echo", { bundle: "" }));
  const floor = stack.use(await startFace(FLOOR, { bundle: exampleBundles(run).after }));
  await check(floor.origin, EXAMPLE_BODIES, ["forward"]);
  const servers = await startSides(stack, run, "serve", exampleBundles(run));
  const v2 = `/v2/models/${await exampleName(run.checkouts.after)}/infer`;
  const oneRow = v2Bodies(1);
  for (const server of Object.values(servers)) {
    await check(server.origin, EXAMPLE_BODIES);
    await checkV2(server.origin, v2, oneRow);
  }
  const target = (endpoint: typeof CPU_ENDPOINTS[number]) =>
    endpoint === "v2"
      ? { path: v2, bodies: oneRow }
      : { path: `/${endpoint}`, bodies: EXAMPLE_BODIES[endpoint] };
  for (let round = 0; round < run.rounds; round++) {
    for (const [i, endpoint] of CPU_ENDPOINTS.entries()) {
      const { path, bodies } = target(endpoint);
      for (const who of sandwich(run.sides, round + i)) {
        const server = who === "baseline" ? echo : servers[who]!;
        run.cells.add(
          `cpu ${endpoint} ${who === "baseline" ? "echo" : who}`,
          await sample(`${server.origin}${path}`, bodies, 16, run.seconds, server.pid),
        );
        if (who === "baseline" && endpoint === "forward") {
          run.cells.add(
            "cpu forward floor",
            await sample(`${floor.origin}${path}`, bodies, 16, run.seconds, floor.pid),
          );
        }
      }
    }
  }
  return CPU_ENDPOINTS.map((endpoint) => ({
    endpoint,
    echo: run.cells.median(`cpu ${endpoint} echo`)!,
    ...(endpoint === "forward" ? { floor: run.cells.median("cpu forward floor")! } : {}),
    sides: bySide(run.sides, (side) => run.cells.median(`cpu ${endpoint} ${side}`)),
  }));
}

const NETS = ["example", "60"] as const;

async function naiveSection(
  run: Run,
  nets: readonly typeof NETS[number][],
  faces: readonly ServeFace[],
  connections: readonly number[],
): Promise<NaiveRow[]> {
  const rows: NaiveRow[] = [];
  for (const net of nets) {
    const name = net === "example" ? "example" : `${net} places`;
    const bundles = net === "example"
      ? exampleBundles(run)
      : await compileNet(run.dir, Number(net), run.checkouts);
    const forward = net === "example"
      ? EXAMPLE_BODIES.forward
      : layeredBodies(layeredModel(Number(net))).forward;
    const bodies = { ...EXAMPLE_BODIES, forward };
    await using stack = new AsyncDisposableStack();
    const baselines = Object.fromEntries(
      await Promise.all(
        BASELINES.map(async (b) => [b, stack.use(await startFace(b, { bundle: bundles.after }))]),
      ),
    ) as Record<Baseline, ServerProcess>;
    const servers: Partial<Record<ServeFace, Partial<Record<Side, ServerProcess>>>> = {};
    for (const face of faces) {
      log(`${name}: starting ${FACE_TITLES[face]}`);
      servers[face] = await startSides(stack, run, face, bundles);
    }
    for (const server of [baselines.naiveNode, baselines.naiveWeb]) {
      await check(server.origin, bodies, ["forward"]);
    }
    for (const bySide of Object.values(servers)) {
      for (const server of Object.values(bySide)) await check(server.origin, bodies, ["forward"]);
    }
    const key = (conns: number, who: string) => `naive ${name} c${conns} ${who}`;
    for (let round = 0; round < run.rounds; round++) {
      for (const [c, conns] of connections.entries()) {
        const at = (server: ServerProcess) =>
          sample(`${server.origin}/forward`, forward, conns, run.seconds);
        run.cells.add(key(conns, "echo"), await at(baselines.echo));
        for (const [f, face] of faces.entries()) {
          // Each face's naive peer is measured between its two sides, for the ratios.
          for (const who of sandwich(run.sides, round + c + f)) {
            const server = who === "baseline" ? baselines[NAIVE_PEER[face]] : servers[face]![who]!;
            run.cells.add(
              key(conns, `${face} ${who === "baseline" ? "naive" : who}`),
              await at(server),
            );
          }
        }
      }
    }
    for (const conns of connections) {
      const faceRows = faces.map((face) => [face, {
        naive: run.cells.median(key(conns, `${face} naive`))!,
        sides: bySide(run.sides, (side) => run.cells.median(key(conns, `${face} ${side}`))),
      }]);
      rows.push({
        net: name,
        connections: conns,
        echo: run.cells.median(key(conns, "echo"))!,
        faces: Object.fromEntries(faceRows),
      });
    }
  }
  return rows;
}

async function floodSection(run: Run, seconds: number): Promise<FloodRow[]> {
  const rows: FloodRow[] = [];
  for (const [i, scenario] of FLOODS.entries()) {
    const figures: Partial<Record<Side, FloodFigures>> = {};
    for (const side of order(run.sides, i)) {
      log(`flood ${scenario} ${side}: ${seconds} s`);
      const { report } = await runFlood(scenario, run.checkouts[side]!, side, seconds, []);
      const healthz = report.probes.get("/healthz")!;
      const probes = [...report.probes.values()];
      figures[side] = {
        okPerSecond: report.okPerSecond,
        peakRssMiB: report.peakRssBytes / 2 ** 20,
        healthzP99Ms: healthz.p99,
        healthzMaxMs: healthz.max,
        probeMaxMs: Math.max(...probes.map((p) => p.max)),
        probeFailures: probes.reduce((n, p) => n + p.failures, 0),
        statuses: Object.fromEntries([...report.statuses].map(([k, n]) => [String(k), n])),
        alive: report.alive,
      };
      log(`flood ${scenario} ${side}: ${JSON.stringify(figures[side])}`);
    }
    rows.push({
      scenario,
      connections: SCENARIOS[scenario]!.connections,
      seconds,
      sides: bySide(run.sides, (side) => figures[side]),
    });
  }
  return rows;
}

const BIG_ENDPOINTS = ["forward", "sensitivity"] as const satisfies readonly Endpoint[];

async function native500Section(run: Run): Promise<Native500Row[]> {
  const bundles = await compileNet(run.dir, 500, run.checkouts);
  const bodies = layeredBodies(layeredModel(500));
  await using stack = new AsyncDisposableStack();
  const servers = {
    serve: await startSides(stack, run, "serve", bundles),
    native: await startSides(stack, run, "native", bundles),
  };
  for (const face of [servers.serve, servers.native]) {
    for (const server of Object.values(face)) await check(server.origin, bodies, BIG_ENDPOINTS);
  }
  for (let round = 0; round < run.rounds; round++) {
    for (const [i, endpoint] of BIG_ENDPOINTS.entries()) {
      for (const side of order(run.sides, round + i)) {
        const faces = (round + i) % 2
          ? (["native", "serve"] as const)
          : (["serve", "native"] as const);
        for (const face of faces) {
          const server = servers[face][side]!;
          run.cells.add(
            `native500 ${endpoint} ${face} ${side}`,
            await sample(`${server.origin}/${endpoint}`, bodies[endpoint], 16, run.seconds),
          );
        }
      }
    }
  }
  return BIG_ENDPOINTS.map((endpoint) => ({
    endpoint,
    sides: bySide(run.sides, (side) => {
      const wasm = run.cells.median(`native500 ${endpoint} serve ${side}`);
      const native = run.cells.median(`native500 ${endpoint} native ${side}`);
      return wasm && native && { wasm, native };
    }),
  }));
}

async function v2RowsSection(run: Run, connections: readonly number[]): Promise<V2RowsRow[]> {
  await using stack = new AsyncDisposableStack();
  const servers = await startSides(stack, run, "serve", exampleBundles(run));
  const path = `/v2/models/${await exampleName(run.checkouts.after)}/infer`;
  const bodies = v2Bodies(V2_ROWS);
  for (const server of Object.values(servers)) await checkV2(server.origin, path, bodies);
  for (let round = 0; round < run.rounds; round++) {
    for (const [c, conns] of connections.entries()) {
      for (const side of order(run.sides, round + c)) {
        run.cells.add(
          `v2rows c${conns} ${side}`,
          await sample(`${servers[side]!.origin}${path}`, bodies, conns, run.seconds),
        );
      }
    }
  }
  return connections.map((conns) => ({
    connections: conns,
    rowsPerRequest: V2_ROWS,
    sides: bySide(run.sides, (side) => run.cells.median(`v2rows c${conns} ${side}`)),
  }));
}

const loadAverage = () => Deno.loadavg().map((l) => l.toFixed(2)).join(" ");

async function main(): Promise<void> {
  const values = options();
  if (values.report !== undefined) {
    console.log(report(JSON.parse(await Deno.readTextFile(values.report)).results));
    return;
  }
  const quick = values.quick;
  const only = list("only", values.only, SECTIONS);
  const nets = list("nets", values.nets, NETS);
  const faces = list("faces", values.faces, SERVE_FACES);
  const seconds = positive("seconds", values.seconds, quick ? 2 : 5);
  const rounds = positive("rounds", values.rounds, quick ? 1 : 2);
  const floodSeconds = positive("flood-seconds", values["flood-seconds"], quick ? 5 : 30);
  const threads = positive("threads", values.threads, 1);
  const after = await checkoutDir("checkout", values.checkout ?? ROOT);
  const before = values.baseline === undefined
    ? undefined
    : await checkoutDir("baseline", values.baseline);
  const checkouts: BySide<string> = before === undefined ? { after } : { after, before };
  const sides: Side[] = before === undefined ? ["after"] : ["after", "before"];
  const naiveNets = quick && values.nets === undefined ? (["example"] as const) : nets;
  const v2Connections = quick ? [16] : [1, 16];
  const loadBefore = loadAverage();
  const dir = await Deno.makeTempDir({ prefix: "petri_serving_path_" });
  const cells = new Cells();
  const run: Run = { sides, checkouts, seconds, rounds, threads, dir, cells };
  const measured: {
    cpu?: CpuRow[];
    naive?: NaiveRow[];
    floods?: FloodRow[];
    native500?: Native500Row[];
    v2rows?: V2RowsRow[];
  } = {};
  const started = performance.now();
  const loads: Record<string, number> = {};
  try {
    for (const section of only) {
      log(`== ${section}`);
      loads[section] = Deno.loadavg()[0]!;
      if (section === "cpu") measured.cpu = await cpuSection(run);
      if (section === "naive") {
        measured.naive = await naiveSection(run, naiveNets, faces, [1, 16]);
      }
      if (section === "flood") measured.floods = await floodSection(run, floodSeconds);
      if (section === "native500") measured.native500 = await native500Section(run);
      if (section === "v2rows") measured.v2rows = await v2RowsSection(run, v2Connections);
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
  loads.end = Deno.loadavg()[0]!;
  const minutes = ((performance.now() - started) / 60_000).toFixed(1);
  const results: Results = {
    machine: `${await machine()} (${loadBefore} at the start); ${minutes} min`,
    settings: `${quick ? "--quick: " : ""}${seconds} s windows after a 1 s warm-up, ${rounds} ` +
      `round${rounds === 1 ? "" : "s"}${
        sides.length === 2 ? ", sides alternating (A B, then B A)" : ""
      }, medians; floods ${floodSeconds} s; native faces --threads ${threads}`,
    checkouts: bySide(sides, (side) => checkouts[side]),
    loads,
    cores: navigator.hardwareConcurrency,
    ...measured,
  };
  const described: Results = {
    ...results,
    checkouts: {
      after: await describeCheckout(after),
      ...(before === undefined ? {} : { before: await describeCheckout(before) }),
    },
  };
  console.log(report(described));
  if (values.json !== undefined) {
    await Deno.writeTextFile(
      values.json,
      JSON.stringify({ results: described, samples: cells.raw() }, null, 1) + "\n",
    );
  }
}

try {
  await main();
} catch (error) {
  if (!(error instanceof UsageError)) throw error;
  console.error(`serving_path.ts: ${error.message}`);
  Deno.exit(2);
}
