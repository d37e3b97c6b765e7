/**
 * Admission control in `createApp` (server/pipeline/admission.ts), without a socket: the body-memory
 * budget refuses a request before its body is read (by `Content-Length`) or while it streams
 * (without one), a large answer is held until it has been read, the drain's deadline answers
 * 503 with `Connection: close`, the probes never wait, and the new metrics count it all.
 *
 * @module
 */

import assert from "node:assert/strict";
import { type App, type AppOptions, createApp } from "../../../server/app.ts";
import { Readiness } from "../../../server/pipeline/readiness.ts";
import { Admission } from "../../../server/pipeline/admission.ts";
import { RequestContext } from "../../../server/pipeline/context.ts";
import { openModel, xorDescription } from "../models.ts";

const BODY = JSON.stringify({ input_marking: { p_in: 0.5 } });

async function withApp(
  fn: (app: App) => Promise<void>,
  options: AppOptions = {},
): Promise<void> {
  await using model = await openModel(xorDescription());
  await fn(await createApp(model, options));
}

/** A POST whose body arrives only when `send()` is called; `pulled` tells whether it was read. */
function heldRequest(path: string, body: string, declare: boolean) {
  const bytes = new TextEncoder().encode(body);
  let pulled = false;
  const { promise: sent, resolve: send } = Promise.withResolvers<void>();
  const stream = new ReadableStream<Uint8Array>({
    async pull(controller) {
      pulled = true;
      await sent;
      controller.enqueue(bytes);
      controller.close();
    },
  }, { highWaterMark: 0 });
  const request = new Request(`http://localhost${path}`, {
    method: "POST",
    body: stream,
    headers: declare ? { "content-length": String(bytes.byteLength) } : {},
    // @ts-ignore: Deno's RequestInit takes duplex for stream bodies
    duplex: "half",
  });
  return { request, send, pulled: () => pulled };
}

async function metricsOf(app: App): Promise<string> {
  return await (await app.fetch(new Request("http://localhost/metrics"))).text();
}

