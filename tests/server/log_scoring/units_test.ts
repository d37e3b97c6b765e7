/**
 * The functions and classes of `server/log_scoring/` one at a time, each on the case its
 * documentation names.
 *
 * @module
 */

import assert from "node:assert/strict";
import { LogBody } from "../../../server/log_scoring/log_body.ts";
import { negotiateEncoding, readBatchRequest } from "../../../server/log_scoring/request.ts";
import { LogScoring } from "../../../server/log_scoring/route.ts";
import { Readiness } from "../../../server/pipeline/readiness.ts";
import { ORT } from "../../ort.ts";
import { readBundle } from "../../../adapter/deno/bundle_files.ts";

Deno.test("log_body.ts: constructor", async () => {
  const stalled = new ReadableStream<Uint8Array>({ pull: () => new Promise(() => {}) });
  const options = { signal: new AbortController().signal, idleMs: 10, readAheadBytes: 1024 };
  await assert.rejects(new Response(new LogBody(stalled, options).stream).text(), { status: 408 });
});

/** A byte stream of `total` bytes of `A`, `piece` bytes a read; `onEnd` is told at its end. */
function pieces(total: number, piece: number, onEnd?: () => void): ReadableStream<Uint8Array> {
  let sent = 0;
  return new ReadableStream({
    type: "bytes",
    pull(controller) {
      const request = controller.byobRequest!;
      const view = request.view!;
      const n = Math.min(piece, total - sent);
      new Uint8Array(view.buffer, view.byteOffset, n).fill(65);
      request.respond(n);
      sent += n;
      if (sent === total) {
        controller.close();
        onEnd?.();
      }
    },
  });
}

/** Reads `stream` of `A`s to its end: its bytes, and the buffers its chunks were views of. */
async function readAll(stream: ReadableStream<Uint8Array>) {
  const buffers = new Set<ArrayBufferLike>();
  let bytes = 0;
  for await (const chunk of stream) {
    assert.ok(chunk.every((byte) => byte === 65));
    buffers.add(chunk.buffer);
    bytes += chunk.length;
  }
  return { bytes, buffers };
}

Deno.test("log_body.ts: a body that comes frame by frame is held at about its own size", async () => {
  // HTTP/2 hands a body on a frame at a time: 16 KiB reads into 2 MiB buffers, read ahead.
  const total = 4 << 20;
  const { promise: allSent, resolve: sentAll } = Promise.withResolvers<void>();
  const frames = pieces(total, 16 * 1024, sentAll);
  const options = { signal: new AbortController().signal, idleMs: 1000, readAheadBytes: 2 * total };
  const body = new LogBody(frames, options);
  body.responseWaiting(true);
  await allSent;
  const { bytes, buffers } = await readAll(body.stream);
  assert.equal(bytes, total);
  const held = [...buffers].reduce((sum, buffer) => sum + buffer.byteLength, 0);
  assert.ok(held <= 2 * total, `${held} bytes of buffers held ${total} bytes of body`);
});

Deno.test("log_body.ts: a log sent a byte a piece is cut; one a CSV row a piece is read", async () => {
  const options = { signal: new AbortController().signal, idleMs: 1000, readAheadBytes: 1 << 20 };
  const bytewise = new LogBody(pieces(100_000, 1), options);
  await assert.rejects(new Response(bytewise.stream).arrayBuffer(), {
    status: 400,
    message: /came in 4097 pieces of 1 bytes on average; send it in pieces of at least 16 bytes/,
  });
  // 20 bytes a piece, as a client that sends a CSV row a chunk: read whole, held in few buffers.
  const rows = new LogBody(pieces(100_000, 20), options);
  const { bytes, buffers } = await readAll(rows.stream);
  assert.equal(bytes, 100_000);
  assert.ok(buffers.size <= 100_000 / (16 * 1024), `${buffers.size} buffers`);
});

Deno.test("request.ts: readBatchRequest", () => {
  const request = new Request("http://localhost/batch?format=xes.gz", {
    method: "POST",
    body: new Uint8Array([0x1f, 0x8b]),
  });
  const read = readBatchRequest(request);
  assert.deepEqual([read.format, read.gzip, read.outputFormat], ["xes", true, "json"]);
  assert.throws(
    () => readBatchRequest(new Request("http://localhost/batch?fromat=xes", { method: "POST" })),
    { name: "ValidationError" },
  );
});

Deno.test("request.ts: negotiateEncoding", () => {
  assert.equal(negotiateEncoding(null), "json");
  assert.equal(negotiateEncoding("application/x-ndjson, *\/*;q=0.1"), "jsonl");
  assert.equal(negotiateEncoding("*\/*"), "json");
  assert.throws(() => negotiateEncoding("text/html"), { status: 406 });
});

Deno.test("route.ts: constructor", async () => {
  await using model = await readBundle(ORT, "examples/rest_serving");
  const logs = new LogScoring(model, {
    maxConcurrentLogs: 1,
    idleMs: 30_000,
    readAheadBytes: 64 << 20,
    readiness: new Readiness(),
  });
  assert.equal(logs.inProgress, 0);
});
