/**
 * The access log: its line format and buffering (unit), and on a real `cli.ts serve` process
 * and a real `deno serve --parallel adapter/deno/main.ts` one line per request on stdout, with its
 * request id, none lost when SIGTERM comes before the next flush, and nothing with
 * `--access-log off` (`PETRI_SERVE_ACCESS_LOG=off`).
 *
 * @module
 */

import assert from "node:assert/strict";
import { AccessLog, formatLine } from "../../../server/metrics/access_log.ts";
import { startServerProcess } from "./server_process.ts";
import { runDeno } from "../../run_deno.ts";

const LINE =
  /^(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z) (GET|POST) (\S+) (\d{3}) (\d+\.\d{3})ms (rows=\d+|-)(?: id=(\S+))?$/;

Deno.test("formatLine writes time, method, path, status, duration and rows", () => {
  assert.equal(
    formatLine({
      time: Date.UTC(2026, 10, 24, 18, 30),
      method: "POST",
      path: "/forward",
      route: "/forward",
      status: 200,
      seconds: 0.0012345,
      rows: 1,
    }),
    "2026-11-24T18:30:00.000Z POST /forward 200 1.234ms rows=1\n",
  );
  assert.equal(
    formatLine({
      time: 0,
      method: "GET",
      path: "/a b",
      route: "unmatched",
      status: 404,
      seconds: 0,
    }),
    "1970-01-01T00:00:00.000Z GET /a%20b 404 0.000ms -\n",
  );
});

Deno.test("AccessLog buffers lines, writes them in one chunk when full, and flushes on close", () => {
  const chunks: string[] = [];
  const log = new AccessLog((text) => chunks.push(text), { flushMs: 60_000, maxBuffered: 200 });
  const record = {
    time: 0,
    method: "GET",
    path: "/healthz",
    route: "/healthz",
    status: 200,
    seconds: 0,
  };
  log.record(record);
  log.record(record);
  assert.equal(chunks.length, 0, "buffered");
  for (let i = 0; i < 3; i++) log.record(record); // past 200 characters
  assert.equal(chunks.length, 1);
  assert.equal(chunks[0]!.split("\n").length - 1, 4);
  log.record(record);
  log.close();
  assert.equal(chunks.join("").split("\n").length - 1, 6, "close wrote the rest");
  log.record(record);
  assert.equal(chunks.length, 3, "after close, each line is written at once");
});

const FACES = [
  {
    name: "cli.ts serve",
    args: ["run", "-A", "cli.ts", "serve", "--port", "0"],
    off: { args: ["--access-log", "off"], env: {} },
    bad: { args: ["--access-log", "maybe"], env: {} },
    message: /--access-log must be on or off, got 'maybe'/,
  },
  {
    name: "deno serve --parallel adapter/deno/main.ts",
    args: [
      "serve",
      "--parallel",
      "--allow-read",
      "--allow-env",
      "--allow-net",
      "adapter/deno/main.ts",
    ],
    off: { args: [], env: { PETRI_SERVE_ACCESS_LOG: "off" } },
    bad: { args: [], env: { PETRI_SERVE_ACCESS_LOG: "maybe" } },
    message: /PETRI_SERVE_ACCESS_LOG must be on or off, got 'maybe'/,
  },
];
const ADDRESS = { DENO_SERVE_ADDRESS: "tcp:127.0.0.1:0" };

for (const face of FACES) {
  Deno.test(`${face.name} logs one line per request, with its X-Request-Id, and loses none at SIGTERM`, async () => {
    await using server = await startServerProcess(face.args, { stdout: true, env: ADDRESS });
    const requests: [string, string, unknown?][] = [
      ["GET", "/healthz"],
      ["POST", "/forward", { input_marking: { p_submitted: 1 } }],
      ["POST", "/v2/models/credit_approval_coloured/infer", {
        inputs: [{ name: "marking", datatype: "FP32", shape: [2, 3], data: [0, 0, 1, 0, 0, 0] }],
      }],
      ["GET", "/nothing/here"],
      ["GET", "/playground/style.css"],
    ];
    const ids: string[] = [];
    for (const [i, [method, path, body]] of requests.entries()) {
      const response = await fetch(`${server.origin}${path}`, {
        method,
        // The first request brings its own id, a safe one; the second an unsafe one.
        headers: i === 0
          ? { "x-request-id": "trace-abc.1" }
          : i === 1
          ? { "x-request-id": "bad id with spaces" }
          : {},
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      ids.push(response.headers.get("x-request-id")!);
      await response.body?.cancel();
    }
    assert.equal(ids[0], "trace-abc.1", "a safe id is echoed as it came");
    for (const id of ids.slice(1)) assert.match(id, /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-/);
    assert.equal(new Set(ids).size, ids.length, "generated ids differ");
    server.kill("SIGTERM"); // before the 250 ms flush: the lines come from the flush at shutdown
    const exit = await server.finished();
    assert.equal(exit.code, 0, exit.stderr);
    const lines = exit.stdout.trimEnd().split("\n").map((line) => {
      const match = LINE.exec(line);
      assert.ok(match, `a log line: ${JSON.stringify(line)}`);
      return match.slice(2, 5).concat(match[6]!, match[7]!);
    });
    // Under --parallel each instance writes its own lines: in order within an instance only.
    const byId = (a: string[], b: string[]) => ids.indexOf(a[4]!) - ids.indexOf(b[4]!);
    assert.deepEqual(lines.sort(byId), [
      ["GET", "/healthz", "200", "-", ids[0]],
      ["POST", "/forward", "200", "rows=1", ids[1]],
      ["POST", "/v2/models/credit_approval_coloured/infer", "200", "rows=2", ids[2]],
      ["GET", "/nothing/here", "404", "-", ids[3]],
      ["GET", "/playground/style.css", "200", "-", ids[4]],
    ]);
  });

  Deno.test(`${face.name} with the access log off writes nothing on stdout; a bad value exits 2`, async () => {
    await using server = await startServerProcess([...face.args, ...face.off.args], {
      stdout: true,
      env: { ...ADDRESS, ...face.off.env },
    });
    await (await fetch(`${server.origin}/healthz`)).body?.cancel();
    server.kill("SIGTERM");
    const exit = await server.finished();
    assert.equal(exit.code, 0);
    assert.equal(exit.stdout, "");

    const bad = await runDeno([...face.args, ...face.bad.args], {
      env: { ...ADDRESS, ...face.bad.env },
    });
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, face.message);
  });
}
