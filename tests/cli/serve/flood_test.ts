/**
 * Floods of large bodies against a real `cli.ts serve` process (default flags, but a 1 s queue
 * time-out so that requests are shed within so short a flood; bounded:
 * a few seconds and at most 128 connections, 127.0.0.1 only): the process stays up with its
 * memory bounded, every answer is 200 or 503 (each 503 with `Retry-After`), the health probes
 * and `/metrics` are answered throughout, and the shed requests show in `/metrics`. And the
 * drain under such a flood: SIGTERM is followed by an exit within `--drain-ms` and a small
 * margin, and no request is answered 400. Loose bounds on purpose: the machine is shared, and
 * performance is measured by `bench/flood_bench.ts`, not here.
 *
 * @module
 */

import assert from "node:assert/strict";
import { flood, type FloodReport } from "./flood.ts";
import { anomalyBody, inferBody } from "./flood_bodies.ts";
import { startServerProcess } from "./server_process.ts";

/** Far above what the floods need (about 0.5–2 GiB), far below the 5 GiB that killed it. */
const RSS_LIMIT = 3.5 * 2 ** 30;

function checkAnswers(report: FloodReport): void {
  const where = JSON.stringify(report, (_, v) => v instanceof Map ? Object.fromEntries(v) : v);
  for (const status of report.statuses.keys()) {
    assert.ok(
      status === 200 || status === 503 || status === "closed",
      `status ${status}; ${where}`,
    );
  }
  assert.ok((report.statuses.get(200) ?? 0) > 0, `some requests are served; ${where}`);
  assert.ok((report.statuses.get(503) ?? 0) > 0, `some requests are shed; ${where}`);
  assert.equal(report.shedWithoutRetryAfter, 0, where);
  for (const [route, probe] of report.probes) {
    assert.equal(probe.failures, 0, `${route} always answered within 10 s; ${where}`);
    assert.ok(probe.count > 0, where);
  }
  assert.ok(report.alive, `the process is alive; ${where}`);
  assert.ok(report.peakRssBytes < RSS_LIMIT, `peak RSS ${report.peakRssBytes}; ${where}`);
}

async function shedCounts(origin: string): Promise<Map<string, number>> {
  const text = await (await fetch(`${origin}/metrics`)).text();
  return new Map(
    [...text.matchAll(/^petri_serve_requests_shed_total\{reason="(\w+)"\} (\d+)$/gm)].map((
      m,
    ) => [m[1]!, Number(m[2])]),
  );
}

for (
  const [name, path, body, connections] of [
    [
      "/v2 infer, 60,000 rows (0.84 MB)",
      "/v2/models/credit_approval_coloured/infer",
      inferBody(60_000),
      96,
    ],
    ["/anomaly, 17,500 events (0.93 MB)", "/anomaly", anomalyBody(17_500), 128],
  ] as const
) {
  Deno.test(`cli.ts serve survives ${connections} connections flooding ${name}: 200 or 503 with Retry-After, probes answered, memory bounded`, async () => {
    await using server = await startServerProcess([
      "run",
      "-A",
      "cli.ts",
      "serve",
      "--port",
      "0",
      "--access-log",
      "off",
      // A short deadline, so that the waiting requests of so short a flood are shed too.
      "--queue-timeout-ms",
      "1000",
    ]);
    const report = await flood({
      port: Number(new URL(server.origin).port),
      path,
      body,
      connections,
      seconds: 5,
      pid: server.pid,
    });
    checkAnswers(report);
    const shed = await shedCounts(server.origin);
    const total = [...shed.values()].reduce((a, b) => a + b, 0);
    assert.equal(total, report.statuses.get(503), JSON.stringify([...shed]));
    const health = await fetch(`${server.origin}/healthz`);
    assert.equal(health.status, 200);
    await health.body?.cancel();
    server.kill("SIGTERM");
    assert.equal((await server.finished()).code, 0);
  });
}

Deno.test("SIGTERM during an /anomaly flood: exit 0 within --drain-ms and a margin, answers are 200 or 503, never 400", async () => {
  await using server = await startServerProcess(
    ["run", "-A", "cli.ts", "serve", "--port", "0", "--drain-ms", "2000"],
    { stdout: true },
  );
  const port = Number(new URL(server.origin).port);
  const flooding = flood({
    port,
    path: "/anomaly",
    body: anomalyBody(17_500),
    connections: 64,
    seconds: 8,
    tailMs: 5_000,
  });
  await new Promise((resolve) => setTimeout(resolve, 2_500));
  const signalled = performance.now();
  server.kill("SIGTERM");
  const exit = await server.finished();
  const exitMs = performance.now() - signalled;
  const report = await flooding;
  // The access log has a line for every request the app answered.
  const logged = new Map<string, number>();
  for (const [, status] of exit.stdout.matchAll(/ POST \/anomaly (\d{3}) /g)) {
    logged.set(status!, (logged.get(status!) ?? 0) + 1);
  }
  const where = JSON.stringify(
    { exitMs, code: exit.code, logged, report },
    (_, v) => v instanceof Map ? Object.fromEntries(v) : v,
  );
  assert.equal(exit.code, 0, `${where}; stderr: ${exit.stderr}`);
  assert.ok(exitMs < 2_000 + 2_500, `exits within the deadline and a margin; ${where}`);
  assert.ok((logged.get("200") ?? 0) > 0, where);
  for (const status of logged.keys()) {
    assert.ok(status === "200" || status === "503", `answered ${status}; ${where}`);
  }
  for (const status of report.statuses.keys()) {
    // "closed": a request still being sent when its connection closed (refused unread, or
    // cut at the deadline); the server never answered it, with 400 or otherwise.
    assert.ok(
      status === 200 || status === 503 || status === "closed",
      `status ${status}; ${where}`,
    );
  }
});
