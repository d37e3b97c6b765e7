/**
 * `POST /batch` against `cli.ts batch`, in one run, on the same credit-approval log
 * (`batch_logs.ts`): `batch` scores the file (its rate after start-up, from its summary line);
 * then a real `cli.ts serve` on the same bundle, warmed up (the first log measures the batch
 * size, as `batch`'s start-up does), gets the log posted over loopback by `curl -T` (streamed
 * from the file), its answer written to a file; traces/s is traces over curl's wall time, and
 * the two outputs must be the same bytes. One more post goes over HTTP/2 (h2c), whose flow
 * control bounds what the server holds of the upload (Deno 2.9's HTTP/1.1 server reads an
 * upload ahead into memory while an answer streams). The server's RSS is read from `/proc` before (idle)
 * and every 100 ms during the post (peak). Last, `/forward` at a steady rate (`wrk`, a pause
 * before each request of each connection) for a few seconds idle, then again while logs are
 * posted one after another: p50 and p99 of both.
 *
 * Goals (issue 28): traces/s ≥ 0.8 × `batch`'s, peak RSS ≤ idle + 256 MiB, `/forward` p99
 * with a log streaming ≤ 2 × idle p99.
 *
 * Each measure is taken in rounds, each side first in turn, and the medians reported: the
 * machine may be shared, and a load spike should hit both sides of a ratio alike.
 *
 * `deno run -A bench/batch_http.ts [--traces 1000000] [--format json|csv|xes] [--dir DIR]
 * [--rounds 3] [--seconds 5] [--connections 4] [--delay-ms 20] [--v8-flags=FLAGS] [--during-http2]
 * [--during-pace MBPS] [--write-readme]`. `--dir` keeps the log for the next run; `--v8-flags`
 * starts the server with those V8 flags; `--during-http2` posts the logs that stream while
 * `/forward` is measured over HTTP/2, `--during-pace` with their uploads paced at MBPS MB/s (so
 * that Deno holds none of them); `--write-readme` puts the table in `bench/README.md` between its
 * `batch-http-table` markers. Needs `curl` and `wrk`.
 *
 * @example
 * ```ts
 * import { postLog } from "./batch_http.ts";
 * const run = await postLog("http://127.0.0.1:8000", "/tmp/log.json", "json", "/tmp/out.json");
 * run.seconds;
 * ```
 *
 * @module
 */

import { parseArgs } from "node:util";
import { type LogFormat, writeLog } from "./batch_logs.ts";
import { EXAMPLE_BODIES } from "./http_bodies.ts";
import { machine } from "./machine.ts";
import { runBatch } from "./playground_log_bench.ts";
import { runWrk, type WrkResult } from "./wrk.ts";
import { startServerProcess } from "../tests/cli/serve/server_process.ts";

const BUNDLE = "examples/credit_approval_coloured";
const README = new URL("README.md", import.meta.url);
const CONTENT_TYPES: Readonly<Record<LogFormat, string>> = {
  json: "application/json",
  csv: "text/csv",
  xes: "application/xml",
};
/** `cli.ts serve` on the credit bundle, on a free port. */
const SERVE = ["run", "-A", "cli.ts", "serve", BUNDLE, "--port", "0", "--access-log", "off"];
/** Logs posted one after another while `/forward` is measured, at most. */
const MAX_LOGS_DURING = 20;

/** What one post of a log took. */
export interface Post {
  readonly seconds: number;
  /** The server's largest RSS sampled during the post, in MiB (when its pid is given). */
  readonly peakMiB: number;
}

/**
 * Posts `log` to `origin`'s `/batch` with `curl -T` and writes the answer to `out`; samples
 * the RSS of `pid` every 100 ms meanwhile.
 *
 * @throws {Error} when curl fails or the answer is not 200.
 */
