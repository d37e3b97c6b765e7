/**
 * Start-up of `cli.ts serve`: the time from spawning `deno run -A cli.ts serve --port 0` to the
 * first answer of `GET /healthz` and then to the first answer of `POST /forward` on the example
 * model, medians of several runs, against a bare `Deno.serve` answering "ok" started the same way
 * in the same run (the floor: Deno's own start-up). `--root DIR` also
 * measures another checkout (e.g. an older commit) for comparison. The goal is at most 0.5 s.
 *
 * ```sh
 * deno run -A bench/serve_startup.ts [--runs 10] [--root /tmp/base]
 * ```
 *
 * @module
 */

import { parseArgs } from "node:util";
import { startServerProcess } from "../tests/cli/serve/server_process.ts";
import { median } from "./stats.ts";

const { values } = parseArgs({
  args: Deno.args,
  options: { runs: { type: "string", default: "10" }, root: { type: "string" } },
});
const runs = Number(values.runs);
const ECHO =
  `Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: (a) => console.error(\`listening on http://127.0.0.1:\${a.port}\`) }, () => new Response("ok"));`;

/** A /forward request of the example model (the echo answers any request). */
const FORWARD = JSON.stringify({ input_marking: { p_submitted: 1 } });

/** Milliseconds from spawning to the first /healthz answer and to the first /forward answer. */
async function firstAnswer(args: string[], cwd?: string): Promise<[number, number]> {
  const started = performance.now();
  await using server = await startServerProcess(args, cwd ? { cwd } : {});
  const health = await fetch(`${server.origin}/healthz`);
  await health.body?.cancel();
  const healthMs = performance.now() - started;
  const forward = await fetch(`${server.origin}/forward`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: FORWARD,
  });
  if (!forward.ok) throw new Error(`/forward answered ${forward.status}: ${await forward.text()}`);
  await forward.body?.cancel();
  const forwardMs = performance.now() - started;
  server.kill("SIGTERM");
  await server.finished();
  return [healthMs, forwardMs];
}

const echoFile = await Deno.makeTempFile({ suffix: ".ts" });
await Deno.writeTextFile(echoFile, ECHO);
const SERVE = ["run", "-A", "cli.ts", "serve", "--port", "0", "--access-log", "off"];
const cases: [string, string[], string?][] = [
  ["bare Deno.serve (floor)", ["run", "-A", echoFile]],
  ["cli.ts serve", SERVE],
  ...(values.root
    ? [[`cli.ts serve in ${values.root}`, SERVE.slice(0, 6), values.root]] as [
      string,
      string[],
      string,
    ][]
    : []),
];
const results = new Map<string, [number, number][]>(cases.map(([name]) => [name, []]));
await firstAnswer(SERVE); // warm Deno's caches
for (let i = 0; i < runs; i++) {
  for (const [name, args, cwd] of cases) results.get(name)!.push(await firstAnswer(args, cwd));
}
await Deno.remove(echoFile);
const floor = median(results.get(cases[0]![0])!.map(([health]) => health));
console.log(
  `| what | median ms to the first /healthz answer (${runs} runs) | × floor | ` +
    "then the first /forward answer, ms from spawn |",
);
console.log("|---|---|---|---|");
for (const [name, times] of results) {
  const health = median(times.map(([ms]) => ms));
  const forward = median(times.map(([, ms]) => ms));
  console.log(
    `| ${name} | ${health.toFixed(0)} | ${(health / floor).toFixed(2)} | ${forward.toFixed(0)} |`,
  );
}
