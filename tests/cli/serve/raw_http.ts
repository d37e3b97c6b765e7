/**
 * A bare HTTP/1.1 keep-alive client on `Deno.connect`, for tests that must see exactly what
 * happens on one connection: whether an answer came complete, whether the server closed the
 * connection without one, and what `Connection` header it sent. (`fetch` hides all three: it
 * pools connections and retries.)
 *
 * @example
 * ```ts
 * import { RawConnection } from "./raw_http.ts";
 * using connection = await RawConnection.open(8000);
 * const answer = await connection.request("GET", "/healthz");
 * answer === "closed" || answer.status; // 200
 * ```
 *
 * @module
 */

/** One complete answer. */
export interface RawResponse {
  readonly status: number;
  /** Header names in lower case. */
  readonly headers: ReadonlyMap<string, string>;
  readonly body: string;
  /** The body's bytes as they came (compressed, when the answer is). */
  readonly bytes: Uint8Array<ArrayBuffer>;
}

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/**
 * `answer` itself, or a failed assertion when the connection closed without one.
 *
 * @example
 * ```ts
 * import { complete, RawConnection } from "./raw_http.ts";
 * using connection = await RawConnection.open(8000);
 * complete(await connection.request("GET", "/healthz")).status; // 200
 * ```
 */
export function complete(answer: RawResponse | "closed"): RawResponse {
  if (answer === "closed") throw new Error("The connection closed before a complete answer");
  return answer;
}

/** One connection (TCP to 127.0.0.1, or a Unix socket) speaking HTTP/1.1 with keep-alive. */
export class RawConnection implements Disposable {
  readonly #conn: Deno.Conn;
  #buffer: Uint8Array = new Uint8Array(0);
  #closed = false;

  private constructor(conn: Deno.Conn) {
    this.#conn = conn;
  }

  /**
   * Connects to 127.0.0.1:`port`; rejects with `Deno.errors.ConnectionRefused` when nothing
   * listens there.
   *
   * @example
   * ```ts
   * import { RawConnection } from "./raw_http.ts";
   * using connection = await RawConnection.open(8000);
   * ```
   */
  static async open(port: number): Promise<RawConnection> {
    return new RawConnection(await Deno.connect({ hostname: "127.0.0.1", port }));
  }

  /**
   * Connects to the Unix socket at `path` (a proxy in front of the servers, say).
   *
   * @example
   * ```ts
   * import { RawConnection } from "./raw_http.ts";
   * using connection = await RawConnection.openUnix("/tmp/front.sock");
   * ```
   */
  static async openUnix(path: string): Promise<RawConnection> {
    return new RawConnection(await Deno.connect({ transport: "unix", path }));
  }

  /**
   * Sends one request (with extra `headers`; a `host` replaces `127.0.0.1`) and reads its
   * answer; `"closed"` when the server
   * closed the connection (or reset it) before the answer was complete. The body is read by
   * `Content-Length`, or chunk by chunk when chunked (none for `HEAD`, 204 and 304).
   *
   * @example
   * ```ts
   * import { RawConnection } from "./raw_http.ts";
   * using connection = await RawConnection.open(8000);
   * await connection.request("POST", "/forward", '{"input_marking":{}}');
   * await connection.request("HEAD", "/healthz", undefined, { "accept-encoding": "gzip" });
   * ```
   */
  async request(
    method: string,
    path: string,
    body?: string,
    headers: Readonly<Record<string, string>> = {},
  ): Promise<RawResponse | "closed"> {
    const bytes = body === undefined ? new Uint8Array(0) : encoder.encode(body);
    // A `host` among `headers` replaces the default one.
    const host = Object.hasOwn(headers, "host") ? "" : "host: 127.0.0.1\r\n";
    const head = `${method} ${path} HTTP/1.1\r\n${host}` +
      (body === undefined
        ? ""
        : `content-type: application/json\r\ncontent-length: ${bytes.length}\r\n`) +
      Object.entries(headers).map(([name, value]) => `${name}: ${value}\r\n`).join("") +
      "\r\n";
    try {
      // A write may take only part of a large request: the rest follows.
      const request = concat(encoder.encode(head), bytes);
      for (let sent = 0; sent < request.length;) {
        sent += await this.#conn.write(request.subarray(sent));
      }
      return await this.#readResponse(method === "HEAD");
    } catch (error) {
      if (error instanceof Deno.errors.ConnectionReset || error instanceof Deno.errors.BrokenPipe) {
        return "closed";
      }
      throw error;
    }
  }

