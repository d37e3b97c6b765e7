/**
 * `POST /batch` with a client that sends its whole log before it reads any of the answer, as
 * Python's `requests` and most HTTP libraries do, on a real `cli.ts serve`: once the answer has
 * filled the sockets' buffers (the client sends the head of its log and waits for the server to
 * stop scoring), the server reads the rest of the body ahead while the answer waits, so the
 * client gets to the end of its upload and then reads the whole answer; past
 * `--max-log-read-ahead-bytes` the answer ends with the final record, which the client still
 * reads (the rest of its upload is read and dropped). Over HTTP/2, where a read of the body
 * returns a frame, what the server reads ahead is held at about its own size.
 *
 * @module
 */

import assert from "node:assert/strict";
import http2 from "node:http2";
import { creditTrace, metric, serveLogs } from "./batch_client.ts";
import { concatBytes } from "../../../core/bytes/concat_bytes.ts";

/** Traces in the log: about 50 MB, more than loopback's socket buffers hold. */
const TRACES = 500_000;
/** Bytes of the log sent before the client waits for the answer to back up. */
const HEAD_BYTES = 5_000_000;
/** How long the upload may take before the test calls it a deadlock, in ms. */
const UPLOAD_MS = 120_000;

function serve(...flags: string[]) {
  return serveLogs("examples/credit_approval_coloured", ...flags);
}

function jsonlLog(): Uint8Array {
  const encoder = new TextEncoder();
  const parts: Uint8Array[] = [];
  for (let start = 0; start < TRACES; start += 10_000) {
    let text = "";
    for (let i = start; i < start + 10_000; i++) text += creditTrace(i);
    parts.push(encoder.encode(text));
  }
  return concatBytes(parts);
}

/** What the half-duplex client read: the status, and the answer's lines (count and last). */
interface Read {
  readonly status: number;
  readonly lines: number;
  readonly last: string;
}

/**
 * POSTs `log`, writing all of it before reading anything, then reads the answer (chunked, the
 * connection closed after it), counting its lines.
 */
async function sendThenRead(origin: string, log: Uint8Array): Promise<Read> {
  const port = Number(new URL(origin).port);
  using conn = await Deno.connect({ hostname: "127.0.0.1", port });
  const head = "POST /batch HTTP/1.1\r\nhost: 127.0.0.1\r\nconnection: close\r\n" +
    "content-type: application/x-ndjson\r\naccept: application/x-ndjson\r\n" +
    `content-length: ${log.length}\r\n\r\n`;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const deadlock = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error("the server stopped reading the log")), UPLOAD_MS);
  });
  try {
    await Promise.race([writeAll(conn, new TextEncoder().encode(head)), deadlock]);
    // The head of the log, then nothing until the answer has filled the sockets' buffers and
    // the server stopped scoring (it waits for the client), then the rest: the server must read
    // it while its answer waits.
    await Promise.race([writeAll(conn, log.subarray(0, HEAD_BYTES)), deadlock]);
    await scoringStopped(origin);
    await Promise.race([writeAll(conn, log.subarray(HEAD_BYTES)), deadlock]);
  } finally {
    clearTimeout(timer);
  }
  const answer = new ChunkedAnswer();
  for await (const bytes of conn.readable) answer.take(bytes);
  return answer.end();
}

/** An HTTP/1.1 answer with a chunked body, read a piece at a time; only lines are kept count of. */
class ChunkedAnswer {
  #buffer = new Uint8Array(0);
  #status = 0;
  #inHead = true;
  /** Bytes of the current chunk still to come; -1 while its size line is awaited. */
  #left = -1;
  #lines = 0;
  /** The last complete line, and the text after it. */
  #last = "";
  #partial = "";
  readonly #decoder = new TextDecoder();
  readonly #heads = new TextDecoder();