Deno.test("a body that would pass --max-body-memory-bytes waits unread for room, then is refused 503 at its deadline: a large one unread, a small one dropped; the probes do not wait", async () => {
  await withApp(async (app) => {
    const padded = (size: number) =>
      JSON.stringify({ input_marking: { p_in: 0.5 }, pad: "x".repeat(size) });
    const first = heldRequest("/forward", padded(70_000), true); // holds 70 kB of the 100 kB
    const answering = app.fetch(first.request);
    await new Promise((resolve) => setTimeout(resolve, 10));
    const large = heldRequest("/forward", padded(70_000), true);
    const waitedFrom = performance.now();
    const refused = await app.fetch(large.request);
    assert.ok(performance.now() - waitedFrom >= 250, "it waited for room until its deadline");
    assert.equal(refused.status, 503);
    assert.equal(refused.headers.get("retry-after"), "1");
    assert.equal(refused.headers.get("connection"), "close", "its unread body ends the connection");
    assert.match(
      (await refused.json()).detail,
      /waited \d+ ms for room, up to its deadline \(the queue's time-out is 300 ms\): the request bodies and answers held stayed at their limit of 100000 bytes/,
    );
    assert.equal(large.pulled(), false, "the refused body was never read");
    // A small body that does not fit is read and dropped: its connection can be reused.
    const small = heldRequest("/forward", padded(40_000), true);
    small.send();
    const dropped = await app.fetch(small.request);
    assert.equal(dropped.status, 503);
    assert.equal(dropped.headers.get("connection"), null);
    assert.equal(small.pulled(), true);
    // The probes and the metrics are answered while the budget is full.
    for (const path of ["/healthz", "/readyz", "/metrics"]) {
      assert.equal((await app.fetch(new Request(`http://localhost${path}`))).status, 200);
    }
    const during = await metricsOf(app);
    assert.match(during, /^petri_serve_requests_in_flight 1$/m);
    assert.match(during, /^petri_serve_held_body_bytes 700\d\d$/m);
    // /v2 gets the protocol's error shape.
    const refusedV2 = await app.fetch(
      heldRequest("/v2/models/model/infer", padded(70_000), true).request,
    );
    assert.equal(refusedV2.status, 503);
    assert.match((await refusedV2.json()).error, /stayed at their limit/);
    // A request waiting for room is let in as soon as there is some.
    const third = heldRequest("/forward", padded(70_000), true);
    third.send();
    const waiting = app.fetch(third.request);
    await new Promise((resolve) => setTimeout(resolve, 20));
    assert.match(await metricsOf(app), /^petri_serve_requests_waiting 1$/m);
    first.send();
    assert.equal((await answering).status, 200);
    assert.equal((await waiting).status, 200, "admitted once the first request was answered");
    const after = await metricsOf(app);
    assert.match(after, /^petri_serve_requests_shed_total\{reason="body_memory"\} 3$/m);
    assert.match(after, /^petri_serve_requests_in_flight 0$/m);
    assert.match(after, /^petri_serve_held_body_bytes 0$/m);
  }, { maxBodyMemoryBytes: 100_000, queueTimeoutMs: 300 });
});

Deno.test("a body without Content-Length is counted as it streams, and refused once it passes the budget", async () => {
  await withApp(async (app) => {
    const padded = JSON.stringify({ input_marking: { p_in: 0.5 }, pad: "x".repeat(600) });
    const first = heldRequest("/forward", padded, true);
    const answering = app.fetch(first.request);
    await new Promise((resolve) => setTimeout(resolve, 10));
    const chunked = heldRequest("/forward", padded, false);
    chunked.send();
    const refused = await app.fetch(chunked.request);
    assert.equal(refused.status, 503);
    assert.match((await refused.json()).detail, /past its limit of 1000 bytes/);
    first.send();
    assert.equal((await answering).status, 200);
    // Alone, the same body is admitted.
    const alone = heldRequest("/forward", padded, false);
    alone.send();
    assert.equal((await app.fetch(alone.request)).status, 200);
  }, { maxBodyMemoryBytes: 1000 });
});

Deno.test("a large answer is held in the budget until it has been read", async () => {
  await withApp(async (app) => {
    const rows = 5_000;
    const body = JSON.stringify({
      inputs: [{
        name: "marking",
        datatype: "FP32",
        shape: [rows, 3],
        data: new Array(rows * 3).fill(0.5),
      }],
    });
    const response = await app.fetch(
      new Request("http://localhost/v2/models/model/infer", {
        method: "POST",
        body,
        headers: { "content-length": String(body.length) },
      }),
    );
    assert.equal(response.status, 200);
    assert.equal(response.headers.get("content-length"), null, "streamed as it is written");
    // The run's output arrays, which the stream reads from: rows × (3 places + 2 transitions).
    const size = 4 * rows * 5;
    assert.ok(size > 64 << 10, `a large answer: ${size} bytes`);
    const held = Number(/^petri_serve_held_body_bytes (\d+)$/m.exec(await metricsOf(app))![1]);
    assert.equal(held, body.length + size, "the body and the answer, until it is read");
    assert.equal((await response.json()).outputs[0].shape[0], rows);
    await new Promise((resolve) => setTimeout(resolve, 0));
    assert.match(await metricsOf(app), /^petri_serve_held_body_bytes 0$/m);
  });
});

Deno.test("after the drain's deadline (Readiness.cutOff) model requests are answered 503 with Connection: close", async () => {
  const readiness = new Readiness();
  await withApp(async (app) => {
    readiness.cutOff();
    const response = await app.fetch(
      new Request("http://localhost/forward", { method: "POST", body: BODY }),
    );
    assert.equal(response.status, 503);
    assert.equal(response.headers.get("connection"), "close");
    assert.equal(response.headers.get("retry-after"), "1");
    assert.deepEqual(await response.json(), { detail: "The server is shutting down" });
    assert.equal((await app.fetch(new Request("http://localhost/healthz"))).status, 200);
    const ready = await app.fetch(new Request("http://localhost/readyz"));
    assert.deepEqual([ready.status, await ready.json()], [503, { status: "draining" }]);
    assert.match(
      await metricsOf(app),
      /^petri_serve_requests_shed_total\{reason="shutting_down"\} 1$/m,
    );
  }, { readiness });
});

Deno.test("createApp refuses admission settings that are not positive", async () => {
  await using model = await openModel(xorDescription());
  for (
    const [options, message] of [
      [{ maxBodyMemoryBytes: 0 }, /maxBodyMemoryBytes must be a positive integer, got 0/],
      [{ maxQueueRows: 1.5 }, /maxQueueRows must be a positive integer, got 1.5/],
      [{ queueTimeoutMs: -1 }, /queueTimeoutMs must be a positive number, got -1/],
    ] as const
  ) {
    await assert.rejects(createApp(model, options), { name: "RangeError", message });
  }
});

Deno.test("while the model's queue is full, requests wait unread and are refused at their deadline; past maxWaiting at once", async () => {
  const queue = {
    queuedRows: 0,
    limits: { maxQueueRows: 100, queueTimeoutMs: 1000 },
    hasRoom: () => true,
    cancelAdmitted: () => {},
  };
  const shed: string[] = [];
  const admission = new Admission({
    maxBodyMemoryBytes: 1 << 20,
    maxBodyBytes: 1 << 20,
    queue,
    queueTimeoutMs: 300,
    maxWaiting: 1,
    onRefused: (reason) => shed.push(reason),
  });
  const ok = () => Promise.resolve(new Response("ran"));
  const attempt = async (body = BODY) => {
    const held = heldRequest("/forward", body, true);
    held.send();
    const response = await admission.admit(new RequestContext(held.request, false), ok);
    return { response, read: held.pulled() };
  };
  assert.equal((await attempt()).response.status, 200);
  queue.queuedRows = 100;
  const full = await attempt();
  assert.equal(full.response.status, 503);
  assert.equal(full.response.headers.get("retry-after"), "1");
  assert.equal(full.response.headers.get("connection"), null, "a small body is dropped");
  assert.match(
    (await full.response.json()).detail,
    /the model's queue stayed full \(100 rows wait/,
  );
  const large = await attempt("x".repeat(100_000));
  assert.equal(large.response.status, 503);
  assert.equal(large.read, false, "a large body is left unread");
  assert.equal(large.response.headers.get("connection"), "close");
  // With one request already waiting, the next is refused at once.
  const blocked = attempt();
  const atOnce = await attempt();
  assert.equal(atOnce.response.status, 503);
  assert.match((await atOnce.response.json()).detail, /1 requests already wait for room/);
  queue.queuedRows = 0;
  assert.equal((await blocked).response.status, 200, "let in once the queue has room");
  assert.deepEqual(shed, ["queue_full", "queue_full", "queue_full"]);
});
