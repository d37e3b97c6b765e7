/**
 * `listen()`'s drain, in-process on raw keep-alive sockets, and the behaviour of Deno's
 * `Deno.serve` that it is built around (pinned here so a Deno upgrade that changes it shows up).
 *
 * @module
 */

import assert from "node:assert/strict";
import { listen } from "../../adapter/deno/listen.ts";
import { complete, RawConnection } from "../serve/raw_http.ts";

const ok = { fetch: () => Promise.resolve(new Response("ok")) };

Deno.test("Deno.serve's shutdown() drops a request sent on an idle keep-alive connection", async () => {
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, ok.fetch);
  using connection = await RawConnection.open(server.addr.port);
  assert.equal(complete(await connection.request("GET", "/")).status, 200);
  const shutdown = server.shutdown();
  await new Promise((resolve) => setTimeout(resolve, 50));
  assert.equal(await connection.request("GET", "/"), "closed");
  await shutdown;
});

Deno.test("Deno.serve keeps a connection open after a Connection: close response", async () => {
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen() {} },
    () => new Response("bye", { headers: { connection: "close" } }),
  );
  try {
    using connection = await RawConnection.open(server.addr.port);
    const first = complete(await connection.request("GET", "/"));
    assert.equal(first.headers.get("connection"), "close");
    // The server still answers on it: only the client can honour the header.
    assert.equal(complete(await connection.request("GET", "/")).status, 200);
  } finally {
    await server.shutdown();
  }
});

Deno.test("listen() drains: an open connection is answered with Connection: close, a new one gets 503", async () => {
  let drained = 0;
  const running = listen(ok, { port: 0, onDrain: () => drained++ });
  const port = Number(new URL(running.url).port);
  using open = await RawConnection.open(port);
  assert.equal(complete(await open.request("GET", "/")).headers.get("connection"), undefined);
  const stopped = running.stop();
  assert.equal(drained, 1);
  const answer = complete(await open.request("GET", "/"));
  assert.deepEqual([answer.status, answer.body, answer.headers.get("connection")], [
    200,
    "ok",
    "close",
  ]);
  using late = await RawConnection.open(port);
  const refused = complete(await late.request("GET", "/"));
  assert.equal(refused.status, 503);
  assert.equal(refused.headers.get("connection"), "close");
  assert.deepEqual(JSON.parse(refused.body), { detail: "The server is shutting down" });
  await stopped;
  await running.finished;
  await assert.rejects(RawConnection.open(port), Deno.errors.ConnectionRefused);
});

Deno.test("listen() waits for an idle keep-alive connection up to idleMs before closing", async () => {
  const running = listen(ok, { port: 0, idleMs: 300 });
  using idle = await RawConnection.open(Number(new URL(running.url).port));
  complete(await idle.request("GET", "/"));
  const started = performance.now();
  await running.stop();
  const waited = performance.now() - started;
  assert.ok(waited >= 250, `waited ${waited.toFixed(0)} ms for the idle connection`);
});