  take(bytes: Uint8Array): void {
    const joined = new Uint8Array(this.#buffer.length + bytes.length);
    joined.set(this.#buffer);
    joined.set(bytes, this.#buffer.length);
    this.#buffer = joined;
    for (;;) {
      if (this.#inHead) {
        const end = indexOf(this.#buffer, "\r\n\r\n");
        if (end < 0) return;
        const head = this.#heads.decode(this.#buffer.subarray(0, end));
        this.#status = Number(head.split(" ")[1]);
        assert.match(head.toLowerCase(), /transfer-encoding: chunked/);
        this.#buffer = this.#buffer.subarray(end + 4);
        this.#inHead = false;
      } else if (this.#left < 0) {
        const end = indexOf(this.#buffer, "\r\n");
        if (end < 0) return;
        this.#left = parseInt(this.#heads.decode(this.#buffer.subarray(0, end)), 16);
        this.#buffer = this.#buffer.subarray(end + 2);
      } else {
        if (this.#buffer.length < this.#left + 2) return;
        this.#data(this.#buffer.subarray(0, this.#left));
        this.#buffer = this.#buffer.subarray(this.#left + 2);
        this.#left = -1;
      }
    }
  }

  #data(bytes: Uint8Array): void {
    const parts = (this.#partial + this.#decoder.decode(bytes, { stream: true })).split("\n");
    this.#partial = parts.pop()!;
    this.#lines += parts.length;
    if (parts.length > 0) this.#last = parts.at(-1)!;
  }

  end(): Read {
    if (this.#partial !== "") {
      return { status: this.#status, lines: this.#lines + 1, last: this.#partial };
    }
    return { status: this.#status, lines: this.#lines, last: this.#last };
  }
}

function indexOf(bytes: Uint8Array, text: string): number {
  const codes = [...text].map((c) => c.charCodeAt(0));
  outer: for (let i = 0; i + codes.length <= bytes.length; i++) {
    for (let k = 0; k < codes.length; k++) if (bytes[i + k] !== codes[k]) continue outer;
    return i;
  }
  return -1;
}

/** Waits until the traces the server has written stop rising for a while (bounded). */
async function scoringStopped(origin: string): Promise<void> {
  let last = -1;
  for (let polls = 0; polls < 600; polls++) {
    await new Promise((resolve) => setTimeout(resolve, 500));
    const written = await metric(origin, "petri_serve_batch_traces_total");
    if (written > 0 && written === last) return;
    last = written;
  }
  throw new Error("the server never stopped scoring while the client did not read");
}

async function writeAll(conn: Deno.Conn, bytes: Uint8Array): Promise<void> {
  for (let at = 0; at < bytes.length;) at += await conn.write(bytes.subarray(at));
}

Deno.test("POST /batch: a client that sends all of its log before reading gets the whole answer", async () => {
  await using server = await serve();
  const read = await sendThenRead(server.origin, jsonlLog());
  assert.equal(read.status, 200);
  assert.equal(read.lines, TRACES);
  assert.equal(JSON.parse(read.last).trace_index, TRACES - 1);
});

Deno.test("POST /batch: past --max-log-read-ahead-bytes such a client reads the final record", async () => {
  await using server = await serve("--max-log-read-ahead-bytes", String(1 << 20));
  const read = await sendThenRead(server.origin, jsonlLog());
  assert.equal(read.status, 200);
  const record = JSON.parse(read.last);
  assert.equal(record.incomplete, true);
  assert.match(record.error, /ahead of reading the answer.*--max-log-read-ahead-bytes/);
  assert.equal(record.traces_written, read.lines - 1);
  assert.ok(read.lines < TRACES);
});

/** The server's peak resident memory so far (`VmHWM`), in bytes. */
async function peakBytes(pid: number): Promise<number> {
  const status = await Deno.readTextFile(`/proc/${pid}/status`);
  return Number(/VmHWM:\s+(\d+) kB/.exec(status)![1]) * 1024;
}

/**
 * POSTs `log` over HTTP/2 (h2c), writing all of it (16 KiB at a time) before reading any of
 * the answer, awaits `sent`, then reads the answer, counting its lines.
 */
async function sendThenReadH2(
  origin: string,
  log: Uint8Array,
  sent: () => Promise<void>,
): Promise<Read> {
  const session = http2.connect(origin);
  try {
    const request = session.request({
      ":method": "POST",
      ":path": "/batch",
      "content-type": "application/x-ndjson",
      accept: "application/x-ndjson",
    });
    const { promise: headed, resolve: head } = Promise.withResolvers<number>();
    request.on("response", (headers) => {
      request.pause(); // read nothing until the whole log is sent
      head(Number(headers[":status"]));
    });
    const text: string[] = [];
    const decoder = new TextDecoder();
    request.on("data", (chunk: Uint8Array) => text.push(decoder.decode(chunk, { stream: true })));
    const ended = new Promise((resolve, reject) => {
      request.on("end", resolve);
      request.on("error", reject);
    });
    for (let at = 0; at < log.length; at += 16 * 1024) {
      if (!request.write(log.subarray(at, at + 16 * 1024))) {
        await new Promise((resolve) => request.once("drain", resolve));
      }
    }
    request.end();
    const status = await headed;
    await sent();
    request.resume();
    await ended;
    const lines = text.join("").trimEnd().split("\n");
    return { status, lines: lines.length, last: lines.at(-1)! };
  } finally {
    session.close();
  }
}

Deno.test("POST /batch: over HTTP/2, such a client's log is held at about its own size", async () => {
  await using server = await serve();
  const log = jsonlLog();
  const idle = await peakBytes(server.pid);
  let grown = 0;
  // Once the whole log is sent, the server holds what it read ahead of scoring.
  const read = await sendThenReadH2(server.origin, log, async () => {
    grown = await peakBytes(server.pid) - idle;
  });
  assert.equal(read.status, 200);
  assert.equal(read.lines, TRACES);
  assert.equal(JSON.parse(read.last).trace_index, TRACES - 1);
  // Read a frame at a time, each frame is kept in a buffer of its own size, not one of 2 MiB.
  assert.ok(
    grown < 4 * log.length,
    `the server grew by ${grown} bytes for a ${log.length}-byte log`,
  );
});
