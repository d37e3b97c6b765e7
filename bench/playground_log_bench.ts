/**
 * The playground's log scoring against `cli.ts batch`, in the same run on the same files:
 * credit-approval logs of 100k and 1M traces (`batch_logs.ts`), each scored by `batch` as a
 * subprocess (`deno run --allow-read --allow-write cli.ts batch
 * examples/credit_approval_coloured --traces LOG -o OUT -q`) and by the playground in headless
 * Chromium (WASM; the log picked in the page, scored in its worker). Throughput is traces over
 * the seconds of reading and scoring on both sides (`batch`'s summary rate; the page's
 * `data-seconds`), start-up excluded on both; whole times are printed too.
 *
 * Memory is read over the DevTools protocol from the page and from its worker
 * (`Runtime.getHeapUsage`: the V8 heap's used size plus the ArrayBuffers' backing stores, where
 * the results' typed arrays live), sampled every 250 ms during the run (peak) and once after the
 * run and a forced garbage collection (held). The results table's own size is what the
 * worker's store reports (`data-store-bytes`: its typed arrays and record chunks). The goal:
 * held memory at 1M ≤ 1.5 × held memory at 100k + the table's size at 1M. Last, the page's
 * "Download JSON" is timed and compared with `batch`'s output file, byte for byte.
 *
 * ```sh
 * deno run -A bench/playground_log_bench.ts [--sizes 100000,1000000] [--dir DIR] [--write-readme]
 * ```
 *
 * @module
 */

// Callbacks passed to page.evaluate run in the page: type them with the DOM's names.
/// <reference lib="dom" />

import type { CDPSession, Page } from "playwright-core";
import { writeLog } from "./batch_logs.ts";
import { launchChromium } from "../tests/web/browser.ts";
import { waitReady } from "../tests/web/page.ts";
import { startLog, waitLogEnd } from "../tests/web/log_page.ts";
import { startSite } from "../tests/web/site.ts";

const ROOT = new URL("../", import.meta.url);
const README = new URL("README.md", import.meta.url);
const MARKERS = ["<!-- playground-log-table -->", "<!-- /playground-log-table -->"] as const;

/** Memory of one JavaScript context: the V8 heap's used bytes and ArrayBuffer bytes. */
interface Memory {
  readonly heap: number;
  readonly buffers: number;
}

/** One log's figures. */
interface Row {
  readonly traces: number;
  readonly bytes: number;
  readonly cliWall: number;
  readonly cliRate: number;
  readonly pageWall: number;
  readonly pageRate: number;
  readonly tableBytes: number;
  /** Page + worker after the run and a collection. */
  readonly held: { page: Memory; worker: Memory };
  /** The largest page + worker total sampled during the run. */
  readonly peak: number;
  /** Seconds from clicking "Download JSON" to the file saved. */
  readonly downloadSeconds: number;
  /** Whether the download equals `batch`'s output file byte for byte. */
  readonly sameAsBatch: boolean;
}

function flag(name: string): string | undefined {
  const at = Deno.args.indexOf(name);
  return at >= 0 ? Deno.args[at + 1] : undefined;
}

async function loadAverage(): Promise<string> {
  try {
    return (await Deno.readTextFile("/proc/loadavg")).split(" ").slice(0, 3).join(" ");
  } catch {
    return "unknown";
  }
}

/** `cli.ts batch` on `log`: whole seconds and its summary's traces/s. */
export async function runBatch(log: string, out: string): Promise<{ wall: number; rate: number }> {
  const started = performance.now();
  const result = await new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "--allow-read",
      "--allow-write",
      "cli.ts",
      "batch",
      "examples/credit_approval_coloured",
      "--traces",
      log,
      "-o",
      out,
      "-q",
    ],
    cwd: decodeURIComponent(ROOT.pathname),
    stdout: "null",
    stderr: "piped",
  }).output();
  const wall = (performance.now() - started) / 1000;
  const stderr = new TextDecoder().decode(result.stderr);
  const rate = /then (\d+) traces\/s\)/.exec(stderr);
  if (!result.success || !rate) throw new Error(`batch failed: ${stderr}`);
  return { wall, rate: Number(rate[1]) };
}

/** The DevTools protocol on a page and, through it, on its workers. */
class Probe {
  readonly #workers = new Set<string>();
  readonly #pending = new Map<number, (value: unknown) => void>();
  #next = 1;

