/**
 * A client of `POST /batch` for the tests: posting a log (bytes, or a stream the test
 * controls), gzipping, synthetic credit-approval logs made trace by trace, reading the answer
 * line by line, and reading a metric from `/metrics`.
 *
 * @example
 * ```ts
 * import { postLog, LOG_TYPES } from "./batch_client.ts";
 * declare const origin: string;
 * const response = await postLog(origin, "[]", { "content-type": LOG_TYPES.json });
 * response.status; // 400: no traces
 * ```
 *
 * @module
 */

import { type ServerProcess, startServerProcess } from "./server_process.ts";

/** `cli.ts serve` on a free port without its access log: `bundle` (default the example), `flags`. */
export function serveLogs(bundle?: string, ...flags: string[]): Promise<ServerProcess> {
  const args = ["run", "-A", "cli.ts", "serve", ...(bundle === undefined ? [] : [bundle])];
  return startServerProcess([...args, "--port", "0", "--access-log", "off", ...flags]);
}

/** The `Content-Type` of each log format. */
export const LOG_TYPES = {
  json: "application/json",
  csv: "text/csv",
  xes: "application/xml",
  jsonl: "application/x-ndjson",
} as const;

/** POSTs `body` to `origin/batch` (with `query`, e.g. `?format=xes`). */
export function postLog(
  origin: string,
  body: BodyInit,
  headers: Record<string, string>,
  query = "",
  signal?: AbortSignal,
): Promise<Response> {
  const streamed = body instanceof ReadableStream;
  return fetch(`${origin}/batch${query}`, {
    method: "POST",
    body,
    headers,
    signal,
    ...(streamed ? { duplex: "half" } : {}),
  } as RequestInit);
}

/** `bytes` gzipped. */
export async function gzipBytes(bytes: Uint8Array<ArrayBuffer>): Promise<Uint8Array<ArrayBuffer>> {
  const stream = new Blob([bytes]).stream()
    .pipeThrough(new CompressionStream("gzip"));
  return new Uint8Array(await new Response(stream).arrayBuffer());
}

/** One JSONL line of a credit-approval trace (`examples/credit_approval_coloured`). */
export function creditTrace(index: number): string {
  const amount = 300 + (index * 7919) % 9700;
  const events = index % 2 === 0 ? ["approve loan"] : ["decline loan"];
  return `${
    JSON.stringify({ attributes: { case_id: `c-${index}`, amount: String(amount) }, events })
  }\n`;
}

/**
 * A body of `count` JSONL credit traces, made as it is read, `perChunk` traces a chunk;
 * `onChunk` is awaited before each chunk (a test may hold the body there). Counts what was
 * pulled in `sent.traces`.
 */
export function creditBody(
  count: number,
  perChunk: number,
  onChunk: (index: number) => Promise<void> | void = () => {},
  sent: { traces: number } = { traces: 0 },
): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  let next = 0;
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      if (next >= count) {
        controller.close();
        return;
      }
      await onChunk(next);
      let text = "";
      const end = Math.min(count, next + perChunk);
      for (; next < end; next++) text += creditTrace(next);
      sent.traces = next;
      controller.enqueue(encoder.encode(text));
    },
  }, { highWaterMark: 0 });
}

/** The lines of a streamed answer, as they come. */
export async function* answerLines(response: Response): AsyncGenerator<string> {
  let rest = "";
  for await (const text of response.body!.pipeThrough(new TextDecoderStream())) {
    rest += text;
    let end: number;
    while ((end = rest.indexOf("\n")) >= 0) {
      yield rest.slice(0, end);
      rest = rest.slice(end + 1);
    }
  }
  if (rest !== "") yield rest;
}

/** The value of the unlabelled sample `name` (or `name{labels}`) in `origin`'s `/metrics`. */
export async function metric(origin: string, name: string): Promise<number> {
  const text = await (await fetch(`${origin}/metrics`)).text();
  const line = text.split("\n").find((l) => l.startsWith(`${name} `));
  return line === undefined ? 0 : Number(line.slice(name.length + 1));
}
