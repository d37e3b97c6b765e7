/**
 * A model runtime that heals, on a real server process: `failing_serve.ts` is `cli.ts serve`
 * with its ORT module wrapped by `../../failing_ort.ts`, steered through a control file. A failed
 * run is answered 503 with `Retry-After` (never 500), `/readyz` and `/v2/health/ready` answer
 * 503 while the session is recreated, the server recovers, and the burst is logged as one line
 * when it begins and one when it ends, without a stack trace; a session that cannot be
 * recreated stops the process with exit code 1. The queue's deadline and clients that hang up
 * are checked on the same server, with runs slowed down.
 *
 * @module
 */

import assert from "node:assert/strict";
import { type Control, writeControl } from "../../failing_ort.ts";
import { complete, RawConnection } from "./raw_http.ts";
import { type ServerProcess, startServerProcess, tempDir } from "./server_process.ts";

const FORWARD = JSON.stringify({ input_marking: { p_submitted: 1 } });

async function startFailing(
  control: string,
  flags: readonly string[] = [],
): Promise<ServerProcess> {
  return await startServerProcess([
    "run",
    "-A",
    "tests/cli/serve/failing_serve.ts",
    control,
    "--port",
    "0",
    "--access-log",
    "off",
    ...flags,
  ]);
}

/** A POST /forward, its body read (so no response is left open). */
// deno-lint-ignore no-explicit-any
type Json = Record<string, any>;
async function forward(
  server: ServerProcess,
): Promise<{ status: number; headers: Headers; body: { detail?: string } & Json }> {
  const response = await fetch(`${server.origin}/forward`, { method: "POST", body: FORWARD });
  return { status: response.status, headers: response.headers, body: await response.json() };
}

async function status(server: ServerProcess, path: string): Promise<[number, unknown]> {
  const response = await fetch(`${server.origin}${path}`);
  return [response.status, await response.json()];
}

async function metric(server: ServerProcess, line: RegExp): Promise<number> {
  const text = await (await fetch(`${server.origin}/metrics`)).text();
  const match = text.split("\n").find((l) => line.test(l));
  return match === undefined ? 0 : Number(match.split(" ").at(-1));
}

async function order(path: string, control: Control): Promise<void> {
  await writeControl(path, control);
}

Deno.test("an ORT run that fails is answered 503, readiness is 503 while the session is recreated, it recovers, and the burst is logged in two lines", async () => {
  await using dir = await tempDir();
  const control = `${dir.path}/control.json`;
  await using server = await startFailing(control);
  assert.equal((await forward(server)).status, 200);

  // The next run fails, and so do the next two attempts to open a session: a burst of three
  // failures and about 0.7 s of back-off. Each attempt opens two ORT sessions (the worker's and
  // the serving thread's), both with this control: two failed attempts are four failed creates.
  await order(control, { id: 1, failRuns: 1, failCreates: 4 });
  const failed = await forward(server);
  assert.equal(failed.status, 503);
  assert.equal(failed.headers.get("retry-after"), "1");
  assert.match(failed.body.detail!, /model run failed.*being recreated/);
  assert.deepEqual(await status(server, "/readyz"), [503, { status: "model_unavailable" }]);
  assert.deepEqual(await status(server, "/v2/health/ready"), [503, { ready: false }]);
  assert.equal((await status(server, "/healthz"))[0], 200, "liveness stays 200");
  const refused = await forward(server);
  assert.equal(refused.status, 503);
  assert.match(refused.body.detail!, /being recreated/);
  const v2 = await fetch(`${server.origin}/v2/models/credit_approval_coloured/infer`, {
    method: "POST",
    body: JSON.stringify({
      inputs: [{ name: "marking", datatype: "FP32", shape: [1, 3], data: [0, 0, 1] }],
    }),
  });
  assert.equal(v2.status, 503);
  assert.match((await v2.json()).error, /being recreated/, "the protocol's own error shape");

  let ready = await status(server, "/readyz");
  for (let i = 0; i < 200 && ready[0] !== 200; i++) {
    await new Promise((resolve) => setTimeout(resolve, 50));
    ready = await status(server, "/readyz");
  }
  assert.deepEqual(ready, [200, { status: "ready" }], "recovered within 10 s");
  const healed = await forward(server);
  assert.equal(healed.status, 200);
  assert.ok(healed.body.transition_activations.t_approve > 0);
  assert.equal(await metric(server, /^petri_serve_model_restarts_total /), 1);
  assert.equal(
    await metric(server, /^petri_serve_requests_shed_total\{reason="model_unavailable"\}/),
    3,
  );

  server.kill("SIGTERM");
  const exit = await server.finished();
  assert.equal(exit.code, 0, exit.stderr);
  // The model's two lines, between the "serving ..." line and the drain's two lines: no stack
  // trace, nothing else.
  const lines = exit.stderr.trim().split("\n").slice(1);
  assert.equal(lines.length, 4, exit.stderr);
  assert.deepEqual(lines.slice(0, 2), [
    "petri-serve: a model run failed (injected run failure: V(...) is not a function); " +
    "answering 503 and recreating the model session",
    "petri-serve: the model recovered after 3 failures and 1 restart; " +
    "3 requests were answered 503 meanwhile",
  ]);
  assert.match(lines[2]!, /^draining /);
  assert.equal(lines[3], "stopped");
});

