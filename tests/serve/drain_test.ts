/**
 * The drain of `cli.ts serve` on a real process: 16 keep-alive clients on raw TCP connections
 * keep POSTing /forward, SIGTERM arrives mid-load, and every request any client has sent gets
 * a complete answer (none cut by a closing connection); `/readyz` turns 503 on a connection
 * opened before the signal; the process exits 0.
 *
 * @module
 */

import assert from "node:assert/strict";
import { complete, RawConnection, type RawResponse } from "./raw_http.ts";
import { startServerProcess } from "./server_process.ts";

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
  // The probe's connection was open before the signal: it is answered, 503, and told to close.
  let readyz = complete(await probe.request("GET", "/readyz"));
  for (let i = 0; readyz.status === 200 && i < 200; i++) {
    await new Promise((resolve) => setTimeout(resolve, 10));
    readyz = complete(await probe.request("GET", "/readyz"));
  }
  assert.equal(readyz.status, 503);
  assert.deepEqual(JSON.parse(readyz.body), { status: "draining" });
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
