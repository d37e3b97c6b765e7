/**
 * A bounded HTTP/1.1 flood for tests and benchmarks of admission control: `connections`
 * keep-alive connections on raw TCP (`Deno.connect`, 127.0.0.1 only) each send one
 * pre-encoded POST after another for `seconds`, then stop; meanwhile a prober asks `/healthz`,
 * `/readyz` and `/metrics` on a connection of its own every `probeEveryMs`, and the server's
 * resident memory is read from `/proc` when its pid is given. A raw client rather than `fetch`
 * or `wrk`: it costs little per request, it sees every status and `Connection: close` exactly,
 * and it times each request, so the latency of the admitted ones can be told from that of the
 * refused ones.
 *
 * @example
 * ```ts
 * import { flood } from "./flood.ts";
 * const report = await flood({
 *   port: 8000,
 *   path: "/forward",
 *   body: '{"input_marking": {}}',
 *   connections: 16,
 *   seconds: 2,
 * });
 * report.statuses; // e.g. Map { 200 => 5321 }
 * ```
 *
 * @module
 */

/** What to send, how hard and for how long. */
export interface FloodOptions {
  readonly port: number;
  readonly path: string;
  /** The POST body (sent with its `Content-Length`). */
  readonly body: string | Uint8Array;
  readonly connections: number;
  /** How long connections keep sending new requests. */
  readonly seconds: number;
  /** The server's pid: its peak RSS is read from `/proc/PID/status`. */
  readonly pid?: number;
  /** How often each probe route is asked, in ms (default 250). */
  readonly probeEveryMs?: number;
  /** A request not answered within this many ms is given up (default 60 s). */
  readonly requestTimeoutMs?: number;
  /**
   * Hang up on this share of requests (0 to 1) right after their body is sent, without
   * reading the answer (default 0).
   */
  readonly abandonShare?: number;
  /** How long to wait for answers once sending stops, in ms (default 30 s). */
  readonly tailMs?: number;
  /** Wait `Retry-After` before the next request on a connection after a 503 or 429, as a
   * well-behaved client does (default: retry at once, as `wrk` does). */
  readonly honorRetryAfter?: boolean;
}

/** One request's outcome. */
interface Outcome {
  readonly status: number | "closed" | "timeout" | "abandoned";
  readonly ms: number;
}

/** What a flood measured. */
export interface FloodReport {
  /** Answers by status; `closed` (connection ended before a whole answer), `timeout`. */
  readonly statuses: ReadonlyMap<number | string, number>;
  /** Requests the client hung up on, on purpose. */
  readonly abandoned: number;
  /** Connections that could not be opened (refused, reset). */
  readonly connectErrors: number;
  /** Seconds from the first request to the last answer. */
  readonly elapsedSeconds: number;
  /** 2xx answers per second, from the first request to the last answer. */
  readonly okPerSecond: number;
  /** Latency of 2xx answers, ms: p50, p99, max (NaN when there is none). */
  readonly ok: LatencySummary;
  /** Latency of 503 and 429 answers, ms. */
  readonly shed: LatencySummary;
  /** Probe latency per route, ms; a probe not answered within 10 s counts as 10,000. */
  readonly probes: ReadonlyMap<string, LatencySummary & { readonly failures: number }>;
  /** Whether any 503 or 429 answer lacked `Retry-After`. */
  readonly shedWithoutRetryAfter: number;
  /** Peak RSS of `pid` in bytes (0 when no pid was given). */
  readonly peakRssBytes: number;
  /** Whether `pid` was still alive at the end (true when no pid was given). */
  readonly alive: boolean;
}

/** Percentiles of a list of latencies. */
export interface LatencySummary {
  readonly count: number;
  readonly p50: number;
  readonly p99: number;
  readonly max: number;
}

const encoder = new TextEncoder();
const decoder = new TextDecoder();
const PROBE_ROUTES = ["/healthz", "/readyz", "/metrics"] as const;
const PROBE_TIMEOUT_MS = 10_000;

/**
 * Runs one flood and reports it; every loop ends by itself (sending stops after `seconds`,
 * answers are awaited `tailMs` at most, each request `requestTimeoutMs` at most).
 *
 * @example
 * ```ts
 * import { flood } from "./flood.ts";
 * const report = await flood({ port: 8000, path: "/anomaly", body: "{}", connections: 4, seconds: 1 });
 * report.ok.p99; // ms
 * ```
 */
