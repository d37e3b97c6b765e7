/**
 * A request body that stalls on a real `cli.ts serve --body-timeout-ms 500`, on raw TCP: the
 * client announces 100 bytes and sends a few. Trickling one byte every 100 ms, or sending
 * nothing more, it gets a 408 naming the limit, with `Connection: close`, and then the server
 * closes the connection (`Deno.serve` alone would keep it open, see
 * `tests/adapter/deno/listen_test.ts`). So does a request whose `Content-Length` is over the limit
 * and whose body never comes: 413 at once, and the connection closed. Either way the server
 * logs nothing about it and keeps serving.
 *
 * @module
 */

import assert from "node:assert/strict";
import { type ServerProcess, startServerProcess } from "./server_process.ts";
import { readUntilClosed } from "./raw_http.ts";

const HEAD = "POST /forward HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-type: application/json\r\n" +
  'content-length: 100\r\n\r\n{"input_marking":';
const DETAIL = /\{"detail":"The request body did not arrive within 500 ms"\}/;

async function startServer(): Promise<ServerProcess> {
  return await startServerProcess([
    "run",
    "-A",
    "cli.ts",
    "serve",
    "--port",
    "0",
    "--body-timeout-ms",
    "500",
    "--access-log",
    "off",
  ]);
}

/**
 * The server still answers, exits 0 on SIGTERM and has written only its URL line and the
 * drain's two lines (no error, no warning).
 */
async function stillServingQuietly(server: ServerProcess): Promise<void> {
  const health = await fetch(`${server.origin}/healthz`);
  assert.equal(health.status, 200);
  await health.body?.cancel();
  server.kill("SIGTERM");
  const exit = await server.finished();
  assert.equal(exit.code, 0, exit.stderr);
  const lines = exit.stderr.trim().split("\n");
  assert.equal(lines.length, 3, `only the URL and drain lines: ${exit.stderr}`);
  assert.match(lines[0]!, /^serving /);
  assert.match(lines[1]!, /^draining /);
  assert.equal(lines[2], "stopped");
}

Deno.test("cli.ts serve answers a body trickled at 10 bytes/s with 408 after --body-timeout-ms and closes its connection", async () => {
  await using server = await startServer();
  using connection = await Deno.connect({
    hostname: "127.0.0.1",
    port: Number(new URL(server.origin).port),
  });
  await connection.write(new TextEncoder().encode(HEAD));
  let trickling = true;
  const trickler = (async () => {
    while (trickling) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      // Fails once the server has closed the connection.
      if (trickling) await connection.write(new Uint8Array([32])).catch(() => trickling = false);
    }
  })();
  // The 408 comes after 0.5 s; the connection must be closed well within 10 s.
  const { text, end } = await readUntilClosed(connection, 10_000);
  trickling = false;
  await trickler;
  assert.match(text, /^HTTP\/1\.1 408 /, text);
  assert.match(text, /\r\nconnection: close\r\n/i, text);
  assert.match(text, DETAIL, text);
  assert.notEqual(end, "open", `the connection is closed after the 408; got ${text}`);
  await stillServingQuietly(server);
});

Deno.test("cli.ts serve answers a body that stops with 408 and closes the connection although the client sends nothing more", async () => {
  await using server = await startServer();
  using connection = await Deno.connect({
    hostname: "127.0.0.1",
    port: Number(new URL(server.origin).port),
  });
  await connection.write(new TextEncoder().encode(HEAD));
  // The 408 after 0.5 s, then the connection closes a second later (LINGER_MS).
  const silent = await readUntilClosed(connection, 5_000);
  assert.match(silent.text, /^HTTP\/1\.1 408 /, silent.text);
  assert.match(silent.text, DETAIL, silent.text);
  assert.notEqual(silent.end, "open", "the connection is closed though the client is silent");
  await stillServingQuietly(server);
});

Deno.test("cli.ts serve answers a Content-Length over the limit 413 at once and closes the connection, although no body comes", async () => {
  await using server = await startServer();
  using connection = await Deno.connect({
    hostname: "127.0.0.1",
    port: Number(new URL(server.origin).port),
  });
  await connection.write(new TextEncoder().encode(
    "POST /forward HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-type: application/json\r\n" +
      "content-length: 2000000\r\n\r\n",
  ));
  const { text, end } = await readUntilClosed(connection, 5_000);
  assert.match(text, /^HTTP\/1\.1 413 /, text);
  assert.match(text, /\r\nconnection: close\r\n/i, text);
  assert.notEqual(end, "open", `the connection is closed though no body came; got ${text}`);
  await stillServingQuietly(server);
});
