/**
 * What Deno 2.9.6's `Deno.serve` does when it runs out of descriptors (the reproducer behind
 * `reopening_server.ts`, pinned so that a Deno upgrade that changes it shows up), and what
 * {@link ReopeningServer} does instead: each in a process whose open-file limit is lowered to
 * 64, flooded with more connections than that.
 *
 * @module
 */

import assert from "node:assert/strict";
import { isResourceExhaustion } from "../../../adapter/deno/reopening_server.ts";
import { type ServerProcess, startServerProcess } from "../../cli/serve/server_process.ts";

const LIMIT = 64;
const launcher = ["sh", "-c", `ulimit -n ${LIMIT} && exec "$0" "$@"`];

/** Opens up to 4 × LIMIT connections, stopping once they are refused; closes them all. */
async function flood(port: number): Promise<void> {
  const connections: Deno.TcpConn[] = [];
  try {
    for (let i = 0, refused = 0; i < 4 * LIMIT && refused < 10; i++) {
      try {
        connections.push(await Deno.connect({ hostname: "127.0.0.1", port }));
      } catch (error) {
        // One the server resets at once can fail as NotConnected (os error 107).
        const closed = error instanceof Deno.errors.ConnectionRefused ||
          error instanceof Deno.errors.ConnectionReset ||
          error instanceof Deno.errors.NotConnected;
        if (!closed) throw error;
        refused++;
      }
    }
    // Hold them until the server has seen them.
    await new Promise((resolve) => setTimeout(resolve, 300));
  } finally {
    for (const connection of connections) connection.close();
  }
}

async function waitFor(server: ServerProcess, pattern: RegExp): Promise<void> {
  for (let i = 0; i < 200 && !pattern.test(server.stderrSoFar); i++) {
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  assert.match(server.stderrSoFar, pattern);
}

async function get(port: number): Promise<string> {
  try {
    const response = await fetch(`http://127.0.0.1:${port}/`);
    return await response.text();
  } catch (error) {
    return `failed: ${error instanceof Error ? error.message : error}`;
  }
}

Deno.test({
  name: "Deno.serve's accept loop ends for good when descriptors run out (denoland/deno#10148)",
  ignore: Deno.build.os !== "linux",
  async fn() {
    await using server = await startServerProcess(
      ["run", "-A", "tests/adapter/deno/accept_failure_server.ts", "bare"],
      { launcher },
    );
    const port = Number(new URL(server.origin).port);
    assert.equal(await get(port), "ok");
    await flood(port);
    await waitFor(server, /^finished: rejected: .*Too many open files \(os error 24\)$/m);
    // Descriptors are free again, but the socket is gone.
    await new Promise((resolve) => setTimeout(resolve, 500));
    await assert.rejects(
      Deno.connect({ hostname: "127.0.0.1", port }),
      Deno.errors.ConnectionRefused,
    );
  },
});

Deno.test({
  name: "ReopeningServer reopens its socket once descriptors free up, with one line each way",
  ignore: Deno.build.os !== "linux",
  async fn() {
    await using server = await startServerProcess(
      ["run", "-A", "tests/adapter/deno/accept_failure_server.ts", "reopening"],
      { launcher },
    );
    const port = Number(new URL(server.origin).port);
    await flood(port);
    await waitFor(server, /^warning: the listening socket on \S+ failed .*os error 24/m);
    let answer = await get(port);
    for (let i = 0; answer !== "ok" && i < 100; i++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      answer = await get(port);
    }
    assert.equal(answer, "ok");
    await waitFor(server, /^listening again on /m);
    assert.equal(server.stderrSoFar.match(/^warning: the listening socket/gm)!.length, 1);
    server.kill("SIGTERM");
    assert.equal((await server.finished()).code, 0);
  },
});

Deno.test("isResourceExhaustion() knows the errors that clear when connections close", () => {
  for (const code of [12, 23, 24, 105]) {
    assert.equal(isResourceExhaustion(new Error(`Something (os error ${code})`)), true, `${code}`);
  }
  assert.equal(isResourceExhaustion(new Error("Address already in use (os error 98)")), false);
  assert.equal(isResourceExhaustion("not an error"), false);
});
