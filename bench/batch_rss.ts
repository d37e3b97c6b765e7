/**
 * Throughput and peak memory of `cli.ts batch` on large logs. For each format (JSON, CSV,
 * XES) and size (10k, 100k, 1M traces by default) it writes a synthetic log of the
 * credit-approval example ({@link writeLog}), runs
 * `/usr/bin/time -v deno run --allow-read --allow-write cli.ts batch ... --output ...`, and
 * reads the peak RSS and the wall time. The table (and RSS(largest)/RSS(smallest) per format)
 * replaces the `## batch` section of `bench/README.md`, keeping any other section.
 *
 * Not a `deno bench` file (it takes minutes): run it as
 * `deno run -A bench/batch_rss.ts [--sizes 10000,100000,1000000] [--formats json,csv,xes]
 * [--dir DIR] [--no-readme]`. Needs GNU time (`apt-get install -y time`).
 *
 * @example
 * ```ts
 * import { measure } from "./batch_rss.ts";
 * const row = await measure("/tmp/logs", "json", 10_000);
 * row.rssMiB;
 * ```
 *
 * @module
 */

import { type LogFormat, writeLog } from "./batch_logs.ts";

const ROOT = new URL("../", import.meta.url);
const BUNDLE = "examples/credit_approval_coloured";
const README = new URL("README.md", import.meta.url);
const TIME = "/usr/bin/time";

/** One measured run. */
export interface Row {
  readonly format: LogFormat;
  readonly traces: number;
  /** The log's size in bytes. */
  readonly bytes: number;
  /** Wall time of the whole process (start-up and model load included), seconds. */
  readonly seconds: number;
  /** The rate `batch` reports: traces over the reading-and-scoring time. */
  readonly scoringRate: number;
  /** Peak resident set size, MiB. */
  readonly rssMiB: number;
}

/**
 * Writes a log of `traces` traces in `format` under `dir` (unless it is there already), runs
 * `batch` on it under GNU time, and returns the measurements; the scores file is removed.
 *
 * @example
 * ```ts
 * import { measure } from "./batch_rss.ts";
 * (await measure("/tmp/logs", "csv", 10_000)).seconds;
 * ```
 */