export async function postLog(
  origin: string,
  log: string,
  format: LogFormat,
  out: string,
  pid?: number,
  http2 = false,
): Promise<Post> {
  let peak = pid === undefined ? 0 : await rssMiB(pid);
  let sampling = true;
  const sampler = (async () => {
    while (sampling && pid !== undefined) {
      peak = Math.max(peak, await rssMiB(pid));
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  })();
  const started = performance.now();
  const output = await new Deno.Command("curl", {
    args: [
      "-sS",
      ...(http2 ? ["--http2-prior-knowledge"] : []),
      "-X",
      "POST",
      "-T",
      log,
      "-H",
      `content-type: ${CONTENT_TYPES[format]}`,
      "-o",
      out,
      "-w",
      "%{http_code}",
      `${origin}/batch`,
    ],
    stdin: "null",
  }).output();
  const seconds = (performance.now() - started) / 1000;
  sampling = false;
  await sampler;
  const status = new TextDecoder().decode(output.stdout);
  if (output.code !== 0 || status !== "200") {
    throw new Error(
      `curl ${log}: exit ${output.code}, status ${status}: ${
        new TextDecoder().decode(output.stderr)
      }`,
    );
  }
  return { seconds, peakMiB: peak };
}

/**
 * Posts `log` to `origin`'s `/batch` over one HTTP/1.1 connection with its upload paced at
 * `bytesPerSecond` (256 KiB at a time), reading the answer meanwhile and dropping it: a client
 * that sends no faster than the log is scored leaves Deno nothing to read ahead.
 *
 * @throws {Error} when the answer is not 200.
 */
export async function postLogPaced(
  origin: string,
  log: string,
  format: LogFormat,
  bytesPerSecond: number,
): Promise<void> {
  const { hostname, port } = new URL(origin);
  using file = await Deno.open(log);
  const size = (await file.stat()).size;
  using conn = await Deno.connect({ hostname, port: Number(port) });
  const head = `POST /batch HTTP/1.1\r\nhost: ${hostname}:${port}\r\n` +
    `content-type: ${CONTENT_TYPES[format]}\r\ncontent-length: ${size}\r\n` +
    "connection: close\r\n\r\n";
  const reading = (async () => {
    let first = "";
    for await (const chunk of conn.readable) {
      if (first.length < 12) first += new TextDecoder().decode(chunk.subarray(0, 12));
    }
    return first;
  })();
  const writer = conn.writable.getWriter();
  await writer.write(new TextEncoder().encode(head));
  const buffer = new Uint8Array(256 * 1024);
  const started = performance.now();
  for (let sent = 0; sent < size;) {
    const n = await file.read(buffer);
    if (n === null) break;
    await writer.write(buffer.slice(0, n));
    sent += n;
    const due = started + (sent / bytesPerSecond) * 1000 - performance.now();
    if (due > 0) await new Promise((resolve) => setTimeout(resolve, due));
  }
  const status = await reading;
  if (!status.startsWith("HTTP/1.1 200")) throw new Error(`paced post ${log}: ${status}`);
}

/** The resident set of process `pid`, in MiB. */
async function rssMiB(pid: number): Promise<number> {
  const status = await Deno.readTextFile(`/proc/${pid}/status`).catch(() => "");
  const kb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0);
  return kb / 1024;
}

async function sameFiles(a: string, b: string): Promise<boolean> {
  const output = await new Deno.Command("cmp", { args: ["-s", a, b] }).output();
  return output.code === 0;
}

