/**
 * `cli.ts batch` against its floor, in the same run: for each log, the model-free floor script
 * (`batch_floor.ts`: read, `JSON.parse` or split, write one PETRA-shaped entry per trace) and
 * `batch` are run one after the other as separate processes under GNU time, which gives each
 * one's wall time and peak RSS. The logs: 1M traces of the credit-approval example as JSON,
 * CSV and XES, 200k traces of the 59-place net of `wide_net.ts` and 50k of its 500-place net
 * as JSON, and 10k-trace credit logs, whose peak RSS is the baseline of the memory bound (RSS
 * at 1M within 1.3× of 10k). The two layered nets' logs are scored with both runtimes,
 * `batch --runtime wasm` (the default) and `batch --runtime native` (`onnxruntime-node`), one
 * after the other against one floor: the table's runtime column and the native ÷ WASM lines
 * under it (issue 21's goal: ≥ 1.5 on the 500-place net).
 *
 * Not a `deno bench` file (it takes a few minutes). One command prints the table:
 * `deno run -A bench/batch_rss.ts [--quick] [--dir DIR] [--runtimes wasm,native]
 * [--threads N] [--nets credit,wide,big] [--write-readme]`. `--quick` uses a tenth of the
 * traces; `--dir` keeps the logs there for the next run; `--runtimes` limits the layered nets'
 * runtimes, `--threads` is native's `--threads` (default 1), `--nets` measures only some logs;
 * `--write-readme` also puts the table in `bench/README.md` between its `batch-table` markers
 * (full runs only). Needs GNU time (`apt-get install -y time`).
 *
 * @example
 * ```ts
 * import { measure } from "./batch_rss.ts";
 * const row = await measure("/tmp/logs", { model: "credit", format: "json", traces: 10_000 });
 * if (row.floor) console.log(row.batch.seconds / row.floor.seconds);
 * ```
 *
 * @module
 */

import { type LogFormat, type LogModel, writeLog } from "./batch_logs.ts";
import { nativeLockFlag } from "./native_lock.ts";
import { bigModel, wideModel, writeBigBundle, writeWideBundle } from "./wide_net.ts";

const ROOT = new URL("../", import.meta.url);
const CREDIT_BUNDLE = "examples/credit_approval_coloured";
const CREDIT_TRANSITIONS = "t_approve,t_decline";
const README = new URL("README.md", import.meta.url);
const TIME = "/usr/bin/time";

/** The ORT runtimes `batch` can run with (`--runtime`). */
export type Runtime = "wasm" | "native";

/** One log to measure. */
export interface Case {
  readonly model: LogModel;
  readonly format: LogFormat;
  readonly traces: number;
  /** Measure `batch` only (an RSS baseline, or a log whose floor another case measured). */
  readonly batchOnly?: boolean;
  /** `batch --runtime` (default `wasm`). */
  readonly runtime?: Runtime;
  /** `batch --threads` for the native runtime (default 1). */
  readonly threads?: number;
}

/** One process run: wall time (start-up included) and peak RSS. */
export interface Run {
  readonly seconds: number;
  readonly rssMiB: number;
}

/** The floor and `batch` on one log. */
export interface Row {
  readonly case: Case;
  /** The log's size in bytes. */
  readonly bytes: number;
  readonly floor: Run | undefined;
  readonly batch: Run;
}

/**
 * Writes the log of `c` under `dir` (unless it is there), runs the floor (unless
 * `batchOnly`) and `batch` on it under GNU time, and returns both runs; outputs are removed.
 *
 * @example
 * ```ts
 * import { measure } from "./batch_rss.ts";
 * (await measure("/tmp/logs", { model: "wide", format: "json", traces: 1000 })).batch.rssMiB;
 * ```
 */
