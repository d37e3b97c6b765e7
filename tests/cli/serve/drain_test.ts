/**
 * The drain of `cli.ts serve` on a real process: 16 keep-alive clients on raw TCP connections
 * keep POSTing /forward, SIGTERM arrives mid-load, and every request any client has sent gets
 * a complete answer (none cut by a closing connection) while new connections are refused;
 * `/readyz` turns 503 on a connection opened before the signal; the process exits 0. With
 * `--lame-duck-ms`, new connections are served for that long first.
 *
 * @module
 */

import assert from "node:assert/strict";
import { complete, RawConnection, type RawResponse } from "./raw_http.ts";
import { startServerProcess } from "./server_process.ts";
import { runDeno } from "../../run_deno.ts";

const CLIENTS = 16;
/** Each client stops after this many requests at most, so the test is bounded. */
const MAX_REQUESTS = 20_000;
const BODY = JSON.stringify({
  input_marking: { p_submitted: 1 },
  input_values: { p_submitted: 9 },
});

interface ClientLog {
  sent: number;
  answered: number;
  /** Requests sent whose connection closed before a complete answer. */
  cut: number;
  /** Answers with `Connection: close`, by status. */
  closeAnswers: number[];
  /** Why the client stopped. */
  end: "refused" | "503" | "limit";
}

/** Sends requests until the server refuses the connection, answers 503, or the limit. */
async function client(port: number, started: () => void): Promise<ClientLog> {
  const log: ClientLog = { sent: 0, answered: 0, cut: 0, closeAnswers: [], end: "limit" };
  let connection: RawConnection | undefined;
  try {
    while (log.sent < MAX_REQUESTS) {
      if (connection === undefined) {
        try {
          connection = await RawConnection.open(port);
        } catch (error) {
          if (error instanceof Deno.errors.ConnectionRefused) {
            log.end = "refused";
            return log;
          }
          throw error;
        }
      }
      log.sent++;
      const answer: RawResponse | "closed" = await connection.request("POST", "/forward", BODY);
      if (answer === "closed") {
        log.cut++;
        connection.close();
        connection = undefined;
        continue;
      }
      log.answered++;
      if (log.answered === 20) started();
      if (answer.status === 200) assert.match(answer.body, /"transition_activations"/);
      if (answer.headers.get("connection")?.toLowerCase() === "close") {
        log.closeAnswers.push(answer.status);
        connection.close();
        connection = undefined;
      }
      if (answer.status === 503) {
        log.end = "503";
        return log;
      }
      assert.equal(answer.status, 200, answer.body);
    }
    return log;
  } finally {
    connection?.close();
  }
}

Deno.test("cli.ts serve drains 16 busy keep-alive clients on SIGTERM: every sent request is answered, exit 0", async () => {
  await using server = await startServerProcess(["run", "-A", "cli.ts", "serve", "--port", "0"]);
  const port = Number(new URL(server.origin).port);

  using probe = await RawConnection.open(port);
  const ready = complete(await probe.request("GET", "/readyz"));
  assert.equal(ready.status, 200);
  assert.deepEqual(JSON.parse(ready.body), { status: "ready" });

  let startedCount = 0;
  const { promise: allStarted, resolve: allStart } = Promise.withResolvers<void>();
  const started = () => {
    if (++startedCount === CLIENTS) allStart();
  };
  const clients = Array.from({ length: CLIENTS }, () => client(port, started));
  await Promise.race([allStarted, Promise.all(clients)]);
  assert.equal(startedCount, CLIENTS, "every client is busy before the signal");

  server.kill("SIGTERM");
  // The probe's connection was open before the signal: it is answered, 503, then told to close.
  let readyz = complete(await probe.request("GET", "/readyz"));
  for (let i = 0; readyz.status === 200 && i < 200; i++) {
    await new Promise((resolve) => setTimeout(resolve, 10));
    readyz = complete(await probe.request("GET", "/readyz"));
  }
  assert.equal(readyz.status, 503);
  assert.deepEqual(JSON.parse(readyz.body), { status: "draining" });
  // Once the socket has closed, answers tell the client to close the connection.
  for (let i = 0; readyz.headers.get("connection") !== "close" && i < 200; i++) {
    await new Promise((resolve) => setTimeout(resolve, 10));
    readyz = complete(await probe.request("GET", "/readyz"));
  }
  assert.equal(readyz.headers.get("connection"), "close");

  const logs = await Promise.all(clients);
  const exit = await server.finished();
  assert.equal(exit.code, 0, `exit code after SIGTERM; stderr: ${exit.stderr}`);
  assert.equal(exit.signal, null);
  for (const [i, log] of logs.entries()) {
    const where = `client ${i}: ${JSON.stringify(log)}`;
    assert.equal(log.cut, 0, `no request is cut; ${where}`);
    assert.equal(log.answered, log.sent, where);
    assert.notEqual(log.end, "limit", `the client saw the drain; ${where}`);
    // Its open connection was served during the drain and told to close.
    assert.ok(log.closeAnswers.includes(200), where);
  }
});

