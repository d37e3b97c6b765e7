/**
 * The ORT micro-benchmark of issue 21: ONNX Runtime runs per second of the compiled graphs, by
 * net size (the 3-place credit example, the 59-place net of `wide_net.ts`, 500- and 2,000-place
 * nets of `layered_net.ts`), batch (1, 16, 64, 256 rows), forward and gradient runs
 * (`with_gradient`), onnxruntime-web (WASM, 1 thread) against `onnxruntime-node` (native CPU,
 * 1 and 2 intra-op threads), all in one process and one run. It calls `session.run` directly on
 * tensors prepared once per cell, so it measures ORT, not petri-serve's code around it. Each
 * cell: a warm-up (a few runs), then runs one after another for `--ms` milliseconds; the three
 * runtimes take each cell in turn, so drift on a shared machine hits them alike.
 *
 * Not a `deno bench` file: run it as
 * `deno run -A bench/ort_micro.ts [--ms 300] [--nets 3,59,500,2000] [--batches 1,16,64,256]
 * [--runtimes wasm,native1,native2] [--write-readme]`. `--write-readme` puts the table in the
 * `## ort` section of `bench/README.md` (only for a full run). Bundles are compiled into a
 * temporary directory (0.2 s for 2,000 places) and removed at the end. Loading
 * onnxruntime-node adds it to deno.lock, which must not name it, so the script runs itself
 * again in a subprocess with `--lock` on a copy (`native_lock.ts`).
 *
 * @example
 * ```ts
 * import { ortSection } from "./ort_micro.ts";
 * ortSection([], "machine", 300).startsWith("## ort"); // true
 * ```
 *
 * @module
 */

import * as ortWeb from "onnxruntime-web";
import { compileBundle } from "../core/bundle/mod.ts";
import { decodeModel } from "../core/onnx/mod.ts";
import type { OrtModule, OrtSession, OrtTensor } from "../core/runtime/mod.ts";
import type { PetriModel } from "../core/net/mod.ts";
import { EXAMPLE_BUNDLE_URL } from "../adapter/deno/bundle_files.ts";
import { importOnnxruntimeNode } from "../adapter/deno/native_ort.ts";
import { nativeLockFlag } from "./native_lock.ts";
import { mulberry32 } from "../tests/random.ts";
import { replaceSection } from "./batch_rss.ts";
import { layeredModel } from "./layered_net.ts";
import { wideModel } from "./wide_net.ts";

const README = new URL("README.md", import.meta.url);

/** The measured runtimes: WASM with one thread, native with one and with two intra-op threads. */
export const RUNTIMES = ["wasm", "native1", "native2"] as const;
/** One of {@link RUNTIMES}. */
export type Runtime = typeof RUNTIMES[number];

const RUNTIME_TITLES: Readonly<Record<Runtime, string>> = {
  wasm: "WASM, 1 thread",
  native1: "native, 1 thread",
  native2: "native, 2 threads",
};

/** The net sizes (places) measured by default. */
export const NET_SIZES = [3, 59, 500, 2000] as const;
/** The batch sizes (rows per run) measured by default. */
export const BATCHES = [1, 16, 64, 256] as const;

/** One timed cell: runs of one session on one prepared batch. */
export interface Timing {
  readonly runs: number;
  readonly seconds: number;
}

/** One row of the table: a net, a batch size and a kind of run, timed on each runtime. */
export interface Row {
  readonly places: number;
  readonly transitions: number;
  readonly batch: number;
  readonly gradient: boolean;
  readonly timings: Readonly<Partial<Record<Runtime, Timing>>>;
}

/**
 * Runs `session` on `feeds` for about `ms` milliseconds (at least three runs) after a warm-up
 * of `warmUpMs` milliseconds (at least three runs), and counts the timed runs.
 *
 * @example
 * ```ts
 * import * as ort from "onnxruntime-web";
 * import { feedsFor, timeRuns } from "./ort_micro.ts";
 * const bytes = await Deno.readFile("examples/credit_approval_coloured/credit_approval_coloured.onnx");
 * const session = await ort.InferenceSession.create(bytes);
 * const { runs, seconds } = await timeRuns(session, feedsFor(ort, 16, 3, 2, false), 300);
 * console.log(`${runs / seconds} runs/s`);
 * ```
 */
export async function timeRuns(
  session: OrtSession,
  feeds: Readonly<Record<string, OrtTensor>>,
  ms: number,
  warmUpMs = ms / 3,
): Promise<Timing> {
  const warm = performance.now();
  for (let i = 0; i < 3 || performance.now() - warm < warmUpMs; i++) await session.run(feeds);
  const start = performance.now();
  let runs = 0;
  let now = start;
  while (runs < 3 || now - start < ms) {
    await session.run(feeds);
    runs++;
    now = performance.now();
  }
  return { runs, seconds: (now - start) / 1000 };
}

/**
 * The feeds of one batch of `batch` rows for a graph of `P` places and `T` transitions:
 * seeded markings in [0, 1) supplied for every place, no values, a cotangent of 1 on every
 * transition, built with `ort`'s own `Tensor`.
 */
