/**
 * Descriptor exhaustion on a real `cli.ts serve` process whose open-file limit is lowered to
 * 256 (`ulimit -n` before exec): it warns at start-up, a flood of connections that each send
 * half a request line (more connections than descriptors) makes accepting fail, the process
 * stays alive, connections it had already accepted are still served, it logs one line when
 * accepting fails and one when it works again, and it answers `/healthz` on new connections
 * once the flood has closed; SIGTERM still ends it with exit 0.
 *
 * @module
 */

import assert from "node:assert/strict";
import { complete, RawConnection } from "./raw_http.ts";
import { type ServerProcess, startServerProcess } from "./server_process.ts";
import { LOW_OPEN_FILE_LIMIT, readOpenFileLimit } from "../../../adapter/deno/open_file_limit.ts";

const LIMIT = 256;
/**
 * Twice as many connections as descriptors: those not accepted wait in the listen queue (511
 * long), so none is refused or left hanging.
 */
const MAX_FLOOD = 2 * LIMIT;
const HALF_A_HEAD = new TextEncoder().encode("GET /healthz HTTP/1.1\r\nhost: 127.0.0.1\r\n");
const FAILED = /^warning: accepting connections on \S+ failed \(.*Too many open files/m;
const RECOVERED = /^accepting connections again on \S+ after [\d.]+ s \(\d+ failures?\)$/m;

/** Waits until `stderr` of `server` matches `pattern`, at most `ms`. */
async function waitForLine(server: ServerProcess, pattern: RegExp, ms: number): Promise<void> {
  const end = performance.now() + ms;
  while (!pattern.test(server.stderrSoFar) && performance.now() < end && !server.exited) {
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  assert.match(server.stderrSoFar, pattern, `stderr so far: ${server.stderrSoFar}`);
}

/** GET /healthz on a new connection: its status, or the reason there was none. */
async function healthOnNewConnection(port: number): Promise<number | string> {
  try {
    using connection = await RawConnection.open(port);
    const answer = await connection.request("GET", "/healthz");
    return answer === "closed" ? "closed" : answer.status;
  } catch (error) {
    return error instanceof Error ? error.name : String(error);
  }
}

Deno.test({
  name: "cli.ts serve with 256 descriptors survives a flood of half-sent requests and serves again",
  ignore: Deno.build.os !== "linux",
  async fn() {
    await using server = await startServerProcess(
      ["run", "-A", "cli.ts", "serve", "--port", "0", "--access-log", "off"],
      { launcher: ["sh", "-c", `ulimit -n ${LIMIT} && exec "$0" "$@"`] },
    );
    const port = Number(new URL(server.origin).port);
    await waitForLine(server, /^warning: the open-file limit is 256, .*ulimit -n/m, 10_000);

    // A keep-alive connection accepted before the flood.
    using early = await RawConnection.open(port);
    assert.equal(complete(await early.request("GET", "/healthz")).status, 200);

    const flood: Deno.TcpConn[] = [];
    try {
      let refused = 0;
      for (let i = 0; i < MAX_FLOOD && refused < 20; i++) {
        try {
          const connection = await Deno.connect({ hostname: "127.0.0.1", port });
          flood.push(connection);
          // A connection still in the backlog when the socket fails is reset.
          await connection.write(HALF_A_HEAD).catch(() => {});
        } catch (error) {
          // Refused once the socket is closed; reset when it closes during the handshake.
          const closed = error instanceof Deno.errors.ConnectionRefused ||
            error instanceof Deno.errors.ConnectionReset;
          if (!closed) throw error;
          refused++;
        }
      }
      await waitForLine(server, FAILED, 10_000);
      assert.equal(server.exited, false, "the process is alive while descriptors are exhausted");
      // Connections accepted before are still served.
      assert.equal(complete(await early.request("GET", "/healthz")).status, 200);
    } finally {
      for (const connection of flood) connection.close();
    }

    let health = await healthOnNewConnection(port);
    for (let i = 0; health !== 200 && i < 150; i++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      health = await healthOnNewConnection(port);
    }
    assert.equal(health, 200, "a new connection is answered once the flood has closed");
    await waitForLine(server, RECOVERED, 10_000);
    const failedLines = server.stderrSoFar.match(new RegExp(FAILED, "gm"))!.length;
    const recoveredLines = server.stderrSoFar.match(new RegExp(RECOVERED, "gm"))!.length;
    // One line when a burst starts and one when it ends, not one per failure.
    assert.equal(failedLines, recoveredLines, server.stderrSoFar);
    assert.ok(failedLines <= 3, server.stderrSoFar);
    assert.doesNotMatch(server.stderrSoFar, /Uncaught|error:/);

    server.kill("SIGTERM");
    const exit = await server.finished();
    assert.equal(exit.code, 0, exit.stderr);
  },
});

const ownLimit = await readOpenFileLimit();

Deno.test({
  name: "cli.ts serve says nothing about the open-file limit when it is high",
  // The server inherits this process's limit.
  ignore: ownLimit === undefined || ownLimit.hard < LOW_OPEN_FILE_LIMIT,
  async fn() {
    await using server = await startServerProcess(
      ["run", "-A", "cli.ts", "serve", "--port", "0", "--access-log", "off"],
    );
    const port = Number(new URL(server.origin).port);
    assert.equal(await healthOnNewConnection(port), 200);
    server.kill("SIGTERM");
    const exit = await server.finished();
    assert.equal(exit.code, 0, exit.stderr);
    assert.doesNotMatch(exit.stderr, /open-file limit/);
  },
});