export async function flood(options: FloodOptions): Promise<FloodReport> {
  const body = typeof options.body === "string" ? encoder.encode(options.body) : options.body;
  const head = encoder.encode(
    `POST ${options.path} HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-type: application/json\r\n` +
      `content-length: ${body.byteLength}\r\n\r\n`,
  );
  const request = new Uint8Array(head.byteLength + body.byteLength);
  request.set(head);
  request.set(body, head.byteLength);

  const started = performance.now();
  const stopSending = started + options.seconds * 1000;
  const giveUp = stopSending + (options.tailMs ?? 30_000);
  const outcomes: Outcome[] = [];
  let connectErrors = 0;
  let shedWithoutRetryAfter = 0;
  let lastAnswer = started;

  const memory = watchRss(options.pid);
  let sendingDone = false;
  const probing = probe(
    options.port,
    options.probeEveryMs ?? 250,
    () => sendingDone || performance.now() > giveUp,
  );

  const worker = async (index: number) => {
    let connection: Connection | undefined;
    let sent = 0;
    while (performance.now() < stopSending) {
      if (connection === undefined) {
        try {
          connection = await Connection.open(options.port);
        } catch {
          connectErrors++;
          await sleep(20);
          continue;
        }
      }
      sent++;
      const t0 = performance.now();
      const abandon = options.abandonShare !== undefined &&
        ((index * 7919 + sent * 104729) % 1000) / 1000 < options.abandonShare;
      const answer = await connection.exchange(
        request,
        Math.min(options.requestTimeoutMs ?? 60_000, Math.max(1, giveUp - t0)),
        abandon,
      );
      const ms = performance.now() - t0;
      lastAnswer = performance.now();
      if (typeof answer === "string") {
        outcomes.push({ status: answer, ms });
        connection.close();
        connection = undefined;
        continue;
      }
      outcomes.push({ status: answer.status, ms });
      if ((answer.status === 503 || answer.status === 429) && answer.retryAfter === undefined) {
        shedWithoutRetryAfter++;
      }
      if (options.honorRetryAfter && answer.retryAfter !== undefined) {
        await sleep(
          Math.min(answer.retryAfter * 1000, Math.max(0, stopSending - performance.now())),
        );
      }
      if (answer.close) {
        connection.close();
        connection = undefined;
      }
    }
    connection?.close();
  };
  await Promise.all(Array.from({ length: options.connections }, (_, i) => worker(i)));
  sendingDone = true;
  const probes = await probing;
  const { peak, alive } = await memory.stop();

  const statuses = new Map<number | string, number>();
  for (const { status } of outcomes) {
    if (status === "abandoned") continue;
    statuses.set(status, (statuses.get(status) ?? 0) + 1);
  }
  const ok = outcomes.filter((o) => typeof o.status === "number" && o.status < 300);
  const shed = outcomes.filter((o) => o.status === 503 || o.status === 429);
  return {
    statuses,
    abandoned: outcomes.filter((o) => o.status === "abandoned").length,
    connectErrors,
    elapsedSeconds: (lastAnswer - started) / 1000,
    okPerSecond: ok.length / Math.max(options.seconds, (lastAnswer - started) / 1000),
    ok: summarize(ok.map((o) => o.ms)),
    shed: summarize(shed.map((o) => o.ms)),
    probes,
    shedWithoutRetryAfter,
    peakRssBytes: peak,
    alive: alive && sendingDone,
  };
}

/**
 * p50, p99 and max of `values` (NaN for none).
 *
 * @example
 * ```ts
 * import { summarize } from "./flood.ts";
 * summarize([1, 2, 3]).p50; // 2
 * ```
 */
export function summarize(values: readonly number[]): LatencySummary {
  const sorted = [...values].sort((a, b) => a - b);
  const at = (q: number) =>
    sorted.length === 0 ? NaN : sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
  return { count: sorted.length, p50: at(0.5), p99: at(0.99), max: sorted.at(-1) ?? NaN };
}

async function probe(
  port: number,
  everyMs: number,
  done: () => boolean,
): Promise<Map<string, LatencySummary & { failures: number }>> {
  const times = new Map<string, number[]>(PROBE_ROUTES.map((route) => [route, []]));
  const failures = new Map<string, number>(PROBE_ROUTES.map((route) => [route, 0]));
  const ask = async (route: string) => {
    const t0 = performance.now();
    let connection: Connection | undefined;
    try {
      connection = await Connection.open(port);
      const request = encoder.encode(`GET ${route} HTTP/1.1\r\nhost: 127.0.0.1\r\n\r\n`);
      const answer = await connection.exchange(request, PROBE_TIMEOUT_MS, false);
      if (typeof answer === "string") throw new Error(answer);
      times.get(route)!.push(performance.now() - t0);
    } catch {
      failures.set(route, failures.get(route)! + 1);
      times.get(route)!.push(PROBE_TIMEOUT_MS);
    } finally {
      connection?.close();
    }
  };
  while (!done()) {
    const t0 = performance.now();
    await Promise.all(PROBE_ROUTES.map(ask));
    await sleep(Math.max(0, everyMs - (performance.now() - t0)));
  }
  return new Map(
    PROBE_ROUTES.map((route) => [
      route,
      { ...summarize(times.get(route)!), failures: failures.get(route)! },
    ]),
  );
}

/** Reads `/proc/PID/status` every 100 ms; `stop()` gives the peak and whether it still runs. */
function watchRss(pid: number | undefined) {
  let peak = 0;
  let alive = true;
  let running = true;
  const read = () => {
    if (pid === undefined) return;
    try {
      const status = Deno.readTextFileSync(`/proc/${pid}/status`);
      const kb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0);
      if (/State:\s+Z/.test(status)) alive = false;
      peak = Math.max(peak, kb * 1024);
    } catch {
      alive = false;
    }
  };
  const loop = (async () => {
    while (running) {
      read();
      await sleep(100);
    }
  })();
  return {
    async stop() {
      running = false;
      await loop;
      read();
      return { peak, alive };
    },
  };
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