export async function measure(dir: string, c: Case): Promise<Row> {
  const log = `${dir}/${c.model}_${c.traces}.${c.format}`;
  if (!(await exists(log))) await writeLog(log, c.format, c.traces, c.model);
  const bundle = c.model === "credit" ? CREDIT_BUNDLE : await layeredBundle(dir, c.model);
  const transitions = c.model === "credit"
    ? CREDIT_TRANSITIONS
    : (c.model === "wide" ? wideModel() : bigModel()).net.transitions.join(",");
  const native = c.runtime === "native"
    ? ["--runtime", "native", "--threads", String(c.threads ?? 1)]
    : [];
  const output = `${dir}/scores.json`;
  const floor = c.batchOnly ? undefined : await timed(
    ["run", "--allow-read", "--allow-write", "bench/batch_floor.ts", log, output, transitions],
  );
  const batch = await timed([
    "run",
    "--allow-read",
    "--allow-write",
    ...(native.length > 0 ? ["--allow-ffi", nativeLockFlag()] : []),
    "cli.ts",
    "batch",
    bundle,
    "--traces",
    log,
    "--output",
    output,
    "--quiet",
    ...native,
  ]);
  await Deno.remove(output).catch(() => {});
  return { case: c, bytes: (await Deno.stat(log)).size, floor, batch };
}

async function layeredBundle(dir: string, model: "wide" | "big"): Promise<string> {
  const path = `${dir}/${model}.onnx`;
  if (await exists(path)) return path;
  return model === "wide" ? await writeWideBundle(dir) : await writeBigBundle(dir);
}

async function timed(args: string[]): Promise<Run> {
  const run = await new Deno.Command(TIME, {
    args: ["-v", Deno.execPath(), ...args],
    cwd: ROOT,
    stdout: "null",
    stderr: "piped",
    env: { NO_COLOR: "1" },
  }).output();
  const stderr = new TextDecoder().decode(run.stderr);
  if (!run.success) throw new Error(`${args.join(" ")} failed:\n${stderr}`);
  return {
    seconds: wallSeconds(field(stderr, "Elapsed (wall clock) time (h:mm:ss or m:ss)")),
    rssMiB: Number(field(stderr, "Maximum resident set size (kbytes)")) / 1024,
  };
}

function field(text: string, name: string): string {
  const line = text.split("\n").find((l) => l.trim().startsWith(name + ":"));
  if (line === undefined) throw new Error(`GNU time printed no '${name}'`);
  return line.slice(line.lastIndexOf(": ") + 2).trim();
}

/** `h:mm:ss` or `m:ss.ss` -> seconds. */
function wallSeconds(text: string): number {
  return text.split(":").reduce((total, part) => total * 60 + Number(part), 0);
}

/**
 * Whether `path` exists.
 *
 * @example
 * ```ts
 * import { exists } from "./batch_rss.ts";
 * await exists("deno.json"); // true
 * ```
 */
export async function exists(path: string): Promise<boolean> {
  try {
    await Deno.stat(path);
    return true;
  } catch {
    return false;
  }
}

/**
 * The markdown table of `rows`, then the RSS ratios (largest over smallest log per format).
 *
 * @example
 * ```ts
 * import { batchTable } from "./batch_rss.ts";
 * batchTable([]).startsWith("| log"); // true
 * ```
 */
export function batchTable(rows: readonly Row[]): string {
  const lines = [
    "| log | traces | size | runtime | floor | `batch` | `batch` traces/s | " +
    "batch speed ÷ floor | floor RSS | `batch` RSS |",
    "| --- | --: | --: | --- | --: | --: | --: | --: | --: | --: |",
    ...rows.map((r) => {
      const { format, traces } = r.case;
      const speed = r.floor ? (r.floor.seconds / r.batch.seconds).toFixed(2) : "";
      return `| ${MODEL_TITLES[r.case.model]}, ${format.toUpperCase()} | ` +
        `${count(traces)} | ${mib(r.bytes)} | ${runtimeTitle(r.case)} | ${
          r.floor ? `${r.floor.seconds.toFixed(2)} s` : ""
        } | ` +
        `${r.batch.seconds.toFixed(2)} s | ` +
        `${rate(traces / r.batch.seconds)} | ${speed} | ` +
        `${r.floor ? `${r.floor.rssMiB.toFixed(0)} MiB` : ""} | ${r.batch.rssMiB.toFixed(0)} MiB |`;
    }),
    "",
    ...rssRatios(rows),
    ...runtimeRatios(rows),
  ];
  return lines.join("\n");
}

