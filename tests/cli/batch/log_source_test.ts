/**
 * The log sources' limits and failures, against real servers on 127.0.0.1: an answer that
 * stalls (the timeout, shortened), a body shorter than its `Content-Length` (a raw TCP
 * server), a `Content-Range` that does not answer the request, and reads from any offset of a
 * file, of a server honouring `Range` (in windows) and of one ignoring it (one stream, a read
 * further back starting another).
 *
 * @module
 */

import assert from "node:assert/strict";
import { fileLogSource, urlLogSource } from "../../../cli/batch/log_source.ts";
import { TraceReadError } from "../../../core/event_log/errors.ts";
import { serveLog } from "./log_server.ts";

const LOG = new TextEncoder().encode("0123456789".repeat(600_000)); // 6,000,000 bytes

async function text(stream: ReadableStream<Uint8Array>, bytes?: number): Promise<string> {
  const reader = stream.getReader();
  const chunks: Uint8Array[] = [];
  let length = 0;
  while (bytes === undefined || length < bytes) {
    const { done, value } = await reader.read();
    if (done) break;
    chunks.push(value);
    length += value.length;
  }
  await reader.cancel();
  const all = new Uint8Array(length);
  let at = 0;
  for (const chunk of chunks) {
    all.set(chunk, at);
    at += chunk.length;
  }
  return new TextDecoder().decode(bytes === undefined ? all : all.subarray(0, bytes));
}

const note = () => {};

Deno.test("ranges of a file, of a Range server (windows) and of one ignoring Range", async () => {
  const path = await Deno.makeTempFile();
  await Deno.writeFile(path, LOG);
  const expected = (start: number, length: number) =>
    new TextDecoder().decode(LOG.subarray(start, start + length));
  try {
    const file = fileLogSource(path, LOG.length);
    const fileRanges = (await file.ranges())!;
    assert.equal(await text(fileRanges.read(123_457, 130_000), 1000), expected(123_457, 1000));
    assert.ok(file.bytesRead <= 1000 + 64 * 1024, `${file.bytesRead}`);
    for (const ranges of [true, false]) {
      await using server = serveLog(LOG, { ranges });
      const notes: string[] = [];
      const source = await urlLogSource(new URL(`${server.url}/log.jsonl`), {
        ranges: true,
        note: (line) => notes.push(line),
      });
      const byteSource = (await source.ranges())!;
      assert.equal(byteSource.size, LOG.length);
      assert.equal(notes.length, ranges ? 0 : 1);
      // Forward, then a little back (kept bytes), then far back (a new request), then whole.
      assert.equal(await text(byteSource.read(10, 20), 30), expected(10, 30));
      const far = 5_000_000;
      assert.equal(await text(byteSource.read(far, far + 100), 90_000), expected(far, 90_000));
      assert.equal(await text(byteSource.read(far - 1000, far), 5000), expected(far - 1000, 5000));
      const before = server.requests;
      assert.equal(await text(byteSource.read(5, 6), 7), expected(5, 7));
      assert.equal(
        server.requests,
        ranges ? before : before + 1,
        "a new GET only when ignoring Range",
      );
      assert.equal(await text(byteSource.read(0, LOG.length)), expected(0, LOG.length));
      await source.close();
    }
  } finally {
    await Deno.remove(path);
  }
});

Deno.test("an answer that stalls fails after the timeout, naming the URL", async () => {
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, () => {
    // Headers at once, then one chunk, then nothing.
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(new TextEncoder().encode("[\n"));
      },
    });
    return new Response(body);
  });
  try {
    const source = await urlLogSource(new URL(`http://127.0.0.1:${server.addr.port}/log.json`), {
      ranges: false,
      note,
      timeoutMs: 300,
    });
    await assert.rejects(text(source.open()), (error: unknown) => {
      assert.ok(error instanceof TraceReadError);
      assert.equal(
        error.message,
        `http://127.0.0.1:${server.addr.port}/log.json: the answer stalled: no bytes within 0.3 s`,
      );
      return true;
    });
    await source.close();
  } finally {
    await server.shutdown();
  }
});

/** A raw HTTP server answering every request with `answer` (then closing). */
function rawServer(answer: string): { port: number; close: () => void } {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  (async () => {
    for await (const connection of listener) {
      const buffer = new Uint8Array(4096);
      await connection.read(buffer).catch(() => null);
      await connection.write(new TextEncoder().encode(answer)).catch(() => 0);
      connection.close();
    }
  })().catch(() => {});
  return { port: (listener.addr as Deno.NetAddr).port, close: () => listener.close() };
}

Deno.test("a body shorter than declared, or a Content-Range that does not fit, fails", async () => {
  const short = rawServer(
    "HTTP/1.1 200 OK\r\ncontent-length: 100\r\nconnection: close\r\n\r\n[1,2]",
  );
  try {
    const url = new URL(`http://127.0.0.1:${short.port}/log.json`);
    const source = await urlLogSource(url, { ranges: false, note });
    await assert.rejects(text(source.open()), (error: unknown) => {
      assert.ok(error instanceof TraceReadError, String(error));
      assert.match(error.message, /^http:\/\/127\.0\.0\.1:\d+\/log\.json: /);
      return true;
    });
    await source.close();
  } finally {
    short.close();
  }
  const wrong = rawServer(
    "HTTP/1.1 206 Partial Content\r\ncontent-range: bytes 5-9/100\r\ncontent-length: 5\r\n" +
      "connection: close\r\n\r\n01234",
  );
  try {
    const url = new URL(`http://127.0.0.1:${wrong.port}/log.json`);
    await assert.rejects(urlLogSource(url, { ranges: true, note }), (error: unknown) => {
      assert.ok(error instanceof TraceReadError);
      assert.match(
        error.message,
        /log\.json: the server answered a Range request from byte 0 with Content-Range 'bytes 5-9\/100'$/,
      );
      return true;
    });
  } finally {
    wrong.close();
  }
});