  private constructor(readonly session: CDPSession) {
    session.on("Target.attachedToTarget", (event) => {
      if (event.targetInfo.type === "worker") this.#workers.add(event.sessionId);
    });
    session.on("Target.detachedFromTarget", (event) => this.#workers.delete(event.sessionId));
    session.on("Target.receivedMessageFromTarget", (event) => {
      const message = JSON.parse(event.message) as { id: number; result?: unknown };
      this.#pending.get(message.id)?.(message.result);
      this.#pending.delete(message.id);
    });
  }

  static async attach(page: Page): Promise<Probe> {
    const probe = new Probe(await page.context().newCDPSession(page));
    await probe.session.send("Target.setAutoAttach", {
      autoAttach: true,
      waitForDebuggerOnStart: false,
      flatten: false,
    });
    return probe;
  }

  /** Page and worker memory (the workers' summed), after a collection when `collect`. */
  async memory(collect: boolean): Promise<{ page: Memory; worker: Memory }> {
    if (collect) {
      await this.session.send("HeapProfiler.collectGarbage");
      for (const id of this.#workers) await this.#inWorker(id, "HeapProfiler.collectGarbage");
    }
    const usage = (u: { usedSize: number; backingStorageSize?: number }): Memory => ({
      heap: u.usedSize,
      buffers: u.backingStorageSize ?? 0,
    });
    const page = usage(await this.session.send("Runtime.getHeapUsage"));
    let worker: Memory = { heap: 0, buffers: 0 };
    for (const id of this.#workers) {
      const u = usage(
        await this.#inWorker(id, "Runtime.getHeapUsage") as {
          usedSize: number;
          backingStorageSize?: number;
        },
      );
      worker = { heap: worker.heap + u.heap, buffers: worker.buffers + u.buffers };
    }
    return { page, worker };
  }

  #inWorker(sessionId: string, method: string): Promise<unknown> {
    const id = this.#next++;
    return new Promise((resolve) => {
      this.#pending.set(id, resolve);
      void this.session.send("Target.sendMessageToTarget", {
        sessionId,
        message: JSON.stringify({ id, method, params: {} }),
      });
    });
  }
}

function total(m: { page: Memory; worker: Memory }): number {
  return m.page.heap + m.page.buffers + m.worker.heap + m.worker.buffers;
}

/** Whether two files hold the same bytes (read a megabyte at a time). */
async function sameBytes(a: string, b: string): Promise<boolean> {
  if ((await Deno.stat(a)).size !== (await Deno.stat(b)).size) return false;
  await using x = await Deno.open(a);
  await using y = await Deno.open(b);
  const bufferX = new Uint8Array(1 << 20);
  const bufferY = new Uint8Array(1 << 20);
  for (;;) {
    const n = await readFull(x, bufferX);
    const m = await readFull(y, bufferY);
    if (n !== m) return false;
    if (n === 0) return true;
    for (let i = 0; i < n; i++) if (bufferX[i] !== bufferY[i]) return false;
  }
}

async function readFull(file: Deno.FsFile, buffer: Uint8Array): Promise<number> {
  let filled = 0;
  while (filled < buffer.length) {
    const n = await file.read(buffer.subarray(filled));
    if (n === null) break;
    filled += n;
  }
  return filled;
}