const MODEL_TITLES: Readonly<Record<LogModel, string>> = {
  credit: "credit",
  wide: "59-place net",
  big: "500-place net",
};

function runtimeTitle(c: Case): string {
  return c.runtime === "native"
    ? `native, ${c.threads ?? 1} thread${(c.threads ?? 1) > 1 ? "s" : ""}`
    : "WASM";
}

/** Traces/s in thousands, with one decimal below 10k. */
function rate(perSecond: number): string {
  const k = perSecond / 1000;
  return `${k < 10 ? k.toFixed(1) : Math.round(k)}k`;
}

/** Per log scored with both runtimes: native traces/s over WASM's (the goal on 500 places). */
function runtimeRatios(rows: readonly Row[]): string[] {
  const lines: string[] = [];
  for (const wasm of rows.filter((r) => (r.case.runtime ?? "wasm") === "wasm")) {
    const { model, format, traces } = wasm.case;
    for (const native of rows) {
      const n = native.case;
      if (n.runtime !== "native" || n.model !== model || n.format !== format) continue;
      if (n.traces !== traces) continue;
      const ratio = wasm.batch.seconds / native.batch.seconds;
      const goal = model === "big" ? ` (goal ≥ 1.5): ${ratio >= 1.5 ? "met" : "**not met**"}` : "";
      lines.push(
        `- ${MODEL_TITLES[model]}, ${format.toUpperCase()}, ${count(traces)} traces: ` +
          `\`batch --runtime native\` (${runtimeTitle(n)}) = ${ratio.toFixed(2)}× WASM's ` +
          `traces/s${goal}`,
      );
    }
  }
  return lines;
}

function rssRatios(rows: readonly Row[]): string[] {
  const credit = rows.filter((r) => r.case.model === "credit");
  return [...new Set(credit.map((r) => r.case.format))].flatMap((format) => {
    const own = credit.filter((r) => r.case.format === format)
      .sort((a, b) => a.case.traces - b.case.traces);
    if (own.length < 2) return [];
    const [small, large] = [own[0]!, own.at(-1)!];
    const ratio = large.batch.rssMiB / small.batch.rssMiB;
    return [
      `- credit ${format.toUpperCase()}: \`batch\` peak RSS at ${count(large.case.traces)} ÷ at ` +
      `${count(small.case.traces)} = ${ratio.toFixed(2)} (bound: 1.3)`,
    ];
  });
}

function count(n: number): string {
  return n >= 1e6 ? `${n / 1e6}M` : n >= 1e3 ? `${n / 1e3}k` : String(n);
}

function mib(bytes: number): string {
  return `${(bytes / 2 ** 20).toFixed(0)} MiB`;
}

/**
 * Replaces the text between `<!-- batch-table -->` and `<!-- /batch-table -->` in `markdown`.
 *
 * @example
 * ```ts
 * import { replaceTable } from "./batch_rss.ts";
 * replaceTable("a\n<!-- batch-table -->\nold\n<!-- /batch-table -->\nb", "new");
 * // "a\n<!-- batch-table -->\nnew\n<!-- /batch-table -->\nb"
 * ```
 */
export function replaceTable(markdown: string, table: string): string {
  const open = "<!-- batch-table -->";
  const close = "<!-- /batch-table -->";
  const start = markdown.indexOf(open);
  const end = markdown.indexOf(close);
  if (start === -1 || end < start) throw new Error("bench/README.md has no batch-table markers");
  return `${markdown.slice(0, start + open.length)}\n${table}\n${markdown.slice(end)}`;
}

/**
 * Replaces (or appends) the section of a markdown text whose heading is the first line of
 * `section` (`## http`), keeping the others; `http_load.ts` writes its section with it.
 *
 * @example
 * ```ts
 * import { replaceSection } from "./batch_rss.ts";
 * replaceSection("# bench\n\n## batch\nold\n## other\nx\n", "## batch\nnew\n");
 * // "# bench\n\n## batch\nnew\n\n## other\nx\n"
 * ```
 */