Deno.test("cli.ts serve --drain-ms bounds the drain: a request still in flight at the deadline is answered 503 (its body unfinished) or cut, and the process exits 0", async () => {
  await using server = await startServerProcess([
    "run",
    "-A",
    "cli.ts",
    "serve",
    "--port",
    "0",
    "--drain-ms",
    "200",
  ]);
  const port = Number(new URL(server.origin).port);
  // A request whose body never finishes arriving (the body deadline is 30 s): it stays in
  // flight, so only the drain's deadline ends the drain.
  const connection = await Deno.connect({ hostname: "127.0.0.1", port });
  try {
    await connection.write(new TextEncoder().encode(
      "POST /forward HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-type: application/json\r\n" +
        'content-length: 100\r\n\r\n{"input_marking":',
    ));
    using probe = await RawConnection.open(port);
    assert.equal(complete(await probe.request("GET", "/readyz")).status, 200);
    server.kill("SIGTERM");
    let timer: ReturnType<typeof setTimeout> | undefined;
    const exit = await Promise.race([
      server.finished(),
      new Promise<"still running">((resolve) => {
        timer = setTimeout(() => resolve("still running"), 5_000);
      }),
    ]);
    clearTimeout(timer);
    assert.notEqual(exit, "still running", "--drain-ms 200 ends the drain well before 10 s");
    if (exit === "still running") return;
    assert.equal(exit.code, 0, exit.stderr);
    // At the deadline the app answers the unfinished body 503 with Connection: close (admission
    // control's cut-off), or Deno closes the connection first: never a 400 or a 500.
    const rest = new Uint8Array(1024);
    const read = await connection.read(rest).catch(() => null);
    if (read !== null) {
      const answer = new TextDecoder().decode(rest.subarray(0, read));
      assert.match(answer, /^HTTP\/1\.1 503 /, answer);
      assert.match(answer, /connection: close/i, answer);
      assert.match(answer, /retry-after: 1/i, answer);
    }
  } finally {
    connection.close();
  }
});

Deno.test("cli.ts serve refuses a --drain-ms that is not a whole number of ms", async () => {
  const output = await runDeno(["run", "-A", "cli.ts", "serve", "--drain-ms", "soon"]);
  assert.equal(output.code, 2);
  assert.match(output.stderr, /--drain-ms must be an integer from 0 to 3600000, got 'soon'/);
});

Deno.test("during the drain a new connection is refused and an open one sees /readyz 503; with --lame-duck-ms new connections are served first; stderr and the access log say so", async (t) => {
  await t.step("default: the socket closes at once", async () => {
    const serve = ["run", "-A", "cli.ts", "serve", "--port", "0", "--drain-ms", "4000"];
    await using server = await startServerProcess(serve, { stdout: true });
    const port = Number(new URL(server.origin).port);
    using open = await RawConnection.open(port);
    assert.equal(complete(await open.request("GET", "/healthz")).status, 200);
    server.kill("SIGTERM");
    await refusedWithin(port, 5_000);
    const ready = complete(
      await open.request("GET", "/readyz", undefined, { "x-request-id": "r" }),
    );
    assert.equal(ready.status, 503);
    assert.deepEqual(JSON.parse(ready.body), { status: "draining" });
    assert.equal(ready.headers.get("connection"), "close");
    const exit = await server.finished();
    assert.equal(exit.code, 0, exit.stderr);
    const stderr = exit.stderr.trimEnd().split("\n");
    assert.match(stderr[0]!, /^serving credit_approval_coloured on http:\/\/127\.0\.0\.1:\d+/);
    assert.match(
      stderr[1]!,
      /^draining \(at most 4000 ms\): \/readyz answers 503, new connections are refused, /,
    );
    assert.equal(stderr.at(-1), "stopped");
    assert.match(logged(exit.stdout, "r"), / GET \/readyz 503 /);
  });

  await t.step(
    "--lame-duck-ms 1500: probes and requests on new connections are answered",
    async () => {
      const serve = ["run", "-A", "cli.ts", "serve", "--port", "0", "--lame-duck-ms", "1500"];
      await using server = await startServerProcess(serve, { stdout: true });
      const port = Number(new URL(server.origin).port);
      const fresh = async (path: string, id: string) => {
        using connection = await RawConnection.open(port);
        return complete(await connection.request("GET", path, undefined, { "x-request-id": id }));
      };
      server.kill("SIGTERM");
      let ready = await fresh("/readyz", "ready-0");
      for (let i = 1; ready.status === 200 && i < 100; i++) {
        await new Promise((resolve) => setTimeout(resolve, 10)); // until the drain has begun
        ready = await fresh("/readyz", `ready-${i}`);
      }
      assert.equal(ready.status, 503);
      assert.equal(ready.headers.get("connection"), "close");
      const health = await fresh("/healthz", "health");
      assert.equal(health.status, 200);
      const schema = await fresh("/schema", "schema");
      assert.equal(schema.status, 200);
      assert.equal(schema.headers.get("connection"), "close");
      await refusedWithin(port, 5_000);
      const exit = await server.finished();
      assert.equal(exit.code, 0, exit.stderr);
      assert.match(
        exit.stderr,
        /^draining \(at most 10000 ms\): \/readyz answers 503, new connections are served for 1500 ms more, /m,
      );
      assert.match(logged(exit.stdout, "health"), / GET \/healthz 200 /);
      assert.match(logged(exit.stdout, "schema"), / GET \/schema 200 /);
    },
  );
});

/** The access log line of request `id`. */
function logged(stdout: string, id: string): string {
  return stdout.split("\n").find((line) => line.endsWith(` id=${id}`)) ?? "";
}

/** Waits until connecting to `port` fails (refused, or reset as the socket closes). */
async function refusedWithin(port: number, ms: number): Promise<void> {
  const end = performance.now() + ms;
  while (performance.now() < end) {
    try {
      (await Deno.connect({ hostname: "127.0.0.1", port })).close();
    } catch (error) {
      if (error instanceof Deno.errors.ConnectionRefused) return;
      if (error instanceof Deno.errors.ConnectionReset) return;
      throw error;
    }
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  assert.fail(`new connections still accepted ${ms} ms after the signal`);
}
