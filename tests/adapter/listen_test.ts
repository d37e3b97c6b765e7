/**
 * `listen()`'s drain, in-process on raw keep-alive sockets, and the behaviour of Deno's
 * `Deno.serve` that it is built around (pinned here so a Deno upgrade that changes it shows up).
 *
 * @module
 */

import assert from "node:assert/strict";
import { listen } from "../../adapter/deno/listen.ts";
import { complete, RawConnection, readUntilClosed } from "../serve/raw_http.ts";
import { readBody } from "../../server/body.ts";
import { RequestContext } from "../../server/context.ts";
import { HttpError } from "../../server/errors.ts";

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

/** Reads a body with a 200 ms time-out and answers 408 (with the app's headers) when it stalls. */
async function bodyOr408(request: Request): Promise<Response> {
  try {
    await readBody(new RequestContext(request, false), { maxBytes: 1 << 20, timeoutMs: 200 });
    return new Response("ok");
  } catch (error) {
    if (!(error instanceof HttpError)) throw error;
    return Response.json({ detail: error.detail }, {
      status: error.status,
      headers: error.headers,
    });
  }
}

/** Sends half a body, then a byte every 50 ms; what came back, and how the connection ended. */
async function trickle(port: number): Promise<{ text: string; end: string }> {
  using connection = await Deno.connect({ hostname: "127.0.0.1", port });
  await connection.write(
    new TextEncoder().encode("POST / HTTP/1.1\r\nhost: x\r\ncontent-length: 100\r\n\r\n{"),
  );
  let on = true;
  const trickler = (async () => {
    while (on) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      if (on) await connection.write(new Uint8Array([32])).catch(() => on = false);
    }
  })();
  const read = await readUntilClosed(connection, 1500);
  on = false;
  await trickler;
  return read;
}

Deno.test("Deno.serve keeps the connection of a 408 open while its client trickles the body", async () => {
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, async (request) => {
    const answer = await bodyOr408(request);
    // What body.ts did before: cancel the stalled body. (Not even that closes the connection.)
    await request.body?.cancel().catch(() => {});
    return answer;
  });
  try {
    const { text, end } = await trickle(server.addr.port);
    assert.match(text, /^HTTP\/1\.1 408 [^]*connection: close/);
    assert.equal(end, "open");
  } finally {
    await server.shutdown();
  }
});

Deno.test("listen() closes the connection of a 408 while its client trickles the body", async () => {
  const running = listen({ fetch: bodyOr408 }, { port: 0 });
  try {
    const { text, end } = await trickle(Number(new URL(running.url).port));
    assert.match(
      text,
      /^HTTP\/1\.1 408 [^]*\{"detail":"The request body did not arrive within 200 ms"\}/,
    );
    assert.notEqual(end, "open");
  } finally {
    await running.stop();
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