/** Everything one run measured. */
interface Report {
  readonly traces: number;
  readonly format: LogFormat;
  readonly bytes: number;
  readonly rounds: number;
  /** `batch`'s rate after start-up, per round. */
  readonly cliRates: number[];
  /** `POST /batch`'s rate (traces over curl's wall time), per round. */
  readonly httpRates: number[];
  /** Whether every answer was `batch`'s output, byte for byte. */
  readonly same: boolean;
  readonly idleMiB: number;
  readonly peakMiB: number;
  /** One post over HTTP/2 (h2c) to a fresh server: its rate and the server's RSS. */
  readonly http2: { rate: number; idleMiB: number; peakMiB: number; same: boolean };
  readonly forwardIdle: WrkResult[];
  readonly forwardDuring: WrkResult[];
  /** Whether the logs posted while `/forward` was measured went over HTTP/2. */
  readonly duringHttp2: boolean;
  /** The upload's pace of the logs posted while `/forward` was measured (bytes/s), if paced. */
  readonly duringPace: number | undefined;
  readonly logsDuring: number;
  readonly loadBefore: string;
  readonly loadAfter: string;
  readonly machine: string;
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    args: Deno.args,
    options: {
      traces: { type: "string", default: "1000000" },
      format: { type: "string", default: "json" },
      dir: { type: "string" },
      rounds: { type: "string", default: "3" },
      seconds: { type: "string", default: "5" },
      connections: { type: "string", default: "4" },
      "delay-ms": { type: "string", default: "20" },
      "write-readme": { type: "boolean", default: false },
      "v8-flags": { type: "string" },
      "during-http2": { type: "boolean", default: false },
      "during-pace": { type: "string" },
    },
  });
  // V8 flags for the server only (say, a young generation's size), to compare against a run without.
  const serve = values["v8-flags"] === undefined
    ? SERVE
    : [SERVE[0]!, SERVE[1]!, `--v8-flags=${values["v8-flags"]}`, ...SERVE.slice(2)];
  const traces = Number(values.traces);
  const pace = values["during-pace"] === undefined
    ? undefined
    : Number(values["during-pace"]) * 1e6;
  const format = values.format as LogFormat;
  const rounds = Number(values.rounds);
  const wrkOptions = {
    connections: Number(values.connections),
    seconds: Number(values.seconds),
    delayMs: Number(values["delay-ms"]),
  };
  const dir = values.dir ?? await Deno.makeTempDir({ prefix: "petri-batch-http-" });
  await Deno.mkdir(dir, { recursive: true });
  const log = `${dir}/credit_${traces}.${format}`;
  if (!(await Deno.stat(log).then(() => true, () => false))) {
    console.error(`writing ${log}`);
    await writeLog(log, format, traces);
  }
  const bytes = (await Deno.stat(log)).size;
  const loadBefore = loadAverage();
  const cliOut = `${dir}/cli.out`;
  const httpOut = `${dir}/http.out`;
  try {
    await using server = await startServerProcess(serve);
    // Warm-up: the first log measures the batch size (batch's start-up does the same).
    const small = `${dir}/credit_1000.${format}`;
    await writeLog(small, format, 1000);
    await postLog(server.origin, small, format, `${dir}/warm.out`);
    for (const body of EXAMPLE_BODIES.forward) {
      await (await fetch(`${server.origin}/forward`, { method: "POST", body })).body?.cancel();
    }
    await new Promise((resolve) => setTimeout(resolve, 1000));
    const idleMiB = await rssMiB(server.pid);

    // Rounds, each side first in turn: a load spike from elsewhere hits both alike.
    const cliRates: number[] = [];
    const httpRates: number[] = [];
    let peakMiB = idleMiB;
    let same = true;
    for (let round = 0; round < rounds; round++) {
      for (const side of round % 2 === 0 ? ["cli", "http"] : ["http", "cli"]) {
        console.error(`round ${round + 1}: ${side === "cli" ? "cli.ts batch" : "POST /batch"}`);
        if (side === "cli") {
          cliRates.push((await runBatch(log, cliOut)).rate);
        } else {
          const post = await postLog(server.origin, log, format, httpOut, server.pid);
          httpRates.push(traces / post.seconds);
          peakMiB = Math.max(peakMiB, post.peakMiB);
        }
      }
      same &&= await sameFiles(cliOut, httpOut);
    }

    console.error("POST /batch over HTTP/2, on a fresh server ...");
    const http2 = await (async () => {
      await using fresh = await startServerProcess(serve);
      await postLog(fresh.origin, small, format, `${dir}/warm.out`, undefined, true);
      await new Promise((resolve) => setTimeout(resolve, 1000));
      const idle = await rssMiB(fresh.pid);
      const h2 = await postLog(fresh.origin, log, format, httpOut, fresh.pid, true);
      const same = await sameFiles(cliOut, httpOut);
      return { rate: traces / h2.seconds, idleMiB: idle, peakMiB: h2.peakMiB, same };
    })();
    const url = `${server.origin}/forward`;
    const forwardIdle: WrkResult[] = [];
    const forwardDuring: WrkResult[] = [];
    let logsDuring = 0;
    for (let round = 0; round < rounds; round++) {
      for (const side of round % 2 === 0 ? ["idle", "during"] : ["during", "idle"]) {
        console.error(`round ${round + 1}: /forward ${side === "idle" ? "idle" : "with logs"}`);
        if (side === "idle") {
          forwardIdle.push(await runWrk(url, EXAMPLE_BODIES.forward, wrkOptions));
          continue;
        }
        let posting = true;
        const poster = (async () => {
          for (let n = 0; posting && n < MAX_LOGS_DURING; n++) {
            if (pace === undefined) {
              await postLog(server.origin, log, format, httpOut, undefined, values["during-http2"]);
            } else await postLogPaced(server.origin, log, format, pace);
            logsDuring++;
          }
        })();
        // Let the first log get going before measuring.
        await new Promise((resolve) => setTimeout(resolve, 500));
        forwardDuring.push(await runWrk(url, EXAMPLE_BODIES.forward, wrkOptions));
        posting = false;
        await poster;
      }
    }
    await print({
      traces,
      format,
      bytes,
      rounds,
      cliRates,
      httpRates,
      same,
      idleMiB,
      peakMiB,
      http2,
      forwardIdle,
      forwardDuring,
      logsDuring,
      duringHttp2: values["during-http2"],
      duringPace: pace,
      loadBefore,
      loadAfter: loadAverage(),
      machine: await machine(),
    }, values["write-readme"]);
  } finally {
    for (const file of [cliOut, httpOut]) await Deno.remove(file).catch(() => {});
    if (values.dir === undefined) await Deno.remove(dir, { recursive: true });
  }
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = sorted.length >> 1;
  return sorted.length % 2 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

function loadAverage(): string {
  return Deno.loadavg().map((l) => l.toFixed(2)).join(" ");
}

