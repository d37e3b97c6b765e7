/**
 * Range shards against one whole run, in the same run: for each log (1M credit traces as XES
 * and as JSON, from `batch_logs.ts`), `cli.ts batch` scores the whole log, then the log as 4
 * and as 8 range shards run one after another, read from disk and from a local HTTP server on
 * 127.0.0.1 that honours `Range` (served by this script, which counts the bytes it sends each
 * shard); each run is a separate process under GNU time, whose user + system CPU time is the
 * measure (less sensitive than wall time to the other work on a shared machine). Each is run
 * as `deno run` runs by default, and with `--v8-flags=--liftoff-only` (no optimising
 * recompilation of onnxruntime-web's WebAssembly, which every process otherwise pays once).
 * The shards' parts are merged and compared with the default whole run's output, byte for
 * byte.
 *
 * Goals (issue 20): the shards' summed CPU time within 1.25× the whole run's; each shard
 * reading at most S/N + 1 MiB of the log's S bytes (the shard's own count of bytes read from
 * disk; the server's count of bytes sent).
 *
 * Not a `deno bench` file (it takes minutes). One command prints the table:
 * `deno run -A bench/batch_shards.ts [--traces N] [--dir DIR] [--write-readme]`; `--dir`
 * keeps the logs there for the next run; `--write-readme` also puts the table in
 * `bench/README.md` between its `shards-table` markers. Needs GNU time (`apt-get install -y
 * time`).
 *
 * @example
 * ```ts
 * import { shardTable } from "./batch_shards.ts";
 * shardTable([]).startsWith("| log"); // true
 * ```
 *
 * @module
 */

import { parseArgs } from "node:util";
import { writeLog } from "./batch_logs.ts";
import { exists } from "./batch_rss.ts";

const ROOT = new URL("../", import.meta.url);
const BUNDLE = "examples/credit_approval_coloured";
const README = new URL("README.md", import.meta.url);
const TIME = "/usr/bin/time";
const MiB = 1024 * 1024;

/** One process: its CPU (user + system) and wall seconds, and what it said on stderr. */
interface Timed {
  readonly cpu: number;
  readonly wall: number;
  readonly stderr: string;
}

/** One way of scoring a log: whole, or N shards from disk or HTTP. */
export interface Row {
  readonly log: string;
  readonly bytes: number;
  readonly how: string;
  readonly shards: number;
  /** Summed over the processes. */
  readonly cpu: number;
  readonly wall: number;
  /** The most bytes one shard read (disk: its own count; HTTP: the server's). */
  readonly maxRead: number | undefined;
  /** S/N + 1 MiB. */
  readonly readBound: number | undefined;
  /** The merged parts equal the whole run's output. */
  readonly same: boolean | undefined;
  /** The whole run's CPU, for the ratio. */
  readonly baseCpu: number;
}

async function timed(args: string[]): Promise<Timed> {
  const run = await new Deno.Command(TIME, {
    args: ["-f", "TIME %U %S %e", Deno.execPath(), ...args],
    cwd: ROOT,
    stdout: "null",
    stderr: "piped",
    env: { NO_COLOR: "1" },
  }).output();
  const stderr = new TextDecoder().decode(run.stderr);
  if (!run.success) throw new Error(`${args.join(" ")} failed:\n${stderr}`);
  const match = /^TIME ([\d.]+) ([\d.]+) ([\d.]+)$/m.exec(stderr);
  if (!match) throw new Error(`GNU time printed no times:\n${stderr}`);
  return {
    cpu: Number(match[1]) + Number(match[2]),
    wall: Number(match[3]),
    stderr,
  };
}

function batchArgs(log: string, output: string, extra: string[] = []): string[] {
  return [
    "run",
    "--allow-read",
    "--allow-write",
    ...extra,
    "cli.ts",
    "batch",
    BUNDLE,
    "--traces",
    log,
    "-o",
    output,
    "-q",
  ];
}