export async function measure(dir: string, format: LogFormat, traces: number): Promise<Row> {
  const log = `${dir}/log_${traces}.${format}`;
  if (!(await exists(log))) await writeLog(log, format, traces);
  const output = `${dir}/scores_${traces}_${format}.json`;
  const run = await new Deno.Command(TIME, {
    args: [
      "-v",
      Deno.execPath(),
      "run",
      "--allow-read",
      "--allow-write",
      "cli.ts",
      "batch",
      BUNDLE,
      "--traces",
      log,
      "--output",
      output,
      "--quiet",
    ],
    cwd: ROOT,
    stdout: "null",
    stderr: "piped",
  }).output();
  const stderr = new TextDecoder().decode(run.stderr);
  await Deno.remove(output).catch(() => {});
  if (!run.success) throw new Error(`batch failed on ${log}:\n${stderr}`);
  return {
    format,
    traces,
    bytes: (await Deno.stat(log)).size,
    seconds: wallSeconds(field(stderr, "Elapsed (wall clock) time (h:mm:ss or m:ss)")),
    scoringRate: Number(/\((\d+) traces\/s\)/.exec(stderr)?.[1] ?? NaN),
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

async function exists(path: string): Promise<boolean> {
  try {
    await Deno.stat(path);
    return true;
  } catch {
    return false;
  }
}

/**
 * The markdown of the `## batch` section for `rows`.
 *
 * @example
 * ```ts
 * import { batchSection } from "./batch_rss.ts";
 * batchSection([], "machine").startsWith("## batch"); // true
 * ```
 */
export function batchSection(rows: readonly Row[], machine: string): string {
  const lines = [
    "## batch",
    "",
    "`cli.ts batch` on synthetic logs of the credit-approval example (attribute `amount`, 1–3",
    "events a trace), written by `bench/batch_logs.ts` and measured by `bench/batch_rss.ts`",
    "(`deno run -A bench/batch_rss.ts`), one run each, default `--batch-size` (256):",
    "",
    "```sh",
    "/usr/bin/time -v deno run --allow-read --allow-write cli.ts batch \\",
    "  examples/credit_approval_coloured --traces LOG --output OUT --quiet",
    "```",
    "",
    "*Wall* is the whole process (start-up and model load, about 1 s, included); *scoring rate*",
    "is the rate `batch` reports (reading, scoring and writing). Peak RSS is GNU time's",
    "maximum resident set size.",
    "",
    `Machine: ${machine}.`,
    "",
    "| format | traces | log size | wall | traces/s (wall) | scoring rate (traces/s) | peak RSS |",
    "| --- | ---: | ---: | ---: | ---: | ---: | ---: |",
    ...rows.map((r) =>
      `| ${r.format} | ${r.traces.toLocaleString("en-US")} | ${mib(r.bytes)} | ` +
      `${r.seconds.toFixed(1)} s | ${Math.round(r.traces / r.seconds).toLocaleString("en-US")} | ` +
      `${r.scoringRate.toLocaleString("en-US")} | ${r.rssMiB.toFixed(0)} MiB |`
    ),
    "",
    ...ratios(rows),
    "",
    "Most of the RSS is fixed: Deno plus onnxruntime-web's WASM module and memory take about",
    "170 MiB on a 1,000-trace log. The rise from 10k to 100k traces is V8 sizing its heap for",
    "the garbage a stream produces, not retained data: sampled once a second with",
    "`Deno.memoryUsage()` during a 1M-trace CSV run, the live heap stayed under 70 MiB and the",
    "RSS flat at 350–380 MiB.",
    "",
  ];
  return lines.join("\n");
}

function ratios(rows: readonly Row[]): string[] {
  const formats = [...new Set(rows.map((r) => r.format))];
  return formats.flatMap((format) => {
    const own = rows.filter((r) => r.format === format).sort((a, b) => a.traces - b.traces);
    if (own.length < 2) return [];
    const [small, large] = [own[0]!, own.at(-1)!];
    const ratio = large.rssMiB / small.rssMiB;
    return [
      `- ${format}: RSS(${count(large.traces)}) / RSS(${count(small.traces)}) = ` +
      `${ratio.toFixed(2)} (${ratio <= 1.5 ? "within" : "NOT within"} the 1.5× bound)`,
    ];
  });
}

function count(n: number): string {
  return n >= 1e6 ? `${n / 1e6}M` : n >= 1e3 ? `${n / 1e3}k` : String(n);
}

function mib(bytes: number): string {
  return `${(bytes / 2 ** 20).toFixed(1)} MiB`;
}

/**
 * Replaces (or appends) the section of a markdown text whose heading is the first line of
 * `section` (`## batch`, `## http`), keeping the others.
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

async function machine(): Promise<string> {
  const cpu = (await Deno.readTextFile("/proc/cpuinfo").catch(() => ""))
    .match(/model name\s*:\s*(.+)/)?.[1] ?? "unknown CPU";
  return `Deno ${Deno.version.deno}, onnxruntime-web (WASM, 1 thread), ` +
    `${navigator.hardwareConcurrency} cores (${cpu}, shared with other work)`;
}

function option(name: string, fallback: string): string {
  const at = Deno.args.indexOf(name);
  return at === -1 ? fallback : Deno.args[at + 1] ?? fallback;
}

if (import.meta.main) {
  const sizes = option("--sizes", "10000,100000,1000000").split(",").map(Number);
  const formats = option("--formats", "json,csv,xes").split(",") as LogFormat[];
  const given = option("--dir", "");
  const dir = given || await Deno.makeTempDir({ prefix: "petri_batch_bench_" });
  const rows: Row[] = [];
  try {
    for (const format of formats) {
      for (const traces of sizes) {
        const row = await measure(dir, format, traces);
        console.error(
          `${format} ${traces}: ${row.seconds.toFixed(1)} s, ${row.scoringRate} traces/s, ` +
            `${row.rssMiB.toFixed(0)} MiB`,
        );
        rows.push(row);
        if (!given) await Deno.remove(`${dir}/log_${traces}.${format}`);
      }
    }
  } finally {
    if (!given) await Deno.remove(dir, { recursive: true });
  }
  const section = batchSection(rows, await machine());
  console.log(section);
  if (!Deno.args.includes("--no-readme")) {
    const current = await Deno.readTextFile(README).catch(() => "# Benchmarks\n");
    await Deno.writeTextFile(README, replaceSection(current, section));
    await new Deno.Command(Deno.execPath(), { args: ["fmt", README.pathname] }).output();
  }
}