Deno.test("a model session that cannot be recreated stops cli.ts serve with exit code 1", async () => {
  await using dir = await tempDir();
  const control = `${dir.path}/control.json`;
  await using server = await startFailing(control, ["--drain-ms", "500"]);
  await order(control, { id: 1, failRuns: 1, failCreates: 1000 });
  assert.equal((await forward(server)).status, 503);
  let timer: ReturnType<typeof setTimeout> | undefined;
  const exit = await Promise.race([
    server.finished(),
    new Promise<"running">((resolve) => (timer = setTimeout(() => resolve("running"), 20_000))),
  ]);
  clearTimeout(timer);
  assert.notEqual(exit, "running", "the process stops after five failures in a row");
  if (exit === "running") return;
  assert.equal(exit.code, 1, exit.stderr);
  assert.match(
    exit.stderr,
    /petri-serve: the model session could not be recreated after 5 failures in a row \(injected create failure: out of memory\); 1 request was answered 503; stopping/,
  );
  assert.doesNotMatch(exit.stderr, /^\s+at /m, "no stack trace");
});

Deno.test("rows that wait in the queue past --queue-timeout-ms are answered 503 with Retry-After", async () => {
  await using dir = await tempDir();
  const control = `${dir.path}/control.json`;
  await using server = await startFailing(control, ["--queue-timeout-ms", "100"]);
  await order(control, { id: 1, runDelayMs: 600 });
  const first = forward(server);
  await new Promise((resolve) => setTimeout(resolve, 100)); // the first run is under way
  const waiting = await Promise.all(Array.from({ length: 4 }, () => forward(server)));
  for (const response of waiting) {
    assert.equal(response.status, 503);
    assert.equal(response.headers.get("retry-after"), "1");
    assert.match(
      response.body.detail!,
      /passed its deadline while its rows waited \d+ ms in the model's queue \(its time-out is 100 ms\)/,
    );
  }
  assert.equal((await first).status, 200);
  assert.equal(
    await metric(server, /^petri_serve_requests_shed_total\{reason="queue_timeout"\}/),
    4,
  );
  server.kill("SIGTERM");
  assert.equal((await server.finished()).code, 0);
});

Deno.test("a client that hangs up while its request waits for the model: its rows are withdrawn and never computed", async () => {
  await using dir = await tempDir();
  const control = `${dir.path}/control.json`;
  await using server = await startFailing(control);
  const port = Number(new URL(server.origin).port);
  const rowsRun = () => metric(server, /^petri_serve_ort_run_rows_sum\{gradient="false"\}/);
  const before = await rowsRun();

  await order(control, { id: 1, runDelayMs: 800 });
  const first = forward(server);
  await new Promise((resolve) => setTimeout(resolve, 100)); // its run is under way
  const request = new TextEncoder().encode(
    `POST /forward HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-length: ${FORWARD.length}\r\n\r\n` +
      FORWARD,
  );
  const gone = await Promise.all(Array.from({ length: 10 }, async () => {
    const connection = await Deno.connect({ hostname: "127.0.0.1", port });
    await connection.write(request);
    return connection;
  }));
  await new Promise((resolve) => setTimeout(resolve, 200)); // queued behind the slow run
  for (const connection of gone) connection.close();
  assert.equal((await first).status, 200);
  await order(control, { id: 2 });
  assert.equal((await forward(server)).status, 200);

  assert.equal(await rowsRun() - before, 2, "only the two answered requests' rows ran");
  assert.equal(
    await metric(server, /^petri_serve_requests_shed_total\{reason="client_gone"\}/),
    10,
  );
  server.kill("SIGTERM");
  assert.equal((await server.finished()).code, 0);
});

Deno.test("at the drain's deadline, requests still waiting for the model are answered 503 with Connection: close, and the process exits within the deadline", async () => {
  await using dir = await tempDir();
  const control = `${dir.path}/control.json`;
  await using server = await startFailing(control, ["--drain-ms", "800"]);
  const port = Number(new URL(server.origin).port);
  await order(control, { id: 1, runDelayMs: 4_000 });
  const connections = await Promise.all(Array.from({ length: 4 }, () => RawConnection.open(port)));
  try {
    const answers = connections.map((connection) =>
      connection.request("POST", "/forward", FORWARD)
    );
    await new Promise((resolve) => setTimeout(resolve, 300)); // one run under way, rows queued
    const signalled = performance.now();
    server.kill("SIGTERM");
    for (const answer of await Promise.all(answers)) {
      const { status, headers, body } = complete(answer);
      assert.equal(status, 503, body);
      assert.equal(headers.get("connection"), "close");
      assert.equal(headers.get("retry-after"), "1");
      assert.deepEqual(JSON.parse(body), { detail: "The server is shutting down" });
    }
    const exit = await server.finished();
    const exitMs = performance.now() - signalled;
    assert.equal(exit.code, 0, exit.stderr);
    // 800 ms of drain, then at most 250 ms for the answers and 1 s for the model's release.
    assert.ok(exitMs < 800 + 250 + 1_000 + 1_000, `exited ${Math.round(exitMs)} ms after SIGTERM`);
  } finally {
    for (const connection of connections) connection.close();
  }
});
