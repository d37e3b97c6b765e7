/**
 * `Deno.serve` on a TCP port whose listening socket comes back after its accept loop fails.
 * When accepting fails (EMFILE, out of descriptors), Deno closes the listening socket and
 * rejects `server.finished`, which would end the process; connections already accepted keep
 * working. This server keeps the failed one for its connections and reopens the address with a
 * back-off, logging one line when the socket fails and one when it listens again. Other
 * reopening failures (the port taken) are retried a few times, then `failed` rejects.
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { ReopeningServer } from "./reopening_server.ts";
 * const server = new ReopeningServer(
 *   { hostname: "127.0.0.1", port: 0, log: () => {} },
 *   () => new Response("ok"),
 * );
 * assert.equal(await (await fetch(`http://127.0.0.1:${server.addr.port}/`)).text(), "ok");
 * await server.shutdown();
 * ```
 *
 * @module
 */

/** Where to listen and whom to tell. */
export interface ReopeningServerOptions {
  readonly hostname: string;
  /** 0 picks a free port; a reopened socket takes the same one. */
  readonly port: number;
  /** Gets the two lines of a failure burst (failed, listening again). */
  readonly log: (line: string) => void;
  /** `Deno.serve`'s `onError` (a handler's error, or a failing response body). */
  readonly onError?: (error: unknown) => Response | Promise<Response>;
  /** The first wait before reopening, in ms; it doubles per failed attempt. @default {50} */
  readonly retryMinMs?: number;
  /** The longest wait between attempts, in ms. @default {1000} */
  readonly retryMaxMs?: number;
  /** A reopened socket that lasts this long (ms) ends the burst. @default {1000} */
  readonly stableMs?: number;
}

/** Consecutive reopening failures tolerated when resources are not the cause. */
const MAX_OTHER_FAILURES = 5;

/** `os error N` numbers that mean the process or system ran out of something that frees up. */
const EXHAUSTED = new Set([
  12, // ENOMEM
  23, // ENFILE: the system's file table is full
  24, // EMFILE: this process's open-file limit
  105, // ENOBUFS
]);

/** Whether `error` says the process ran out of descriptors, buffers or memory (that clears). */
export function isResourceExhaustion(error: unknown): boolean {
  const code = /\(os error (\d+)\)/.exec(messageOf(error))?.[1];
  return code !== undefined && EXHAUSTED.has(Number(code));
}

/** A `Deno.serve` that reopens its listening socket; see the module doc. */
export class ReopeningServer {
  /** The address it listens on (a reopened socket keeps it). */
  readonly addr: Deno.NetAddr;
  /** Rejects when the socket failed and could not be reopened; never settles otherwise. */
  readonly failed: Promise<never>;

  readonly #options: ReopeningServerOptions;
  readonly #handler: Deno.ServeHandler<Deno.NetAddr>;
  #current: Deno.HttpServer<Deno.NetAddr> | undefined;
  /** Servers whose socket failed; their connections are still served until shutdown. */
  readonly #failedServers: Deno.HttpServer<Deno.NetAddr>[] = [];
  #stopping = false;
  #retryTimer: ReturnType<typeof setTimeout> | undefined;
  #stableTimer: ReturnType<typeof setTimeout> | undefined;
  #delayMs: number;
  #otherFailures = 0;
  /** The current burst of failures, if one is going on. */
  #burst: { readonly since: number; failures: number; reopenedAt: number } | undefined;
  #fail!: (error: Error) => void;
  #reopenings = 0;

  /** Listens at once; throws what `Deno.serve` throws when the first socket cannot be opened. */
  constructor(options: ReopeningServerOptions, handler: Deno.ServeHandler<Deno.NetAddr>) {
    this.#options = options;
    this.#handler = handler;
    this.#delayMs = options.retryMinMs ?? 50;
    this.failed = new Promise<never>((_, reject) => (this.#fail = reject));
    this.failed.catch(() => {}); // a caller that never looks is not an unhandled rejection
    const server = this.#open(options.port);
    this.addr = server.addr;
  }

  /** How many times the socket has been reopened. */
  get reopenings(): number {
    return this.#reopenings;
  }

  /** Shuts down the current server and every failed one (each connection once idle); stops reopening. */
  async shutdown(): Promise<void> {
    this.#stopping = true;
    clearTimeout(this.#retryTimer);
    clearTimeout(this.#stableTimer);
    const servers = [...this.#failedServers, ...(this.#current ? [this.#current] : [])];
    // A failed server's shutdown may reject (its accept loop is already gone): nothing to do.
    await Promise.all(servers.map((server) => server.shutdown().catch(() => {})));
  }

  #open(port: number): Deno.HttpServer<Deno.NetAddr> {
    const server = Deno.serve({
      hostname: this.#options.hostname,
      port,
      onListen: () => {}, // the caller prints its own line
      ...(this.#options.onError ? { onError: this.#options.onError } : {}),
    }, this.#handler);
    this.#current = server;
    server.finished.then(
      () => this.#onSocketFailed(server, new Error("the accept loop ended")),
      (error) => this.#onSocketFailed(server, error),
    );
    return server;
  }

  #onSocketFailed(server: Deno.HttpServer<Deno.NetAddr>, error: unknown): void {
    if (this.#stopping) return;
    clearTimeout(this.#stableTimer);
    this.#failedServers.push(server);
    if (this.#current === server) this.#current = undefined;
    if (this.#burst === undefined) {
      this.#burst = { since: performance.now(), failures: 0, reopenedAt: 0 };
      this.#options.log(
        `warning: the listening socket on ${this.#url()} failed (${
          oneLine(messageOf(error))
        }): new connections are refused until it is reopened, which is retried` +
          (isResourceExhaustion(error)
            ? "; the process has more connections than its open-file limit allows " +
              "(see Open files in docs/deployment.md)"
            : ""),
      );
    }
    this.#burst.failures++;
    this.#scheduleReopen();
  }

  #scheduleReopen(): void {
    const delay = this.#delayMs;
    this.#delayMs = Math.min(this.#options.retryMaxMs ?? 1000, this.#delayMs * 2);
    this.#retryTimer = setTimeout(() => this.#reopen(), delay);
  }

  #reopen(): void {
    if (this.#stopping) return;
    try {
      this.#open(this.addr.port);
    } catch (error) {
      if (!isResourceExhaustion(error) && ++this.#otherFailures >= MAX_OTHER_FAILURES) {
        this.#stopping = true;
        this.#fail(
          new Error(
            `The listening socket on ${this.#url()} failed and could not be reopened: ${
              oneLine(messageOf(error))
            }`,
          ),
        );
        return;
      }
      this.#scheduleReopen();
      return;
    }
    this.#reopenings++;
    this.#otherFailures = 0;
    if (this.#burst) this.#burst.reopenedAt = performance.now();
    this.#stableTimer = setTimeout(() => this.#onStable(), this.#options.stableMs ?? 1000);
  }

  #onStable(): void {
    const burst = this.#burst;
    if (burst === undefined) return;
    this.#burst = undefined;
    this.#delayMs = this.#options.retryMinMs ?? 50;
    const seconds = ((burst.reopenedAt - burst.since) / 1000).toFixed(1);
    this.#options.log(
      `listening again on ${this.#url()} after ${seconds} s (the socket failed ${burst.failures} ${
        burst.failures === 1 ? "time" : "times"
      })`,
    );
  }

  #url(): string {
    const { hostname, port } = this.addr;
    return `http://${hostname.includes(":") ? `[${hostname}]` : hostname}:${port}`;
  }
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

function oneLine(text: string): string {
  return text.replace(/\s*\n\s*/g, "; ");
}
