/**
 * `listen()`'s drain, in-process on raw keep-alive sockets, and the behaviour of Deno's
 * `Deno.serve` that made it accept its own connections (pinned here so a Deno upgrade that
 * changes it shows up); and its fallback on `Deno.serve` (`listenShared`). Both let an answer
 * that streams on after its head (a log being scored) finish, and end it at the deadline.
 *
 * @module
 */

import assert from "node:assert/strict";
import { LINGER_MS, listen } from "../../../adapter/deno/listen.ts";
import { listenShared } from "../../../adapter/deno/listen_shared.ts";
import { complete, RawConnection, readUntilClosed } from "../../cli/serve/raw_http.ts";
import { readBody } from "../../../server/pipeline/body.ts";
import { RequestContext } from "../../../server/pipeline/context.ts";
import { HttpError } from "../../../server/http/errors.ts";

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

Deno.test("listen() drains: the socket closes at once, an open connection is still answered, then closed", async () => {
  let drained = 0;
  const running = listen(ok, { port: 0, onDrain: () => drained++ });
  const port = Number(new URL(running.url).port);
  using open = await RawConnection.open(port);
  assert.equal(complete(await open.request("GET", "/")).headers.get("connection"), undefined);
  const stopped = running.stop();
  assert.equal(drained, 1);
  await refusedSoon(port);
  const answer = complete(await open.request("GET", "/"));
  assert.deepEqual([answer.status, answer.body, answer.headers.get("connection")], [
    200,
    "ok",
    "close",
  ]);
  // The server closes it after that answer (a client that sends on it anyway finds it closed).
  await new Promise((resolve) => setTimeout(resolve, 50));
  assert.equal(await open.request("GET", "/"), "closed");
  await stopped;
  await running.finished;
});

Deno.test("listen() closes an idle keep-alive connection once nothing has arrived for idleMs", async () => {
  const running = listen(ok, { port: 0, idleMs: 300 });
  using idle = await RawConnection.open(Number(new URL(running.url).port));
  complete(await idle.request("GET", "/"));
  const started = performance.now();
  await running.stop();
  const waited = performance.now() - started;
  assert.ok(waited >= 250, `waited ${waited.toFixed(0)} ms for the idle connection`);
  assert.equal(await idle.request("GET", "/"), "closed");
});

Deno.test("listen() with lameDuckMs serves new connections for that long, each answer closing its connection", async () => {
  const running = listen(ok, { port: 0, lameDuckMs: 400, idleMs: 100 });
  const port = Number(new URL(running.url).port);
  const began = performance.now();
  const stopped = running.stop();
  using fresh = await RawConnection.open(port);
  const answer = complete(await fresh.request("GET", "/"));
  assert.deepEqual([answer.status, answer.headers.get("connection")], [200, "close"]);
  await refusedSoon(port);
  assert.ok(performance.now() - began >= 350, "refused only after the lame duck");
  await stopped;
});

Deno.test("listen() ends the drain at drainMs: a connection that never finishes its request is cut", async () => {
  const running = listen(ok, { port: 0, drainMs: 300 });
  using connection = await Deno.connect({
    hostname: "127.0.0.1",
    port: Number(new URL(running.url).port),
  });
  await connection.write(new TextEncoder().encode("GET / HTTP/1.1\r\nhost: x\r\n"));
  const started = performance.now();
  await running.stop();
  const took = performance.now() - started;
  assert.ok(took < 2000, `stopped after ${took.toFixed(0)} ms`);
  assert.notEqual((await readUntilClosed(connection, 1000)).end, "open");
});

Deno.test("listen() accepts the connections queued while its thread was busy before closing the socket", async () => {
  const running = listen(ok, { port: 0 });
  const port = Number(new URL(running.url).port);
  // Clients in another process connect and send while this thread is busy: their connections
  // wait in the kernel's queue, and closing the socket then would reset them.
  const clients = new Deno.Command(Deno.execPath(), {
    args: ["eval", CLIENTS_SCRIPT, String(port)],
    stdout: "piped",
    stderr: "inherit",
  }).spawn();
  const ready = clients.stdout.pipeThrough(new TextDecoderStream()).getReader();
  assert.equal((await ready.read()).value, "connecting\n");
  const busy = performance.now();
  while (performance.now() - busy < 500) {
    // the clients connect meanwhile
  }
  await running.stop();
  const report = (await ready.read()).value ?? "";
  await ready.cancel();
  await clients.status;
  assert.equal(report.trim(), "200 200 200 200 200");
});

