/**
 * The drain's deadline on a real `cli.ts serve --drain-ms 2000` holding many connections that
 * would each keep a drain waiting: 200 that sent half a request head, 20 trickling a request
 * body, 20 that went silent mid-body, 10 idle keep-alive ones, 4 that pipelined large answers
 * and read none of them, and 8 clients posting `/forward` without pause; and again with only
 * the kinds that leave no request in flight (half heads, idle, unread answers), where the
 * drain's wait for `shutdown()` is what must end at the deadline. After SIGTERM the process
 * exits 0 within the deadline plus 3 s (a bound proving that it ends, not a speed
 * measurement).
 *
 * @module
 */

import assert from "node:assert/strict";
import { complete, RawConnection } from "./raw_http.ts";
import { startServerProcess } from "./server_process.ts";

const DRAIN_MS = 2_000;
const MARGIN_MS = 3_000;
const encoder = new TextEncoder();

interface Load {
  readonly halfHeads: number;
  readonly trickledBodies: number;
  readonly silentBodies: number;
  readonly idle: number;
  readonly unreadAnswers: number;
  readonly busy: number;
}

const EVERYTHING: Load = {
  halfHeads: 200,
  trickledBodies: 20,
  silentBodies: 20,
  idle: 10,
  unreadAnswers: 4,
  busy: 8,
};
const NOTHING_IN_FLIGHT: Load = {
  halfHeads: 200,
  trickledBodies: 0,
  silentBodies: 0,
  idle: 10,
  unreadAnswers: 4,
  busy: 0,
};

for (
  const [name, load] of [["262 stubborn connections", EVERYTHING], [
    "unread answers and nothing in flight",
    NOTHING_IN_FLIGHT,
  ]] as const
) {
  Deno.test(`cli.ts serve exits within --drain-ms (+3 s) after SIGTERM, holding ${name}`, () =>
    drainUnder(load));
}

async function drainUnder(load: Load): Promise<void> {
  await using server = await startServerProcess([
    "run",
    "-A",
    "cli.ts",
    "serve",
    "--port",
    "0",
    "--drain-ms",
    String(DRAIN_MS),
    "--access-log",
    "off",
  ]);
  const port = Number(new URL(server.origin).port);
  const open: Deno.TcpConn[] = [];
  const connect = async (bytes: string) => {
    const connection = await Deno.connect({ hostname: "127.0.0.1", port });
    open.push(connection);
    if (bytes) await connection.write(encoder.encode(bytes));
    return connection;
  };
  const idle: RawConnection[] = [];
  let running = true;
  const tasks: Promise<unknown>[] = [];
  try {
    for (let i = 0; i < load.halfHeads; i++) {
      await connect("POST /forward HTTP/1.1\r\nhost: 127.0.0.1\r\n");
    }
    const bodyHead =
      "POST /forward HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-type: application/json\r\n" +
      'content-length: 1000\r\n\r\n{"input_marking":';
    for (let i = 0; i < load.silentBodies; i++) await connect(bodyHead);
    for (let i = 0; i < load.trickledBodies; i++) {
      const connection = await connect(bodyHead);
      tasks.push((async () => {
        while (running) {
          await new Promise((resolve) => setTimeout(resolve, 200));
          if (running) await connection.write(encoder.encode(" ")).catch(() => running = false);
        }
      })());
    }
    for (let i = 0; i < load.idle; i++) {
      const connection = await RawConnection.open(port);
      idle.push(connection);
      assert.equal(complete(await connection.request("GET", "/healthz")).status, 200);
    }
    for (let i = 0; i < load.unreadAnswers; i++) {
      await connect("GET /playground/main.js HTTP/1.1\r\nhost: 127.0.0.1\r\n\r\n".repeat(40));
    }
    const body = JSON.stringify({ input_marking: { p_submitted: 1 } });
    for (let i = 0; i < load.busy; i++) {
      tasks.push((async () => {
        using connection = await RawConnection.open(port);
        for (let sent = 0; running && sent < 100_000; sent++) {
          const answer = await connection.request("POST", "/forward", body);
          if (answer === "closed" || answer.status !== 200) return;
          if (answer.headers.get("connection") === "close") return;
        }
      })());
    }
    await new Promise((resolve) => setTimeout(resolve, 500));
    assert.equal(server.exited, false);

    const signalled = performance.now();
    server.kill("SIGTERM");
    let timer: ReturnType<typeof setTimeout> | undefined;
    const exit = await Promise.race([
      server.finished(),
      new Promise<"still running">((resolve) => {
        timer = setTimeout(() => resolve("still running"), DRAIN_MS + MARGIN_MS + 10_000);
      }),
    ]);
    clearTimeout(timer);
    const tookMs = performance.now() - signalled;
    assert.notEqual(exit, "still running", "the process ends after SIGTERM");
    if (exit === "still running") return;
    assert.equal(exit.code, 0, exit.stderr);
    assert.ok(
      tookMs <= DRAIN_MS + MARGIN_MS,
      `exited ${tookMs.toFixed(0)} ms after SIGTERM; the bound is ${DRAIN_MS + MARGIN_MS} ms`,
    );
  } finally {
    running = false;
    for (const connection of idle) connection.close();
    for (const connection of open) connection.close();
    await Promise.allSettled(tasks);
  }
}
