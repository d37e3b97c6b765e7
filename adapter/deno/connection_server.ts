/**
 * A TCP server that accepts its own connections (`Deno.listen`) and serves each with
 * `connection_http.ts`, so the listening socket and every connection close separately, as the
 * drain in `listen.ts` needs and `Deno.serve` cannot do. It knows each connection's requests in
 * flight and idle time.
 *
 * Accepting that fails for lack of descriptors (EMFILE) or memory does not close the socket:
 * new connections wait in the kernel's queue while accepting is retried with a back-off (50 ms
 * doubling to 1 s), logged once per burst. Any other error five times in a row rejects `failed`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { ConnectionServer } from "./connection_server.ts";
 * const server = new ConnectionServer(
 *   { hostname: "127.0.0.1", port: 0, log: () => {} },
 *   () => Promise.resolve(new Response("ok")),
 * );
 * assert.equal(await (await fetch(`http://127.0.0.1:${server.addr.port}/`)).text(), "ok");
 * await server.close();
 * ```
 *
 * @module
 */

import { acceptQueueLength } from "./accept_queue.ts";
import { type ConnectionHttp, type ServeConnection, serveConnection } from "./connection_http.ts";
import { isResourceExhaustion, type ReopeningServerOptions } from "./reopening_server.ts";

/** Where to listen and whom to tell: as the reopening listener's options. */
export type ConnectionServerOptions = ReopeningServerOptions;

/** One accepted connection, as the request handler and the drain see it. */
export interface Connection {
  /** Requests that have arrived on it. */
  readonly requests: number;
  /** Requests on it whose response has not gone out yet. */
  readonly active: number;
  /** When its last response went out, or it was accepted (`performance.now()`). */
  readonly idleSince: number;

  /**
   * Closes it once the response in flight has gone out (at once when idle); with `lingerMs`,
   * that long from now: time to read a response given before its request body came.
   */
  closeAfterResponse(lingerMs?: number): void;
  /** Closes it now (after what has been written), unless it is closing after its response. */
  close(): void;
}

/** The handler: a request and the connection it came on. */
export type ConnectionHandler = (request: Request, connection: Connection) => Promise<Response>;

/** An event-loop turn this short (ms) had the thread idle. */
const PROMPT_TURN_MS = 10;
/** How long the socket may go on accepting queued connections once it is to close, in ms. */
const MAX_SWEEP_MS = 250;

/** How long {@link ConnectionServer.close} waits for the connections to end, in ms, at most. */
const CLOSE_WAIT_MS = 250;

/** Consecutive accept failures tolerated when resources are not the cause. */
const MAX_OTHER_FAILURES = 5;

class ServedConnection implements Connection {
  requests = 0;
  active = 0;
  idleSince = performance.now();
  http: ConnectionHttp | undefined;
  readonly #abort = new AbortController();
  #timer: ReturnType<typeof setTimeout> | undefined;
  /** Deno closes it after its answers; it can no longer be closed any other way. */
  #shutDown = false;
  #ended = false;

  get signal(): AbortSignal {
    return this.#abort.signal;
  }

