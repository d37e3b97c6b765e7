/**
 * Where `cli.ts serve`'s serving thread spends its time under load, and A/B rounds between two
 * checkouts. A helper for work on the request path, not a table of `bench/README.md`.
 *
 * `--profile`: runs `deno run -A --cpu-prof cli.ts serve` (from `--cwd`, default this checkout)
 * on the example, loads it with `wrk -t1 -cN` POSTing the endpoint's bodies of `http_load.ts`,
 * stops it with SIGTERM (the profile is written at exit) and prints the serving thread's busy
 * time per request, the functions with the most self and inclusive time, and self time by file.
 *
 * `--ab DIR`: alternating rounds of `wrk` against `cli.ts serve` from this checkout and from
 * `DIR` (the previous commit's worktree; `--new DIR2` runs the new side from `DIR2`), each round with a fresh server per side, at 1 and 16
 * connections; prints req/s and p50 of each round and the medians' ratio.
 *
 * ```sh
 * deno run -A bench/profile_serve.ts --profile [--endpoint forward] [--conns 16] [--seconds 6]
 * deno run -A bench/profile_serve.ts --ab /tmp/base [--rounds 4] [--endpoint forward]
 * ```
 * Either takes `--extra "--ort-in-process"` (more `serve` flags). `--analyse FILE --requests N`
 * reads a saved `.cpuprofile` again.
 *
 * @module
 */

import { EXAMPLE_BUNDLE_URL } from "../adapter/deno/bundle_files.ts";
import { startServerProcess } from "../tests/cli/serve/server_process.ts";
import { EXAMPLE_BODIES } from "./http_bodies.ts";
import { threadCpu } from "./thread_cpu.ts";
import { runWrk, type WrkResult } from "./wrk.ts";

interface Node {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}
interface Profile {
  nodes: Node[];
  samples: number[];
  timeDeltas: number[];
}

const args = Deno.args;
const flag = (name: string) => {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : undefined;
};
const endpoint = (flag("--endpoint") ?? "forward") as keyof typeof EXAMPLE_BODIES;
const bodies = EXAMPLE_BODIES[endpoint];
const extra = (flag("--extra") ?? "").split(" ").filter((a) => a !== "");
const bundle = EXAMPLE_BUNDLE_URL.pathname;

async function serve(cwd: string | undefined, profileDir?: string) {
  const deno = profileDir === undefined
    ? ["run", "-A"]
    : ["run", "-A", "--cpu-prof", `--cpu-prof-dir=${profileDir}`];
  return await startServerProcess([...deno, "cli.ts", "serve", bundle, "--port", "0", ...extra], {
    ...(cwd ? { cwd } : {}),
  });
}

function short(url: string): string {
  const i = url.lastIndexOf("/");
  return url.slice(i + 1) || url;
}

function analyse(profile: Profile, requests: number): void {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const self = new Map<string, number>();
  const byFile = new Map<string, number>();
  const inclusive = new Map<string, number>();
  let total = 0;
  let idle = 0;
  // A sample stands for the time until the next one, up to twice the sampling interval: the
  // thread sleeping in the event loop after its last JavaScript frame (say, after notifying
  // the ORT worker) takes no samples, and that gap is idle time, not the frame's.
  const cap = 2 * median(profile.timeDeltas.slice(1));
  for (let i = 0; i < profile.samples.length; i++) {
    const gap = profile.timeDeltas[i + 1] ?? 0;
    const dt = Math.min(gap, cap);
    total += gap;
    idle += gap - dt;
    const node = byId.get(profile.samples[i]!)!;
    const name = node.callFrame.functionName;
    if (name === "(idle)" || name === "(program)") {
      idle += dt;
      continue;
    }
    const key = `${name || "(anon)"} ${short(node.callFrame.url)}:${node.callFrame.lineNumber + 1}`;
    self.set(key, (self.get(key) ?? 0) + dt);
    const file = short(node.callFrame.url) || name || "(native)";
    byFile.set(file, (byFile.get(file) ?? 0) + dt);
    const seen = new Set<string>();
    for (let id: number | undefined = node.id; id !== undefined; id = parent.get(id)) {
      const f = byId.get(id)!.callFrame;
      const k = `${f.functionName || "(anon)"} ${short(f.url)}:${f.lineNumber + 1}`;
      if (seen.has(k)) continue;
      seen.add(k);
      inclusive.set(k, (inclusive.get(k) ?? 0) + dt);
    }
  }
  const busy = total - idle;
  console.log(
    `requests ${requests}, profile ${(total / 1e6).toFixed(2)} s, busy ${
      (busy / 1e6).toFixed(2)
    } s, ${(busy / requests).toFixed(1)} µs busy per request`,
  );
  const top = (m: Map<string, number>, n: number) =>
    [...m].sort((a, b) => b[1] - a[1]).slice(0, n).map(([k, v]) =>
      `${(100 * v / busy).toFixed(1).padStart(5)}% ${
        (v / requests).toFixed(2).padStart(6)
      } µs  ${k}`
    ).join("\n");
  console.log(`-- self\n${top(self, 40)}\n-- inclusive\n${top(inclusive, 60)}`);
  console.log(`-- self by file\n${top(byFile, 40)}`);
  if (args.includes("--tree")) tree(profile, requests, busy);
}