/** A server on 127.0.0.1 sending ranges of `path`'s bytes, counting what it sends. */
function rangeServer(
  bytes: Uint8Array<ArrayBuffer>,
): { port: number; sent: () => number; reset: () => void } & AsyncDisposable {
  let sent = 0;
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, (request) => {
    const match = /^bytes=(\d+)-(\d*)$/.exec(request.headers.get("range") ?? "");
    if (!match) {
      sent += bytes.length;
      return new Response(bytes);
    }
    const start = Number(match[1]);
    const end = Math.min(match[2] ? Number(match[2]) : bytes.length - 1, bytes.length - 1);
    sent += end - start + 1;
    return new Response(bytes.subarray(start, end + 1), {
      status: 206,
      headers: { "content-range": `bytes ${start}-${end}/${bytes.length}` },
    });
  });
  return {
    port: server.addr.port,
    sent: () => sent,
    reset: () => sent = 0,
    [Symbol.asyncDispose]: () => server.shutdown(),
  };
}

/** How `deno` runs `batch`: its own flags before the script. */
interface Variant {
  readonly label: string;
  readonly flags: readonly string[];
}

/**
 * The default, and V8's baseline WebAssembly compiler only: each process then skips compiling
 * onnxruntime-web's hot functions again with the optimising compiler (about 1 s of CPU a
 * process on this machine), which shards would pay N times.
 */
const VARIANTS: readonly Variant[] = [
  { label: "default", flags: [] },
  { label: "`--v8-flags=--liftoff-only`", flags: ["--v8-flags=--liftoff-only"] },
];

async function measureLog(dir: string, format: "xes" | "json", traces: number): Promise<Row[]> {
  const log = `${dir}/credit_${traces}.${format}`;
  if (!(await exists(log))) await writeLog(log, format, traces);
  const bytes = (await Deno.stat(log)).size;
  const name = `credit ${format.toUpperCase()}, ${traces / 1e6}M traces`;
  const wholeOut = `${dir}/whole.json`;
  const content = await Deno.readFile(log);
  await using server = rangeServer(content);
  const rows: Row[] = [];
  for (const variant of VARIANTS) {
    const out = variant.flags.length === 0 ? wholeOut : `${dir}/whole_variant.json`;
    const whole = await timed(batchArgs(log, out, [...variant.flags]));
    const same = out === wholeOut ? undefined : await sameBytes(out, wholeOut);
    rows.push({
      log: name,
      bytes,
      how: `whole log, one process (${variant.label})`,
      shards: 1,
      cpu: whole.cpu,
      wall: whole.wall,
      maxRead: undefined,
      readBound: undefined,
      same,
      baseCpu: whole.cpu,
    });
    // HTTP with the second variant only: the bytes are the point there.
    const sources = variant.flags.length === 0 ? ["disk"] as const : ["disk", "HTTP"] as const;
    for (const source of sources) {
      // One range shard of one (disk only): the reading's own cost, without more processes.
      for (const count of source === "disk" ? [1, 4, 8] : [4, 8]) {
        let cpu = 0;
        let wall = 0;
        let maxRead = 0;
        const parts: string[] = [];
        for (let i = 0; i < count; i++) {
          const part = `${dir}/part${i}.json`;
          const host = `127.0.0.1:${server.port}`;
          const traces = source === "disk" ? log : `http://${host}/credit.${format}`;
          const extra = source === "disk" ? [] : [`--allow-net=${host}`];
          server.reset();
          const run = await timed([
            ...batchArgs(traces, part, [...variant.flags, ...extra]),
            "--shard",
            `${i}/${count}`,
          ]);
          const read = source === "disk"
            ? Number(/; (\d+) bytes read /.exec(run.stderr)?.[1] ?? NaN)
            : server.sent();
          cpu += run.cpu;
          wall += run.wall;
          maxRead = Math.max(maxRead, read);
          parts.push(part);
        }
        const merged = `${dir}/merged.json`;
        await timed([
          "run",
          "--allow-read",
          "--allow-write",
          "cli.ts",
          "merge",
          ...parts,
          "-o",
          merged,
        ]);
        const same = await sameBytes(merged, wholeOut);
        for (const path of [...parts, merged]) await Deno.remove(path);
        rows.push({
          log: name,
          bytes,
          how: `${count} range shard${count === 1 ? "" : "s"}, from ${source} (${variant.label})`,
          shards: count,
          cpu,
          wall,
          maxRead,
          readBound: bytes / count + MiB,
          same,
          baseCpu: whole.cpu,
        });
      }
    }
  }
  await Deno.remove(wholeOut);
  await Deno.remove(`${dir}/whole_variant.json`).catch(() => {});
  return rows;
}