  /** Closes the connection (once). */
  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#conn.close();
  }

  [Symbol.dispose](): void {
    this.close();
  }

  async #readResponse(head: boolean): Promise<RawResponse | "closed"> {
    let end: number;
    while ((end = indexOfHeadEnd(this.#buffer)) < 0) {
      if (!await this.#fill()) return "closed";
    }
    const lines = decoder.decode(this.#buffer.subarray(0, end)).split("\r\n");
    const status = Number(lines[0]!.split(" ")[1]);
    const headers = new Map<string, string>();
    for (const line of lines.slice(1)) {
      const colon = line.indexOf(":");
      headers.set(line.slice(0, colon).trim().toLowerCase(), line.slice(colon + 1).trim());
    }
    const bodiless = head || status === 204 || status === 304;
    this.#buffer = this.#buffer.subarray(end + 4);
    if (!bodiless && headers.get("transfer-encoding")?.toLowerCase() === "chunked") {
      const bytes = await this.#readChunked();
      return bytes === "closed" ? bytes : { status, headers, body: decoder.decode(bytes), bytes };
    }
    const length = bodiless ? 0 : Number(headers.get("content-length") ?? "0");
    while (this.#buffer.length < length) {
      if (!await this.#fill()) return "closed";
    }
    const bytes = this.#buffer.slice(0, length);
    this.#buffer = this.#buffer.subarray(length);
    return { status, headers, body: decoder.decode(bytes), bytes };
  }

  /** A chunked body (a streamed answer), its chunks joined. */
  async #readChunked(): Promise<Uint8Array<ArrayBuffer> | "closed"> {
    let body: Uint8Array<ArrayBuffer> = new Uint8Array(0);
    while (true) {
      let lineEnd: number;
      while ((lineEnd = indexOfLineEnd(this.#buffer)) < 0) {
        if (!await this.#fill()) return "closed";
      }
      const size = parseInt(decoder.decode(this.#buffer.subarray(0, lineEnd)), 16);
      this.#buffer = this.#buffer.subarray(lineEnd + 2);
      // The chunk and its CRLF (after the last, empty chunk: the final CRLF).
      while (this.#buffer.length < size + 2) {
        if (!await this.#fill()) return "closed";
      }
      body = concat(body, this.#buffer.subarray(0, size));
      this.#buffer = this.#buffer.subarray(size + 2);
      if (size === 0) return body;
    }
  }

  async #fill(): Promise<boolean> {
    const chunk = new Uint8Array(64 * 1024);
    const n = await this.#conn.read(chunk);
    if (n === null) return false;
    this.#buffer = concat(this.#buffer, chunk.subarray(0, n));
    return true;
  }
}

/**
 * Reads `connection` until the server closes it (`"eof"`, or `"reset"` when it resets it) or
 * `ms` pass (`"open"`), returning everything read as text.
 *
 * @example
 * ```ts
 * import { readUntilClosed } from "./raw_http.ts";
 * using connection = await Deno.connect({ hostname: "127.0.0.1", port: 8000 });
 * const { text, end } = await readUntilClosed(connection, 1000);
 * ```
 */
export async function readUntilClosed(
  connection: Deno.Conn,
  ms: number,
): Promise<{ text: string; end: "eof" | "reset" | "open" }> {
  let text = "";
  const chunk = new Uint8Array(64 * 1024);
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<"open">((resolve) => (timer = setTimeout(() => resolve("open"), ms)));
  try {
    while (true) {
      const read = await Promise.race([
        connection.read(chunk).catch((error) => {
          if (error instanceof Deno.errors.ConnectionReset) return "reset" as const;
          throw error;
        }),
        timeout,
      ]);
      if (read === null) return { text, end: "eof" };
      if (typeof read === "string") return { text, end: read };
      text += decoder.decode(chunk.subarray(0, read));
    }
  } finally {
    clearTimeout(timer);
  }
}

function indexOfHeadEnd(bytes: Uint8Array): number {
  for (let i = 0; i + 3 < bytes.length; i++) {
    if (bytes[i] === 13 && bytes[i + 1] === 10 && bytes[i + 2] === 13 && bytes[i + 3] === 10) {
      return i;
    }
  }
  return -1;
}

function concat(a: Uint8Array, b: Uint8Array): Uint8Array<ArrayBuffer> {
  const out = new Uint8Array(a.length + b.length);
  out.set(a);
  out.set(b, a.length);
  return out;
}

/** Where the first CRLF of `bytes` starts, or -1. */
function indexOfLineEnd(bytes: Uint8Array): number {
  for (let i = 0; i + 1 < bytes.length; i++) {
    if (bytes[i] === 13 && bytes[i + 1] === 10) return i;
  }
  return -1;
}