/** The call tree (merged by frame along each path), pruned below 0.3 µs a request. */
function tree(profile: Profile, requests: number, busy: number): void {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const selfTime = new Map<number, number>();
  const cap = 2 * median(profile.timeDeltas.slice(1));
  for (let i = 0; i < profile.samples.length; i++) {
    const id = profile.samples[i]!;
    selfTime.set(id, (selfTime.get(id) ?? 0) + Math.min(profile.timeDeltas[i + 1] ?? 0, cap));
  }
  const label = (n: Node) =>
    `${n.callFrame.functionName || "(anon)"} ${short(n.callFrame.url)}:${
      n.callFrame.lineNumber + 1
    }`;
  interface Merged {
    total: number;
    children: Map<string, Merged>;
  }
  const build = (id: number): Merged => {
    const n = byId.get(id)!;
    const merged: Merged = { total: selfTime.get(id) ?? 0, children: new Map() };
    for (const c of n.children ?? []) {
      const child = build(c);
      const key = label(byId.get(c)!);
      if (key.startsWith("(idle)") || key.startsWith("(program)")) continue;
      const have = merged.children.get(key);
      if (have) merge(have, child);
      else merged.children.set(key, child);
      merged.total += child.total;
    }
    return merged;
  };
  const merge = (into: Merged, from: Merged) => {
    into.total += from.total;
    for (const [k, c] of from.children) {
      const have = into.children.get(k);
      if (have) merge(have, c);
      else into.children.set(k, c);
    }
  };
  const root = build(profile.nodes[0]!.id);
  const lines: string[] = [];
  const walk = (m: Merged, depth: number) => {
    for (const [k, c] of [...m.children].sort((a, b) => b[1].total - a[1].total)) {
      const us = c.total / requests;
      if (us < 0.3 || depth > 40) continue;
      lines.push(
        `${" ".repeat(depth)}${us.toFixed(2)} µs ${(100 * c.total / busy).toFixed(1)}% ${k}`,
      );
      walk(c, depth + 1);
    }
  };
  walk(root, 0);
  console.log(`-- tree\n${lines.join("\n")}`);
}

async function profile(): Promise<void> {
  const conns = Number(flag("--conns") ?? 16);
  const seconds = Number(flag("--seconds") ?? 6);
  const dir = await Deno.makeTempDir({ prefix: "petri_prof_" });
  const server = await serve(flag("--cwd"), dir);
  await runWrk(`${server.origin}/${endpoint}`, bodies, { connections: conns, seconds: 1 });
  const result = await runWrk(`${server.origin}/${endpoint}`, bodies, {
    connections: conns,
    seconds,
  });
  server.kill("SIGTERM");
  await server.finished();
  console.log(
    `${endpoint} c${conns}: ${result.requestsPerSecond.toFixed(0)} req/s, p50 ${result.p50Ms} ms`,
  );
  // The main thread's profile is the file not named `.worker-N.` (workers write their own).
  const files = [];
  for await (const e of Deno.readDir(dir)) files.push(`${dir}/${e.name}`);
  const main = files.find((f) => !f.includes(".worker-"))!;
  const worker = files.find((f) => f.includes(".worker-"));
  // Requests during warm-up count too: the profile covers the whole process.
  const warm = Number(flag("--warm-requests") ?? 0);
  console.log("== serving thread");
  analyse(JSON.parse(await Deno.readTextFile(main)), result.requests + warm);
  if (worker && args.includes("--worker")) {
    console.log("== ORT worker");
    analyse(JSON.parse(await Deno.readTextFile(worker)), result.requests + warm);
  }
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
}

async function ab(base: string): Promise<void> {
  const rounds = Number(flag("--rounds") ?? 4);
  const seconds = Number(flag("--seconds") ?? 3);
  const connsList = (flag("--conns") ?? "1,16").split(",").map(Number);
  const results: Record<string, WrkResult[]> = {};
  const cpu: Record<string, number[]> = {};
  for (let round = 0; round < rounds; round++) {
    const order = round % 2 ? ["base", "new"] : ["new", "base"];
    for (const side of order) {
      await using server = await serve(side === "base" ? base : flag("--new"));
      for (const conns of connsList) {
        const url = `${server.origin}/${endpoint}`;
        await runWrk(url, bodies, { connections: conns, seconds: 1 });
        const before = await threadCpu(server.pid);
        const r = await runWrk(url, bodies, { connections: conns, seconds });
        const after = await threadCpu(server.pid);
        (results[`${side} c${conns}`] ??= []).push(r);
        const mainUs = (after.main - before.main) / r.requests;
        (cpu[`${side} c${conns}`] ??= []).push(mainUs);
        console.log(
          `round ${round} ${side} c${conns}: ${
            r.requestsPerSecond.toFixed(0)
          } req/s p50 ${r.p50Ms}` +
            ` serving thread ${mainUs.toFixed(1)} µs/req, other threads ${
              ((after.others - before.others) / r.requests).toFixed(1)
            } µs/req`,
        );
      }
    }
  }
  for (const conns of connsList) {
    const n = results[`new c${conns}`]!.map((r) => r.requestsPerSecond);
    const b = results[`base c${conns}`]!.map((r) => r.requestsPerSecond);
    const np = results[`new c${conns}`]!.map((r) => r.p50Ms);
    const bp = results[`base c${conns}`]!.map((r) => r.p50Ms);
    console.log(
      `c${conns}: new ${median(n).toFixed(0)} req/s (p50 ${median(np)}) vs base ${
        median(b).toFixed(0)
      } (p50 ${median(bp)}): ${(median(n) / median(b)).toFixed(2)}×; serving thread ${
        median(cpu[`new c${conns}`]!).toFixed(1)
      } vs ${median(cpu[`base c${conns}`]!).toFixed(1)} µs/req`,
    );
  }
}

if (flag("--analyse")) {
  const file = flag("--analyse")!;
  analyse(JSON.parse(await Deno.readTextFile(file)), Number(flag("--requests")));
} else if (args.includes("--profile")) await profile();
else if (flag("--ab")) await ab(flag("--ab")!);
else console.error("usage: --profile | --ab DIR (see the module doc)");
