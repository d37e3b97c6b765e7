/**
 * One sentence on the machine a benchmark ran on, for a table's preamble: Deno, the ONNX
 * Runtimes, the cores and the load average when it is called.
 *
 * @example
 * ```ts
 * import { machine } from "./machine.ts";
 * (await machine()).startsWith("Deno "); // true
 * ```
 *
 * @module
 */

/**
 * The machine, the runtimes and the load average, in one sentence.
 *
 * @example
 * ```ts
 * import { machine } from "./machine.ts";
 * (await machine()).includes("load average"); // true
 * ```
 */
export async function machine(): Promise<string> {
  const cpu = (await Deno.readTextFile("/proc/cpuinfo").catch(() => ""))
    .match(/model name\s*:\s*(.+)/)?.[1] ?? "unknown CPU";
  const load = Deno.loadavg().map((l) => l.toFixed(2)).join(" ");
  return `Deno ${Deno.version.deno}, onnxruntime-web 1.30 (WASM, 1 thread) and ` +
    `onnxruntime-node 1.30, ${navigator.hardwareConcurrency} cores (${cpu}), wrk 4; ` +
    `load average (1, 5, 15 min) at the end of the run: ${load}`;
}