async function runPage(
  origin: string,
  log: string,
  batchOutput: string,
): Promise<Omit<Row, "traces" | "bytes" | "cliWall" | "cliRate">> {
  await using browser = await launchChromium("wasm");
  const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
  const probe = await Probe.attach(page);
  await page.goto(`${origin}/playground/?backend=wasm`);
  await waitReady(page);
  let peak = 0;
  let sampling = true;
  const sampler = (async () => {
    while (sampling) {
      peak = Math.max(peak, total(await probe.memory(false)));
      await new Promise((r) => setTimeout(r, 250));
    }
  })();
  const started = performance.now();
  await startLog(page, log);
  const state = await waitLogEnd(page, 30 * 60_000);
  const pageWall = (performance.now() - started) / 1000;
  sampling = false;
  await sampler;
  if (state !== "done") {
    throw new Error(`the page ended ${state}: ${await page.locator("#log-error").textContent()}`);
  }
  const data = await page.locator("#log").evaluate((e) => ({ ...(e as HTMLElement).dataset }));
  const held = await probe.memory(true);
  const clicked = performance.now();
  const [download] = await Promise.all([
    page.waitForEvent("download", { timeout: 30 * 60_000 }),
    page.getByRole("button", { name: /^Download JSON \(/ }).click(),
  ]);
  const saved = await download.path();
  const downloadSeconds = (performance.now() - clicked) / 1000;
  const sameAsBatch = await sameBytes(saved, batchOutput);
  await download.delete();
  return {
    downloadSeconds,
    sameAsBatch,
    pageWall,
    pageRate: Number(data.traces) / Number(data.seconds),
    tableBytes: Number(data.storeBytes),
    held,
    peak: Math.max(peak, total(held)),
  };
}

function mib(bytes: number): string {
  return `${(bytes / 1024 / 1024).toFixed(0)} MiB`;
}

function count(n: number): string {
  return n >= 1e6 ? `${n / 1e6}M` : `${n / 1e3}k`;
}

function table(rows: readonly Row[]): string {
  const lines = [
    "| log | traces | size | `batch` whole | `batch` traces/s | page whole | page traces/s | page ÷ `batch` | held: page + worker (heap + buffers) | results table | peak | download JSON |",
    "| --- | -----: | ---: | ----: | ----: | ----: | ----: | ----: | ----: | ----: | ----: | ----: |",
  ];
  for (const r of rows) {
    const held = `${mib(r.held.page.heap + r.held.page.buffers)} + ${
      mib(r.held.worker.heap + r.held.worker.buffers)
    } = ${mib(total(r.held))}`;
    lines.push(
      `| credit, JSON | ${count(r.traces)} | ${mib(r.bytes)} | ${r.cliWall.toFixed(2)} s | ` +
        `${Math.round(r.cliRate / 1000)}k | ${r.pageWall.toFixed(2)} s | ` +
        `${Math.round(r.pageRate / 1000)}k | ${(r.pageRate / r.cliRate).toFixed(2)} | ${held} | ` +
        `${mib(r.tableBytes)} | ${mib(r.peak)} | ${r.downloadSeconds.toFixed(1)} s, ` +
        `${r.sameAsBatch ? "= `batch`'s file" : "**differs from `batch`'s file**"} |`,
    );
  }
  return lines.join("\n");
}

if (import.meta.main) {
  const sizes = (flag("--sizes") ?? "100000,1000000").split(",").map(Number);
  const dir = flag("--dir") ?? await Deno.makeTempDir({ prefix: "petri_playground_bench_" });
  const loadBefore = await loadAverage();
  await using site = await startSite();
  const rows: Row[] = [];
  for (const traces of sizes) {
    const log = `${dir}/credit_${traces}.json`;
    try {
      await Deno.stat(log);
    } catch {
      await writeLog(log, "json", traces);
    }
    const bytes = (await Deno.stat(log)).size;
    const cli = await runBatch(log, `${dir}/out_${traces}.json`);
    const page = await runPage(site.origin, log, `${dir}/out_${traces}.json`);
    const row = { traces, bytes, cliWall: cli.wall, cliRate: cli.rate, ...page };
    rows.push(row);
    console.error(
      `${count(traces)}: batch ${Math.round(cli.rate)} traces/s, page ${
        Math.round(page.pageRate)
      } traces/s (${(page.pageRate / cli.rate).toFixed(2)}), held ${mib(total(page.held))}`,
    );
  }
  const loadAfter = await loadAverage();
  let text = table(rows);
  if (rows.length === 2) {
    const [small, large] = rows as [Row, Row];
    const bound = 1.5 * total(small.held) + large.tableBytes;
    text += `\n\n- held memory at ${count(large.traces)}: ${mib(total(large.held))}; bound 1.5 × ` +
      `${mib(total(small.held))} (at ${count(small.traces)}) + ${mib(large.tableBytes)} ` +
      `(the table at ${count(large.traces)}) = ${mib(bound)}: ` +
      `${total(large.held) <= bound ? "met" : "not met"}`;
    text += `\n- page ÷ \`batch\` throughput: ${
      rows.map((r) => `${(r.pageRate / r.cliRate).toFixed(2)} at ${count(r.traces)}`).join(", ")
    } (goal ≥ 0.5)`;
  }
  text += `\n- load average (1, 5, 15 min) before: ${loadBefore}; after: ${loadAfter}`;
  console.log(text);
  if (Deno.args.includes("--write-readme")) {
    const readme = await Deno.readTextFile(README);
    const [open, close] = MARKERS;
    const start = readme.indexOf(open);
    const end = readme.indexOf(close);
    if (start < 0 || end < 0) throw new Error(`bench/README.md lacks the ${open} markers`);
    await Deno.writeTextFile(
      README,
      `${readme.slice(0, start + open.length)}\n\n${text}\n\n${readme.slice(end)}`,
    );
  }
  if (flag("--dir") === undefined) await Deno.remove(dir, { recursive: true });
}