interface Answer {
  readonly status: number;
  readonly close: boolean;
  /** `Retry-After` in seconds, when present. */
  readonly retryAfter: number | undefined;
}

/** One keep-alive connection: write a request, read one whole answer (body skipped). */
class Connection {
  readonly #conn: Deno.TcpConn;
  #buffer = new Uint8Array(0);
  readonly #chunk = new Uint8Array(256 << 10);

  private constructor(conn: Deno.TcpConn) {
    this.#conn = conn;
  }

  static async open(port: number): Promise<Connection> {
    return new Connection(await Deno.connect({ hostname: "127.0.0.1", port }));
  }

  close(): void {
    try {
      this.#conn.close();
    } catch {
      // already closed
    }
  }

  /**
   * Sends `request` and reads its answer within `timeoutMs`; `abandon` hangs up once it is
   * sent.
   */
  async exchange(
    request: Uint8Array,
    timeoutMs: number,
    abandon: boolean,
  ): Promise<Answer | "closed" | "timeout" | "abandoned"> {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const timeout = new Promise<"timeout">((resolve) => {
      timer = setTimeout(() => resolve("timeout"), timeoutMs);
    });
    try {
      const result = await Promise.race([this.#exchange(request, abandon), timeout]);
      if (result === "timeout") this.close();
      return result;
    } catch {
      return "closed";
    } finally {
      clearTimeout(timer);
    }
  }

  async #exchange(request: Uint8Array, abandon: boolean): Promise<Answer | "closed" | "abandoned"> {
    // The server may answer (503) before the body is sent: read while writing.
    const writing = this.#writeAll(request).then(() => true, () => false);
    if (abandon) {
      await writing;
      return "abandoned";
    }
    const headEnd = await this.#fill((buffer) => indexOf(buffer, CRLFCRLF));
    if (headEnd < 0) return "closed";
    const head = decoder.decode(this.#buffer.subarray(0, headEnd));
    this.#buffer = this.#buffer.subarray(headEnd + 4);
    const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(head)?.[1] ?? NaN);
    const length = /\r\ncontent-length: *(\d+)/i.exec(head);
    const close = /\r\nconnection: *close/i.test(head);
    const retryAfterText = /\r\nretry-after: *(\d+)/i.exec(head)?.[1];
    const retryAfter = retryAfterText === undefined ? undefined : Number(retryAfterText);
    if (length) {
      if (!(await this.#skip(Number(length[1])))) return "closed";
    } else if (/\r\ntransfer-encoding: *chunked/i.test(head)) {
      for (;;) {
        const line = await this.#fill((buffer) => indexOf(buffer, CRLF));
        if (line < 0) return "closed";
        const size = parseInt(decoder.decode(this.#buffer.subarray(0, line)), 16);
        this.#buffer = this.#buffer.subarray(line + 2);
        if (!(await this.#skip(size + 2))) return "closed";
        if (size === 0) break;
      }
    }
    if (!(await writing) && !close) return "closed";
    return { status, close, retryAfter };
  }

  async #writeAll(bytes: Uint8Array): Promise<void> {
    let at = 0;
    while (at < bytes.byteLength) at += await this.#conn.write(bytes.subarray(at));
  }

  /** Reads and drops `size` bytes; false at end of stream. */
  async #skip(size: number): Promise<boolean> {
    const buffered = Math.min(size, this.#buffer.byteLength);
    this.#buffer = this.#buffer.subarray(buffered);
    let left = size - buffered;
    while (left > 0) {
      const n = await this.#conn.read(this.#chunk);
      if (n === null) return false;
      if (n > left) this.#buffer = this.#chunk.slice(left, n);
      left -= Math.min(n, left);
    }
    return true;
  }

  /** Reads until `found(buffer)` is not negative; that value, or -1 at end of stream. */
  async #fill(found: (buffer: Uint8Array) => number): Promise<number> {
    for (;;) {
      const at = found(this.#buffer);
      if (at >= 0) return at;
      const n = await this.#conn.read(this.#chunk);
      if (n === null) return -1;
      const next = new Uint8Array(this.#buffer.byteLength + n);
      next.set(this.#buffer);
      next.set(this.#chunk.subarray(0, n), this.#buffer.byteLength);
      this.#buffer = next;
    }
  }
}

const CRLFCRLF = encoder.encode("\r\n\r\n");
const CRLF = encoder.encode("\r\n");

function indexOf(haystack: Uint8Array, needle: Uint8Array): number {
  outer: for (let i = 0; i + needle.byteLength <= haystack.byteLength; i++) {
    for (let j = 0; j < needle.byteLength; j++) {
      if (haystack[i + j] !== needle[j]) continue outer;
    }
    return i;
  }
  return -1;
}