/** Connects five times, each sending one request, and prints the statuses on one line. */
const CLIENTS_SCRIPT = `
const port = Number(Deno.args[0]);
console.log("connecting");
await new Promise((resolve) => setTimeout(resolve, 100));
const statuses = await Promise.all(Array.from({ length: 5 }, async () => {
  try {
    const conn = await Deno.connect({ hostname: "127.0.0.1", port });
    await conn.write(new TextEncoder().encode("GET / HTTP/1.1\\r\\nhost: x\\r\\n\\r\\n"));
    const buffer = new Uint8Array(1024);
    const n = await conn.read(buffer);
    conn.close();
    return n === null ? "closed" : new TextDecoder().decode(buffer.subarray(9, 12));
  } catch (error) {
    return error.name;
  }
}));
console.log(statuses.join(" "));
`;

Deno.test("listen() closes the connection of an answer given before its body, although the client never sends it", async () => {
  const running = listen({
    fetch: () => Promise.resolve(Response.json({ detail: "too large" }, { status: 413 })),
  }, { port: 0 });
  try {
    using connection = await Deno.connect({
      hostname: "127.0.0.1",
      port: Number(new URL(running.url).port),
    });
    await connection.write(new TextEncoder().encode(
      "POST / HTTP/1.1\r\nhost: x\r\ncontent-length: 2000000\r\n\r\n",
    ));
    const started = performance.now();
    const { text, end } = await readUntilClosed(connection, LINGER_MS + 2000);
    assert.match(text, /^HTTP\/1\.1 413 [^]*connection: close[^]*\{"detail":"too large"\}$/);
    assert.notEqual(end, "open");
    assert.ok(performance.now() - started >= LINGER_MS - 100, "the rest of the body was awaited");
  } finally {
    await running.stop();
  }
});

Deno.test("listenShared() (on Deno.serve) drains: an open connection is answered with Connection: close, a new one gets 503", async () => {
  let drained = 0;
  const running = listenShared(ok, { port: 0, onDrain: () => drained++ });
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

/** Waits (at most 2 s) until connecting to `port` fails. */
async function refusedSoon(port: number): Promise<void> {
  for (let i = 0; i < 200; i++) {
    try {
      (await Deno.connect({ hostname: "127.0.0.1", port })).close();
    } catch (error) {
      // Reset: this connection was being set up as the socket closed.
      const closed = error instanceof Deno.errors.ConnectionRefused ||
        error instanceof Deno.errors.ConnectionReset;
      assert.ok(closed, String(error));
      return;
    }
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  assert.fail("the socket still accepts connections");
}

/**
 * An app whose answers stream on after their head until `finish()` or the drain's deadline
 * (`onDeadline` ends each with a final line), counting them in `streamsInProgress`, as
 * `POST /batch` does.
 */
function streamingApp() {
  const open = new Set<ReadableStreamDefaultController<Uint8Array>>();
  const encoder = new TextEncoder();
  const end = (line: string) => {
    for (const controller of open) {
      controller.enqueue(encoder.encode(line));
      controller.close();
    }
    open.clear();
  };
  return {
    fetch: () => {
      const body = new ReadableStream<Uint8Array>({
        start(controller) {
          open.add(controller);
          controller.enqueue(encoder.encode("first\n"));
        },
        cancel() {
          open.clear();
        },
      });
      return Promise.resolve(new Response(body));
    },
    streamsInProgress: () => open.size,
    finish: () => end("whole\n"),
    cut: () => end("cut\n"),
  };
}

/** `promise`, or a failure naming `what` if it has not settled within `ms`. */
async function before<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: not within ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([promise, late]);
  } finally {
    clearTimeout(timer);
  }
}

for (const [name, serve] of [["listen()", listen], ["listenShared()", listenShared]] as const) {
  Deno.test(`${name}: the drain lets a streamed answer finish, and its deadline ends one that does not`, async () => {
    // One that finishes within the drain: sent whole, and the drain ends with it.
    const finishing = streamingApp();
    let running = serve(finishing, { port: 0, drainMs: 5000, idleMs: 50 });
    let response = await fetch(running.url);
    let text = response.text();
    let stopped = running.stop();
    await new Promise((resolve) => setTimeout(resolve, 300));
    assert.equal(finishing.streamsInProgress(), 1, "the drain waits for the stream");
    finishing.finish();
    assert.equal(await before(text, 5000, "the whole answer"), "first\nwhole\n");
    await before(stopped, 5000, "the drain");

    // One still streaming at the deadline: onDeadline ends it with its final line.
    const endless = streamingApp();
    running = serve(endless, { port: 0, drainMs: 300, idleMs: 50, onDeadline: endless.cut });
    response = await fetch(running.url);
    text = response.text();
    const began = performance.now();
    stopped = running.stop();
    assert.equal(await before(text, 5000, "the cut answer"), "first\ncut\n");
    await before(stopped, 5000, "the drain");
    assert.ok(performance.now() - began >= 300, "cut before the deadline");
  });
}