export function feedsFor(
  ort: OrtModule,
  batch: number,
  P: number,
  T: number,
  gradient: boolean,
): Record<string, OrtTensor> {
  const random = mulberry32(batch * 7919 + P);
  const marking = Float32Array.from({ length: batch * P }, () => random());
  return {
    marking: new ort.Tensor("float32", marking, [batch, P]),
    marking_mask: new ort.Tensor("float32", new Float32Array(batch * P).fill(1), [batch, P]),
    values: new ort.Tensor("float32", new Float32Array(batch * P), [batch, P]),
    values_mask: new ort.Tensor("float32", new Float32Array(batch * P), [batch, P]),
    target: new ort.Tensor("float32", new Float32Array(batch * T).fill(1), [batch, T]),
    with_gradient: new ort.Tensor("bool", [gradient], []),
  };
}

/**
 * The markdown of the `## ort` section for `rows`.
 *
 * @example
 * ```ts
 * import { ortSection } from "./ort_micro.ts";
 * ortSection([{
 *   places: 3,
 *   transitions: 2,
 *   batch: 1,
 *   gradient: false,
 *   timings: { wasm: { runs: 100, seconds: 0.01 }, native1: { runs: 200, seconds: 0.01 } },
 * }], "machine", 300).includes("| 3 | 1 | forward | 100.0 | 10,000 | 50.0 | 20,000 | 2.00 |"); // true
 * ```
 */
export function ortSection(rows: readonly Row[], machine: string, ms: number): string {
  const runtimes = RUNTIMES.filter((r) => rows.some((row) => row.timings[r] !== undefined));
  const natives = runtimes.filter((r) => r !== "wasm");
  const hasWasm = runtimes.includes("wasm");
  const head = [
    "places",
    "batch",
    "run",
    ...runtimes.flatMap((r) => [
      `${RUNTIME_TITLES[r]} µs / run`,
      "runs / s",
      ...(r !== "wasm" && hasWasm ? ["÷ WASM"] : []),
    ]),
  ];
  const perSecond = (t: Timing) => t.runs / t.seconds;
  const cells = (row: Row, runtime: Runtime) => {
    const t = row.timings[runtime];
    const wasm = row.timings.wasm;
    const withRatio = runtime !== "wasm" && hasWasm;
    if (t === undefined) return withRatio ? ["—", "—", "—"] : ["—", "—"];
    return [
      (1e6 / perSecond(t)).toFixed(1),
      Math.round(perSecond(t)).toLocaleString("en-US"),
      ...(withRatio ? [wasm ? (perSecond(t) / perSecond(wasm)).toFixed(2) : "—"] : []),
    ];
  };
  return [
    "## ort",
    "",
    "`bench/ort_micro.ts` (`deno run -A bench/ort_micro.ts [--ms 300] [--write-readme]`): ONNX",
    "Runtime alone, in one Deno process: `session.run` called directly on tensors prepared once",
    "per cell (every place's marking supplied, a cotangent of 1 on every transition for",
    "gradient runs), so it measures ORT, not petri-serve's code. onnxruntime-web 1.30 (WASM, 1",
    "thread, in-process) against `onnxruntime-node` 1.30 (native CPU execution provider,",
    "`intraOpNumThreads` 1 or 2, `interOpNumThreads` 1), on the same compiled graphs: the",
    "credit-approval example, the 59-place net of `bench/wide_net.ts` and 500- and 2,000-place",
    `nets of \`bench/layered_net.ts\`. Each session first runs for 1 s (V8 tiers WASM up), then`,
    `each cell: ${Math.round(ms / 3)} ms of warm-up runs, then runs for ${ms} ms; the runtimes`,
    "take each cell in turn. _÷ WASM_ is the runtime's runs/s over WASM's in the same",
    "cell (above 1: faster than WASM).",
    "",
    `Machine: ${machine}.`,
    "",
    `| ${head.join(" | ")} |`,
    `| ${head.map((_, i) => (i < 3 ? "---" : "---:")).join(" | ")} |`,
    ...rows.map((row) =>
      `| ${
        [
          String(row.places),
          String(row.batch),
          row.gradient ? "gradient" : "forward",
          ...runtimes.flatMap((r) => cells(row, r)),
        ].join(" | ")
      } |`
    ),
    "",
    ...summary(rows, natives),
  ].join("\n");
}

/** Per net, the range of each native runtime's speed-up over WASM. */
function summary(rows: readonly Row[], natives: readonly Runtime[]): string[] {
  const lines: string[] = [];
  for (const places of new Set(rows.map((r) => r.places))) {
    for (const native of natives) {
      const ratios = rows.filter((r) => r.places === places).flatMap((r) => {
        const [n, w] = [r.timings[native], r.timings.wasm];
        return n && w ? [(n.runs / n.seconds) / (w.runs / w.seconds)] : [];
      });
      if (ratios.length === 0) continue;
      lines.push(
        `- ${places} places, ${RUNTIME_TITLES[native]}: ${Math.min(...ratios).toFixed(2)}–${
          Math.max(...ratios).toFixed(2)
        }× WASM's runs/s`,
      );
    }
  }
  return lines;
}