async function print(report: Report, writeReadme: boolean): Promise<void> {
  const mib = (n: number) => `${Math.round(n)} MiB`;
  const ms = (n: number) => `${n.toFixed(2)} ms`;
  const rate = (n: number) => Math.round(n).toLocaleString("en");
  const cli = median(report.cliRates);
  const http = median(report.httpRates);
  const ratios = report.httpRates.map((h, i) => h / report.cliRates[i]!);
  const ratio = median(ratios);
  const grew = report.peakMiB - report.idleMiB;
  const forward = (runs: readonly WrkResult[]) => ({
    rps: median(runs.map((r) => r.requestsPerSecond)),
    p50: median(runs.map((r) => r.p50Ms)),
    p99: median(runs.map((r) => r.p99Ms)),
    errors: runs.reduce((n, r) => n + r.socketErrors + r.statusErrors, 0),
    each: runs.map((r) => r.p99Ms.toFixed(1)).join(", "),
  });
  const idle = forward(report.forwardIdle);
  const during = forward(report.forwardDuring);
  const p99Ratios = report.forwardDuring.map((d, i) => d.p99Ms / report.forwardIdle[i]!.p99Ms);
  const p99 = median(p99Ratios);
  const table = [
    `| log | traces | size | \`batch\` traces/s | \`POST /batch\` traces/s | ratio (goal ≥ 0.8) | same bytes | server RSS idle → peak (goal: + ≤ 256 MiB) |`,
    "| --- | -----: | ---: | ---: | ---: | ---: | --- | ---: |",
    `| credit, ${report.format.toUpperCase()} | ${report.traces.toLocaleString("en")} | ` +
    `${mib(report.bytes / 2 ** 20)} | ${rate(cli)} | ${rate(http)} | ${ratio.toFixed(2)} | ` +
    `${report.same ? "yes" : "**no**"} | ${mib(report.idleMiB)} → ${mib(report.peakMiB)} ` +
    `(+${mib(grew)}) |`,
    "",
    "| `/forward` at a steady rate | req/s | p50 | p99 | p99 of each round | errors |",
    "| --- | ---: | ---: | ---: | ---: | ---: |",
    `| idle | ${idle.rps.toFixed(0)} | ${ms(idle.p50)} | ${ms(idle.p99)} | ${idle.each} | ` +
    `${idle.errors} |`,
    `| while logs stream (${report.logsDuring} posted${report.duringHttp2 ? ", HTTP/2" : ""}${
      report.duringPace === undefined ? "" : `, uploads paced at ${report.duringPace / 1e6} MB/s`
    }) | ` +
    `${during.rps.toFixed(0)} | ` +
    `${ms(during.p50)} | ${ms(during.p99)} | ${during.each} | ${during.errors} |`,
    "",
    `- medians of ${report.rounds} rounds; traces/s ratio of each round: ` +
    ratios.map((r) => r.toFixed(2)).join(", "),
    `- traces/s: \`POST /batch\` ÷ \`batch\` = ${ratio.toFixed(2)} (goal ≥ 0.8): ` +
    (ratio >= 0.8 ? "met" : "**not met**"),
    `- peak RSS − idle RSS = ${mib(grew)} (goal ≤ 256 MiB): ${grew <= 256 ? "met" : "**not met**"}`,
    `- over HTTP/2 (curl --http2-prior-knowledge, one post to a fresh server): ` +
    `${rate(report.http2.rate)} traces/s, server RSS ${mib(report.http2.idleMiB)} → ` +
    `${mib(report.http2.peakMiB)} (+${mib(report.http2.peakMiB - report.http2.idleMiB)}), ` +
    `same bytes: ${report.http2.same ? "yes" : "**no**"}`,
    `- \`/forward\` p99 while logs stream ÷ idle p99 = ${p99.toFixed(2)} (each round: ` +
    `${p99Ratios.map((r) => r.toFixed(2)).join(", ")}; goal ≤ 2): ` +
    (p99 <= 2 ? "met" : "**not met**"),
    `- load average (1, 5, 15 min) before: ${report.loadBefore}; after: ${report.loadAfter}`,
    `- ${report.machine}`,
  ].join("\n");
  console.log(table);
  if (!writeReadme) return;
  const text = await Deno.readTextFile(README);
  const [open, close] = ["<!-- batch-http-table -->", "<!-- /batch-http-table -->"];
  const start = text.indexOf(open);
  const end = text.indexOf(close);
  if (start === -1 || end < start) {
    throw new Error("bench/README.md has no batch-http-table markers");
  }
  await Deno.writeTextFile(
    README,
    `${text.slice(0, start + open.length)}\n\n${table}\n\n${text.slice(end)}`,
  );
}

if (import.meta.main) await main();
