/**
 * CPU time of a process's threads from `/proc/<pid>/task/<tid>/stat` (Linux): the serving
 * thread (the process's main thread, whose id is the pid) apart from the others (the ORT
 * worker, V8's helpers, Tokio's), so a benchmark can divide the serving thread's share by the
 * requests it answered.
 *
 * @example
 * ```ts
 * import { threadCpu } from "./thread_cpu.ts";
 * const { main, others } = await threadCpu(Deno.pid);
 * main >= 0 && others >= 0; // true
 * ```
 *
 * @module
 */

/** Microseconds of one clock tick: `utime` and `stime` count ticks of 1/100 s (`USER_HZ`). */
const TICK_US = 10_000;

/** CPU time (user + system) of one process. */
export interface ThreadCpu {
  /** Of the main thread, µs. */
  readonly main: number;
  /** Of all its other threads together, µs. */
  readonly others: number;
}

/**
 * The user + system CPU time of `pid`'s main thread and of its other threads, in µs (threads
 * that end while they are read are skipped).
 *
 * @example
 * ```ts
 * import { threadCpu } from "./thread_cpu.ts";
 * (await threadCpu(Deno.pid)).main >= 0; // true
 * ```
 */
export async function threadCpu(pid: number): Promise<ThreadCpu> {
  let main = 0;
  let others = 0;
  for await (const entry of Deno.readDir(`/proc/${pid}/task`)) {
    const stat = await Deno.readTextFile(`/proc/${pid}/task/${entry.name}/stat`).catch(() => "");
    if (stat === "") continue;
    // Fields after the command name, which is in parentheses and may hold spaces.
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    const us = (Number(fields[11]) + Number(fields[12])) * TICK_US;
    if (entry.name === String(pid)) main += us;
    else others += us;
  }
  return { main, others };
}
