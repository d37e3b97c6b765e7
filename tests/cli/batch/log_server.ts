/**
 * A local HTTP server on 127.0.0.1 serving one log's bytes at any path ending in the log's
 * name (a 404 for paths holding `missing`), either honouring `Range` requests (206 with
 * `Content-Range`) or ignoring them (200 with the whole log), and counting the requests and
 * the bytes it served: for a 206, the range's length; for a 200, the bytes the client pulled
 * before it stopped reading. With `etag`, every answer carries that `ETag`.
 *
 * @example
 * ```ts
 * import { serveLog } from "./log_server.ts";
 * await using server = serveLog(new TextEncoder().encode("[]"), { ranges: true });
 * await (await fetch(`${server.url}/log.json`)).text();
 * server.bytes; // 2
 * ```
 *
 * @module
 */

/** A running log server. */
export interface LogServer extends AsyncDisposable {
  /** `http://127.0.0.1:PORT`. */
  readonly url: string;
  /** Requests since the last reset. */
  readonly requests: number;
  /** Bytes served since the last reset. */
  readonly bytes: number;
  /** Zeroes the counts. */
  reset(): void;
  /** The port. */
  readonly port: number;
}

/** Serves `log`; see the module documentation. */
export function serveLog(
  log: Uint8Array,
  options: { readonly ranges: boolean; readonly etag?: string },
): LogServer {
  const etag: Record<string, string> = options.etag === undefined ? {} : { etag: options.etag };
  let requests = 0;
  let bytes = 0;
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, (request) => {
    requests++;
    if (new URL(request.url).pathname.includes("missing")) {
      return new Response("no such log", { status: 404 });
    }
    const range = options.ranges ? request.headers.get("range") : null;
    const match = range === null ? null : /^bytes=(\d+)-(\d*)$/.exec(range);
    if (match) {
      const start = Number(match[1]);
      const end = Math.min(match[2] ? Number(match[2]) : log.length - 1, log.length - 1);
      if (start >= log.length) {
        return new Response(null, {
          status: 416,
          headers: { "content-range": `bytes */${log.length}` },
        });
      }
      bytes += end - start + 1;
      return new Response(log.slice(start, end + 1), {
        status: 206,
        headers: { "content-range": `bytes ${start}-${end}/${log.length}`, ...etag },
      });
    }
    // The whole log, counted as the client pulls it, in 16 KiB pieces.
    let at = 0;
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (at >= log.length) {
          controller.close();
          return;
        }
        const piece = log.slice(at, at + 16384);
        at += piece.length;
        bytes += piece.length;
        controller.enqueue(piece);
      },
    });
    return new Response(body, { headers: { "content-length": String(log.length), ...etag } });
  });
  const port = server.addr.port;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    get requests() {
      return requests;
    },
    get bytes() {
      return bytes;
    },
    reset() {
      requests = 0;
      bytes = 0;
    },
    async [Symbol.asyncDispose]() {
      await server.shutdown();
    },
  };
}