export function replaceSection(markdown: string, section: string): string {
  const lines = markdown.split("\n");
  const heading = section.split("\n")[0]!.trim();
  const start = lines.findIndex((l) => l.trim() === heading);
  if (start === -1) return `${markdown.trimEnd()}\n\n${section.trimEnd()}\n`;
  let end = lines.findIndex((l, i) => i > start && /^##? /.test(l));
  if (end === -1) end = lines.length;
  const before = lines.slice(0, start).join("\n");
  const after = lines.slice(end).join("\n");
  return `${before}${before ? "\n" : ""}${section.trimEnd()}\n${after ? `\n${after}` : ""}`;
}

function option(name: string): string | undefined {
  const at = Deno.args.indexOf(name);
  return at === -1 ? undefined : Deno.args[at + 1];
}

/** The layered nets' cases: one per runtime, the floor measured with the first only. */
function layeredCases(
  model: LogModel,
  traces: number,
  runtimes: readonly Runtime[],
  threads: number,
) {
  return runtimes.map((runtime, i): Case => ({
    model,
    format: "json",
    traces,
    runtime,
    threads,
    batchOnly: i > 0,
  }));
}

if (import.meta.main) {
  const scale = Deno.args.includes("--quick") ? 10 : 1;
  const million = 1_000_000 / scale;
  const runtimes = (option("--runtimes") ?? "wasm,native").split(",")
    .filter((r): r is Runtime => r === "wasm" || r === "native");
  const threads = Number(option("--threads") ?? 1);
  const nets = (option("--nets") ?? "credit,wide,big").split(",");
  const subset = ["--runtimes", "--nets"].some((o) => Deno.args.includes(o));
  const all: Case[] = [
    { model: "credit", format: "json", traces: 10_000, batchOnly: true },
    { model: "credit", format: "json", traces: million },
    { model: "credit", format: "csv", traces: 10_000, batchOnly: true },
    { model: "credit", format: "csv", traces: million },
    { model: "credit", format: "xes", traces: 10_000, batchOnly: true },
    { model: "credit", format: "xes", traces: million },
    ...layeredCases("wide", 200_000 / scale, runtimes, threads),
    ...layeredCases("big", 50_000 / scale, runtimes, threads),
  ];
  const cases = all.filter((c) => nets.includes(c.model));
  const given = option("--dir");
  const dir = given ?? await Deno.makeTempDir({ prefix: "petri_batch_bench_" });
  if (given) await Deno.mkdir(dir, { recursive: true });
  const rows: Row[] = [];
  const load = () => Deno.loadavg().map((l) => l.toFixed(2)).join(" ");
  const loadBefore = load();
  try {
    for (const c of cases) {
      let row = await measure(dir, c);
      // A second runtime's row shares the floor measured for the same log.
      const same = rows.find((r) =>
        r.case.model === c.model && r.case.format === c.format && r.case.traces === c.traces
      );
      if (row.floor === undefined && same?.floor && c.model !== "credit") {
        row = { ...row, floor: same.floor };
      }
      console.error(
        `${c.model} ${c.format} ${c.traces} ${c.runtime ?? "wasm"}: ` +
          `floor ${row.floor?.seconds.toFixed(2) ?? "-"} s, ` +
          `batch ${row.batch.seconds.toFixed(2)} s, ${row.batch.rssMiB.toFixed(0)} MiB`,
      );
      rows.push(row);
    }
  } finally {
    if (!given) await Deno.remove(dir, { recursive: true });
  }
  const table = `${batchTable(rows)}\n\nLoad average (1, 5, 15 min) before: ${loadBefore}; ` +
    `after: ${load()}.`;
  console.log(table);
  if (Deno.args.includes("--write-readme")) {
    if (subset) throw new Error("--write-readme needs a full run (no --runtimes or --nets)");
    await Deno.writeTextFile(README, replaceTable(await Deno.readTextFile(README), table));
    await new Deno.Command(Deno.execPath(), { args: ["fmt", README.pathname] }).output();
  }
}