async function sameBytes(a: string, b: string): Promise<boolean> {
  const run = await new Deno.Command("cmp", { args: ["-s", a, b] }).output();
  return run.success;
}

/**
 * The markdown table of `rows`.
 *
 * @example
 * ```ts
 * import { shardTable } from "./batch_shards.ts";
 * shardTable([]).split("\n").length; // 2: the head
 * ```
 */
export function shardTable(rows: readonly Row[]): string {
  return [
    "| log | size | how | CPU (user + sys), summed | ÷ whole, same flags (goal ≤ 1.25) | " +
    "wall, summed | most bytes a shard read | bound S/N + 1 MiB | output = default whole run |",
    "| --- | --: | --- | --: | --: | --: | --: | --: | --- |",
    ...rows.map((r) =>
      `| ${r.log} | ${mib(r.bytes)} | ${r.how} | ${r.cpu.toFixed(1)} s | ` +
      `${(r.cpu / r.baseCpu).toFixed(2)} | ${r.wall.toFixed(1)} s | ` +
      `${r.maxRead === undefined ? "" : mib(r.maxRead)} | ` +
      `${r.readBound === undefined ? "" : mib(r.readBound)} | ` +
      `${r.same === undefined ? "" : r.same ? "yes" : "**no**"} |`
    ),
  ].join("\n");
}

/**
 * What the shards' CPU is made of, per log and flags: the reading's own cost (one range shard
 * of one against the whole run) and the cost of each further process, from the N-shard sums.
 *
 * @example
 * ```ts
 * import { costLines } from "./batch_shards.ts";
 * costLines([]).length; // 0
 * ```
 */
export function costLines(rows: readonly Row[]): string[] {
  const lines: string[] = [];
  for (const one of rows.filter((r) => r.shards === 1 && r.how.startsWith("1 range shard"))) {
    const flags = one.how.slice(one.how.indexOf("("));
    const extra = rows
      .filter((r) => r.log === one.log && r.shards > 1 && r.how.endsWith(flags))
      .map((r) =>
        `${((r.cpu - one.cpu) / (r.shards - 1)).toFixed(2)} s (N = ${r.shards}, ${
          r.how.includes("HTTP") ? "HTTP" : "disk"
        })`
      );
    lines.push(
      `- ${one.log} ${flags}: range reading costs ${one.cpu.toFixed(1)} s against the whole ` +
        `run's ${one.baseCpu.toFixed(1)} s (×${(one.cpu / one.baseCpu).toFixed(2)}); each ` +
        `further process adds ${extra.join(", ")}`,
    );
  }
  return lines;
}

function mib(bytes: number): string {
  return `${(bytes / MiB).toFixed(1)} MiB`;
}

async function loadAverage(): Promise<string> {
  return (await Deno.readTextFile("/proc/loadavg")).split(" ").slice(0, 3).join(" ");
}

if (import.meta.main) {
  const { values } = parseArgs({
    args: Deno.args,
    options: {
      traces: { type: "string", default: "1000000" },
      dir: { type: "string" },
      "write-readme": { type: "boolean", default: false },
    },
  });
  const dir = values.dir ?? await Deno.makeTempDir({ prefix: "petri_shards_" });
  await Deno.mkdir(dir, { recursive: true });
  const before = await loadAverage();
  const rows: Row[] = [];
  for (const format of ["xes", "json"] as const) {
    rows.push(...await measureLog(dir, format, Number(values.traces)));
    console.error(`done: ${format}`);
  }
  const after = await loadAverage();
  const table = `${shardTable(rows)}\n\n${costLines(rows).join("\n")}`;
  const note = `Load average (1, 5, 15 min) before: ${before}; after: ${after}.`;
  console.log(`${table}\n\n${note}`);
  if (values["write-readme"]) {
    const text = await Deno.readTextFile(README);
    const open = "<!-- shards-table -->";
    const close = "<!-- /shards-table -->";
    const start = text.indexOf(open);
    const end = text.indexOf(close);
    if (start === -1 || end === -1) throw new Error("bench/README.md has no shards-table markers");
    await Deno.writeTextFile(
      README,
      `${text.slice(0, start + open.length)}\n\n${table}\n\n${note}\n\n${text.slice(end)}`,
    );
  }
  if (values.dir === undefined) await Deno.remove(dir, { recursive: true });
}