  closeAfterResponse(lingerMs?: number): void {
    if (this.#ended || this.#shutDown) return;
    if (lingerMs !== undefined) {
      // Deno waits for the rest of a body that may never come: close it regardless.
      if (this.#timer === undefined) this.#timer = setTimeout(() => this.close(), lingerMs);
      return;
    }
    // Deno closes it once the response in flight has been written (at once when idle).
    this.#shutDown = true;
    clearTimeout(this.#timer);
    void this.http?.shutdown();
  }

  close(): void {
    clearTimeout(this.#timer);
    if (!this.#ended && !this.#shutDown && !this.#abort.signal.aborted) abortQuietly(this.#abort);
  }

  answered(): void {
    this.active--;
    this.idleSince = performance.now();
  }

  ended(): void {
    this.#ended = true;
    clearTimeout(this.#timer);
  }
}

/**
 * Aborts `controller`, letting go of the BadResource Deno throws for a connection its client
 * just closed: thrown in an event listener, it would end the process.
 */
function abortQuietly(controller: AbortController): void {
  const letGo = (event: ErrorEvent) => {
    if (event.error instanceof Deno.errors.BadResource) event.preventDefault();
  };
  globalThis.addEventListener("error", letGo);
  try {
    controller.abort();
  } finally {
    globalThis.removeEventListener("error", letGo);
  }
}

/** A server of connections it accepts itself; see the module doc. */
export class ConnectionServer {
  /** The address it listens on. */
  readonly addr: Deno.NetAddr;
  /** Rejects when accepting fails for good (not for exhausted resources); else never settles. */
  readonly failed: Promise<never>;

  readonly #options: ConnectionServerOptions;
  readonly #handler: ConnectionHandler;
  readonly #serve: ServeConnection;
  readonly #listener: Deno.TcpListener;
  readonly #connections = new Set<ServedConnection>();
  #listening = true;
  #accepted = 0;
  #lastArrival = 0;
  #fail!: (error: Error) => void;
  #acceptLoop: Promise<void>;
  #burst: { readonly since: number; failures: number; workedAt?: number } | undefined;
  #stableTimer: ReturnType<typeof setTimeout> | undefined;

  /**
   * Listens at once; throws what `Deno.listen` throws when the socket cannot be opened, and a
   * `TypeError` on a Deno without per-connection serving (see `connection_http.ts`).
   */
  constructor(options: ConnectionServerOptions, handler: ConnectionHandler) {
    if (serveConnection === undefined) {
      throw new TypeError("This Deno cannot serve HTTP on a connection it accepted itself");
    }
    this.#serve = serveConnection;
    this.#options = options;
    this.#handler = handler;
    this.failed = new Promise<never>((_, reject) => (this.#fail = reject));
    this.failed.catch(() => {}); // a caller that never looks is not an unhandled rejection
    this.#listener = Deno.listen({ hostname: options.hostname, port: options.port });
    this.addr = this.#listener.addr;
    this.#acceptLoop = this.#accept();
  }

  /** The connections open now. */
  get connections(): ReadonlySet<Connection> {
    return this.#connections;
  }

  /** When the last request arrived, on any connection (`performance.now()`; 0 for none). */
  get lastArrival(): number {
    return this.#lastArrival;
  }

  /** Whether the socket still accepts connections. */
  get listening(): boolean {
    return this.#listening;
  }

  /**
   * Stops accepting: connections the kernel has queued are accepted first (closing the socket
   * would reset them), then the socket closes. Open connections are not touched.
   */
  async closeListener(): Promise<void> {
    if (!this.#listening) return;
    // Each event-loop turn accepts what is queued. Where the kernel shows its queue, the socket
    // closes at a moment it is empty. Elsewhere, after two prompt turns that accepted nothing (a
    // turn that comes late had the thread busy, with connections queueing meanwhile). A flood
    // that keeps them coming is cut when the sweep has taken long enough.
    const until = performance.now() + MAX_SWEEP_MS;
    for (let calm = 0; performance.now() < until;) {
      const queued = acceptQueueLength(this.addr);
      if (queued === 0 || (queued === undefined && calm >= 2)) break;
      const [before, began] = [this.#accepted, performance.now()];
      await new Promise((resolve) => setTimeout(resolve, 0));
      const prompt = performance.now() - began < PROMPT_TURN_MS;
      calm = prompt && this.#accepted === before ? calm + 1 : 0;
    }
    this.#listening = false;
    clearTimeout(this.#stableTimer);
    this.#listener.close();
    await this.#acceptLoop;
  }

  /** Closes the socket and every connection, and waits for them ({@link CLOSE_WAIT_MS} at most). */
  async close(): Promise<void> {
    await this.closeListener();
    for (const connection of this.#connections) connection.close();
    // One closing after its response ends when that answer is out, which a client that does not
    // read it can put off for good: the process ends it then.
    const ended = Promise.all(
      [...this.#connections].map((connection) => connection.http?.finished),
    );
    let timer: ReturnType<typeof setTimeout> | undefined;
    await Promise.race([
      ended,
      new Promise((resolve) => (timer = setTimeout(resolve, CLOSE_WAIT_MS))),
    ]);
    clearTimeout(timer);
  }

  async #accept(): Promise<void> {
    let delay = this.#options.retryMinMs ?? 50;
    let otherFailures = 0;
    while (this.#listening) {
      let conn: Deno.TcpConn;
      try {
        conn = await this.#listener.accept();
      } catch (error) {
        if (!this.#listening) return;
        clearTimeout(this.#stableTimer);
        if (clientGone(error)) continue;
        if (!isResourceExhaustion(error) && ++otherFailures >= MAX_OTHER_FAILURES) {
          this.#listening = false;
          this.#listener.close();
          this.#fail(
            new Error(`Accepting connections on ${this.#url()} failed: ${oneLine(error)}`),
          );
          return;
        }
        this.#onFailure(error);
        await new Promise((resolve) => setTimeout(resolve, delay));
        delay = Math.min(this.#options.retryMaxMs ?? 1000, delay * 2);
        continue;
      }
      otherFailures = 0;
      this.#accepted++;
      if (this.#burst !== undefined) this.#burst.workedAt ??= performance.now();
      if (this.#burst !== undefined && this.#stableTimer === undefined) {
        this.#stableTimer = setTimeout(() => {
          this.#stableTimer = undefined;
          delay = this.#options.retryMinMs ?? 50;
          this.#onStable();
        }, this.#options.stableMs ?? 1000);
      }
      this.#open(conn);
    }
  }

  #open(conn: Deno.TcpConn): void {
    try {
      conn.setNoDelay(true);
    } catch {
      // Reset by the client already: serving it ends at once.
    }
    const connection = new ServedConnection();
    const done = () => connection.answered();
    const handler = (request: Request, info: Deno.ServeHandlerInfo) => {
      this.#lastArrival = performance.now();
      connection.requests++;
      connection.active++;
      // In flight until its response has gone out (or failed to).
      info.completed.then(done, done);
      return this.#handler(request, connection);
    };
    const onError = this.#options.onError ??
      (() => new Response("Internal Server Error", { status: 500 }));
    connection.http = this.#serve(conn, connection.signal, handler, onError);
    this.#connections.add(connection);
    connection.http.finished.then(() => {
      connection.ended();
      this.#connections.delete(connection);
    });
  }

  #onFailure(error: unknown): void {
    this.#stableTimer = undefined;
    if (this.#burst === undefined) {
      this.#burst = { since: performance.now(), failures: 0 };
      this.#options.log(
        `warning: accepting connections on ${this.#url()} failed (${oneLine(error)}): ` +
          "new connections wait in the listen queue until it works again, which is retried" +
          (isResourceExhaustion(error)
            ? "; the process has more connections than its open-file limit allows " +
              "(see Open files in docs/deployment.md)"
            : ""),
      );
    }
    this.#burst.failures++;
    delete this.#burst.workedAt;
  }

  #onStable(): void {
    const burst = this.#burst;
    if (burst === undefined) return;
    this.#burst = undefined;
    const seconds = (((burst.workedAt ?? performance.now()) - burst.since) / 1000).toFixed(1);
    this.#options.log(
      `accepting connections again on ${this.#url()} after ${seconds} s (${burst.failures} ${
        burst.failures === 1 ? "failure" : "failures"
      })`,
    );
  }

  #url(): string {
    const { hostname, port } = this.addr;
    return `http://${hostname.includes(":") ? `[${hostname}]` : hostname}:${port}`;
  }
}

/** An accept that failed because its client gave up first (ECONNABORTED, EPROTO, ECONNRESET). */
function clientGone(error: unknown): boolean {
  const code = /\(os error (\d+)\)/.exec(error instanceof Error ? error.message : "")?.[1];
  return code === "103" || code === "71" || code === "104";
}

function oneLine(error: unknown): string {
  const text = error instanceof Error ? error.message : String(error);
  return text.replace(/\s*\n\s*/g, "; ");
}
