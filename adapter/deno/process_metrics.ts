/**
 * The standard `process_*` metrics of Prometheus client libraries for `/metrics` (start time,
 * CPU seconds, open and max descriptors, virtual memory), from `/proc` on Linux. Deno reads
 * `/proc/self` only with `--allow-all`, so without it, or off Linux, those are left out rather
 * than guessed.
 *
 * @module
 */

import process from "node:process";

/** Clock ticks per second of `/proc/*\/stat` (`getconf CLK_TCK`: 100 on Linux). */
const CLOCK_TICKS = 100;

/** The isolate's start, the fallback for the process's. */
const ISOLATE_START_SECONDS = performance.timeOrigin / 1000;

/** The process's start from `/proc`, read once (it does not change). */
let procStart: number | null | undefined;

/**
 * The `process_*` metrics' exposition text (Prometheus text format 0.0.4), read now.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { processMetrics } from "./process_metrics.ts";
 * const text = processMetrics();
 * assert.match(text, /# TYPE process_cpu_seconds_total counter/);
 * assert.match(text, /^process_start_time_seconds \d/m);
 * ```
 */
export function processMetrics(): string {
  const out: string[] = [];
  const metric = (name: string, type: string, help: string, value: number | undefined) => {
    if (value === undefined || !Number.isFinite(value)) return;
    out.push(`# HELP ${name} ${help}`, `# TYPE ${name} ${type}`, `${name} ${value}`);
  };
  const stat = readProcSelfStat();
  procStart ??= stat === undefined ? null : bootTime(stat);
  metric(
    "process_start_time_seconds",
    "gauge",
    "Start time of the process since unix epoch in seconds.",
    procStart ?? Math.floor(ISOLATE_START_SECONDS),
  );
  const cpu = process.cpuUsage();
  metric(
    "process_cpu_seconds_total",
    "counter",
    "Total user and system CPU time spent in seconds.",
    (cpu.user + cpu.system) / 1e6,
  );
  metric("process_open_fds", "gauge", "Number of open file descriptors.", openFds());
  metric("process_max_fds", "gauge", "Maximum number of open file descriptors.", maxFds());
  metric(
    "process_virtual_memory_bytes",
    "gauge",
    "Virtual memory size in bytes.",
    stat === undefined ? undefined : Number(stat[20]),
  );
  return out.length === 0 ? "" : out.join("\n") + "\n";
}

/** The fields of `/proc/self/stat` after the command name (field 3 onwards), or `undefined`. */
function readProcSelfStat(): string[] | undefined {
  const text = readProc("/proc/self/stat");
  if (text === undefined) return undefined;
  // The command name is in parentheses and may hold spaces: split after its closing one.
  return text.slice(text.lastIndexOf(")") + 2).trim().split(" ");
}

/** The process's start in seconds since the epoch: boot time plus field 22 (`starttime`). */
function bootTime(stat: readonly string[]): number | null {
  const btime = /^btime (\d+)$/m.exec(readProc("/proc/stat") ?? "")?.[1];
  const ticks = Number(stat[19]);
  if (btime === undefined || !Number.isFinite(ticks)) return null;
  return Number(btime) + ticks / CLOCK_TICKS;
}

function openFds(): number | undefined {
  try {
    let count = 0;
    for (const _ of Deno.readDirSync("/proc/self/fd")) count++;
    return count;
  } catch {
    return undefined;
  }
}

function maxFds(): number | undefined {
  const line = /^Max open files\s+(\d+)/m.exec(readProc("/proc/self/limits") ?? "");
  return line ? Number(line[1]) : undefined;
}

function readProc(path: string): string | undefined {
  if (Deno.build.os !== "linux") return undefined;
  try {
    return Deno.readTextFileSync(path);
  } catch {
    return undefined; // no permission (Deno wants --allow-all for /proc/self)
  }
}