/** The bench's model of `places` places: the example is read from its bundle instead. */
function modelOf(places: number): PetriModel {
  return places === 59 ? wideModel() : layeredModel(places);
}

async function machine(): Promise<string> {
  const cpu = (await Deno.readTextFile("/proc/cpuinfo").catch(() => ""))
    .match(/model name\s*:\s*(.+)/)?.[1] ?? "unknown CPU";
  return `Deno ${Deno.version.deno}, ${navigator.hardwareConcurrency} cores (${cpu}), ` +
    `load average before the run ${Deno.loadavg().map((l) => l.toFixed(2)).join(" ")}`;
}

function textOption(name: string): string | undefined {
  const at = Deno.args.indexOf(name);
  return at === -1 ? undefined : Deno.args[at + 1];
}

function listOption(name: string, all: readonly string[]): string[] {
  const text = textOption(name);
  return text === undefined ? [...all] : text.split(",").filter((x) => all.includes(x));
}

/** Set in the subprocess that runs with a copy of deno.lock. */
const CHILD = "PETRI_ORT_MICRO_LOCKED";

if (import.meta.main && Deno.env.get(CHILD) !== "1") {
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", nativeLockFlag(), new URL(import.meta.url).pathname, ...Deno.args],
    env: { [CHILD]: "1" },
    stdin: "null",
  });
  const { code } = await child.spawn().status;
  dispatchEvent(new Event("unload"));
  Deno.exit(code);
} else if (import.meta.main) {
  const ms = Number(textOption("--ms") ?? 300);
  const nets = listOption("--nets", NET_SIZES.map(String)).map(Number);
  const batches = listOption("--batches", BATCHES.map(String)).map(Number);
  const runtimes = listOption("--runtimes", RUNTIMES) as Runtime[];
  const subset = ["--nets", "--batches", "--runtimes"].some((o) => Deno.args.includes(o));
  const about = await machine();
  ortWeb.env.wasm.numThreads = 1;
  const modules: Partial<Record<Runtime, OrtModule>> = {};
  if (runtimes.includes("wasm")) modules.wasm = ortWeb;
  if (runtimes.some((r) => r !== "wasm")) {
    const native = await importOnnxruntimeNode();
    modules.native1 = native;
    modules.native2 = native;
  }
  const options: Readonly<Record<Runtime, object>> = {
    wasm: {},
    native1: { intraOpNumThreads: 1, interOpNumThreads: 1 },
    native2: { intraOpNumThreads: 2, interOpNumThreads: 1 },
  };
  const dir = await Deno.makeTempDir({ prefix: "petri_ort_micro_" });
  const rows: Row[] = [];
  try {
    for (const places of nets) {
      let onnx: Uint8Array;
      let P: number, T: number;
      if (places === 3) {
        onnx = await Deno.readFile(EXAMPLE_BUNDLE_URL);
        const net = decodeModel(onnx).metadataProps?.find((p) => p.key === "petri_serve.net");
        const { places, transitions } = JSON.parse(net?.value ?? "{}");
        [P, T] = [places.length, transitions.length];
      } else {
        const model = modelOf(places);
        const path = `${dir}/net_${places}.onnx`;
        await Deno.writeFile(path, (await compileBundle(model, { savedAt: new Date(0) })).onnx);
        onnx = await Deno.readFile(path);
        [P, T] = [model.net.places.length, model.net.transitions.length];
      }
      const sessions: Partial<Record<Runtime, OrtSession>> = {};
      for (const runtime of runtimes) {
        const session = await modules[runtime]!.InferenceSession.create(onnx, options[runtime]);
        sessions[runtime] = session;
        await timeRuns(session, feedsFor(modules[runtime]!, 16, P, T, true), 0, 1000);
      }
      try {
        for (const batch of batches) {
          for (const gradient of [false, true]) {
            const timings: Partial<Record<Runtime, Timing>> = {};
            for (const runtime of runtimes) {
              const feeds = feedsFor(modules[runtime]!, batch, P, T, gradient);
              timings[runtime] = await timeRuns(sessions[runtime]!, feeds, ms);
            }
            rows.push({ places: P, transitions: T, batch, gradient, timings });
            console.error(
              `${P} places, B=${batch}, ${gradient ? "gradient" : "forward"}: ` +
                Object.entries(timings).map(([r, t]) =>
                  `${r} ${(1e6 * t.seconds / t.runs).toFixed(1)} µs`
                ).join(", "),
            );
          }
        }
      } finally {
        for (const session of Object.values(sessions)) await session.release();
      }
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
  const loadAfter = Deno.loadavg().map((l) => l.toFixed(2)).join(" ");
  const section = ortSection(rows, `${about}, after ${loadAfter}`, ms);
  console.log(section);
  if (Deno.args.includes("--write-readme")) {
    if (subset) throw new Error("--write-readme needs a full run (no --nets/--batches/--runtimes)");
    await Deno.writeTextFile(README, replaceSection(await Deno.readTextFile(README), section));
    await new Deno.Command(Deno.execPath(), { args: ["fmt", README.pathname] }).output();
  }
}
