/**
 * What the access log costs: `wrk -t1 -c16` POSTing /forward to two `cli.ts serve` processes of
 * the example, one with `--access-log on` (stdout piped to this process, as to a log collector)
 * and one with `--access-log off`, alternating in the same run (off, on, off, on, ...) so both see
 * the same machine load. Prints requests/s per round and the ratio of the medians. The goal is a
 * ratio of at least 0.95 (under 5% of throughput).
 *
 * ```sh
 * deno run -A bench/access_log_load.ts [--rounds 3] [--seconds 5]
 * ```
 *
 * @module
 */

import { parseArgs } from "node:util";
import { startServerProcess } from "../tests/cli/serve/server_process.ts";
import { median } from "./stats.ts";
import { runWrk } from "./wrk.ts";

const { values } = parseArgs({
  args: Deno.args,
  options: { rounds: { type: "string", default: "3" }, seconds: { type: "string", default: "5" } },
});
const BODY = JSON.stringify({
  input_marking: { p_submitted: 1 },
  input_values: { p_submitted: 4000 },
});

async function wrk(origin: string): Promise<number> {
  const result = await runWrk(`${origin}/forward`, [BODY], {
    connections: 16,
    seconds: Number(values.seconds),
  });
  if (result.statusErrors > 0) {
    throw new Error(`wrk saw ${result.statusErrors} answers that were not 2xx or 3xx`);
  }
  return result.requestsPerSecond;
}

const SERVE = ["run", "-A", "cli.ts", "serve", "--port", "0"];
await using on = await startServerProcess([...SERVE, "--access-log", "on"], { stdout: true });
await using off = await startServerProcess([...SERVE, "--access-log", "off"]);
const rates = { off: [] as number[], on: [] as number[] };
await wrk(off.origin); // warm both
await wrk(on.origin);
for (let round = 0; round < Number(values.rounds); round++) {
  rates.off.push(await wrk(off.origin));
  rates.on.push(await wrk(on.origin));
}
on.kill("SIGTERM");
off.kill("SIGTERM");
const lines = (await on.finished()).stdout.split("\n").length - 1;
await off.finished();

console.log("| access log | req/s per round | median |");
console.log("|---|---|---|");
for (const [name, xs] of Object.entries(rates)) {
  console.log(`| ${name} | ${xs.map((x) => x.toFixed(0)).join(", ")} | ${median(xs).toFixed(0)} |`);
}
console.log(
  `\nratio on/off: ${(median(rates.on) / median(rates.off)).toFixed(3)}; ${lines} lines logged`,
);
