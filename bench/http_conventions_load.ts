/**
 * What the HTTP conventions (request ids, `Vary`, the compression check, CORS headers) cost on
 * the hot path: `POST /forward` on `cli.ts serve` of this checkout and of a base checkout
 * (`--base DIR`, e.g. `main` before them), with and without `Accept-Encoding: gzip, br` (with it,
 * every JSON answer is checked against the 16 KiB threshold; `/forward`'s stays under it), and
 * this checkout with `--cors-origin` and an `Origin` header; against a bare `Deno.serve` JSON
 * echo (`http_echo.ts`) in the same run. `wrk`, 16 connections, the cases interleaved over
 * `--rounds` rounds; medians of requests per second, as ratios to the echo.
 *
 * ```sh
 * deno run -A bench/http_conventions_load.ts --base /tmp/base [--seconds 3] [--rounds 3]
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
  options: {
    base: { type: "string" },
    seconds: { type: "string", default: "3" },
    rounds: { type: "string", default: "3" },
  },
});
const seconds = Number(values.seconds);
const BODY = JSON.stringify({
  input_marking: { p_submitted: 1 },
  input_values: { p_submitted: 5000 },
});
const SERVE = ["run", "-A", "cli.ts", "serve", "--port", "0", "--access-log", "off"];
const ORIGIN = "http://app.example";
const COMPRESSING = { "accept-encoding": "gzip, br" };

await using echo = await startServerProcess(["run", "--allow-net=127.0.0.1", "bench/http_echo.ts"]);
await using serve = await startServerProcess(SERVE);
await using cors = await startServerProcess([...SERVE, "--cors-origin", ORIGIN]);
await using base = values.base ? await startServerProcess(SERVE, { cwd: values.base }) : undefined;

const cases: [string, string, Record<string, string>][] = [
  ["echo (floor)", echo.origin, {}],
  ["serve", serve.origin, {}],
  ["serve, Accept-Encoding", serve.origin, COMPRESSING],
  ["serve --cors-origin, Origin", cors.origin, { origin: ORIGIN, ...COMPRESSING }],
  ...(base
    ? [
      ["base serve", base.origin, {}] as [string, string, Record<string, string>],
      ["base serve, Accept-Encoding", base.origin, COMPRESSING] as [
        string,
        string,
        Record<string, string>,
      ],
    ]
    : []),
];
const results = new Map<string, number[]>(cases.map(([name]) => [name, []]));
for (const [, origin, headers] of cases) {
  const path = origin === echo.origin ? "/" : "/forward";
  await runWrk(`${origin}${path}`, [BODY], { connections: 16, seconds: 1, headers }); // warm-up
}
for (let round = 0; round < Number(values.rounds); round++) {
  for (const [name, origin, headers] of cases) {
    const path = origin === echo.origin ? "/" : "/forward";
    const result = await runWrk(`${origin}${path}`, [BODY], { connections: 16, seconds, headers });
    if (result.socketErrors || result.statusErrors) throw new Error(`${name}: errors`);
    results.get(name)!.push(result.requestsPerSecond);
  }
}
const floor = median(results.get("echo (floor)")!);
console.log(`POST /forward, 16 connections, ${seconds} s × ${values.rounds} rounds (median rps)`);
for (const [name, rps] of results) {
  const value = median(rps);
  console.log(
    `${name.padEnd(32)} ${value.toFixed(0).padStart(7)} rps  ${
      (value / floor).toFixed(3)
    } of the echo`,
  );
}
