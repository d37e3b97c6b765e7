/**
 * Runs a fetch handler on a real socket with the lifecycle `serve` promises: binds
 * 127.0.0.1 by default, and on SIGINT or SIGTERM drains without losing a request that a client
 * has sent, then resolves. Mount the playground in the app (`createApp`'s `mount` option).
 *
 * What Deno 2.9's `Deno.serve` does on `shutdown()` (checked with raw keep-alive sockets):
 * it closes the listening socket and, at once, every idle keep-alive connection, so a request
 * a client is sending on such a connection at that moment is lost without an answer; requests
 * already being handled are answered, but their bodies become unreadable
 * (denoland/deno#36809); a `Connection: close` response header is passed on but does not make
 * the server close the connection. There is no way to close only the listening socket. So the
 * drain runs before `shutdown()`:
 *
 * 1. `onDrain` is called at once (the app's `/readyz` turns 503).
 * 2. Requests on connections that have already sent one are answered normally, with
 *    `Connection: close`, after which a client does not send on them again. Requests on
 *    connections first seen during the drain are refused with 503 and `Connection: close`:
 *    this is how the socket "stops taking new connections" while it still has to stay open.
 *    An app with `fetchWhileDraining` answers those itself (the server's app answers its
 *    probes as usual, so `/healthz` stays 200 and `/readyz` says 503, and logs the refusals).
 * 3. Once nothing is in flight (a streamed answer, such as a log being scored, until its
 *    last byte: the app's `streamsInProgress`), no connection is expected to send again (each
 *    was told to close or has been idle for `idleMs`) and no request came for a short quiet
 *    spell, `shutdown()` closes the socket and the remaining idle connections. At `drainMs` it
 *    happens regardless: `onDeadline` is called first (the app then answers what it still
 *    holds with 503 and `Connection: close`, `server/admission.ts`, and ends the logs still
 *    streaming with their final record), and the socket closes once
 *    those answers are out, or {@link DEADLINE_GRACE_MS} later at most, cutting what is left.
 *    `stop()` resolves by then in any case: `shutdown()` also waits for answers still being
 *    written (a client that does not read a large answer keeps it waiting for good), and that
 *    wait ends at the deadline too.
 *
 * Two more things `Deno.serve` does not do on its own. When accepting a connection fails (out
 * of descriptors), its socket closes for good and the process would exit: the socket is
 * reopened instead (`reopening_server.ts`), and `finished` rejects only when that is
 * impossible. And a 408 (a body that stalled) leaves its connection open: it is closed
 * once the client sends anything more (`closing_response.ts`).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { listen } from "./listen.ts";
 * const running = listen({ fetch: () => Promise.resolve(new Response("ok")) }, { port: 0 });
 * assert.equal(await (await fetch(`${running.url}/anything`)).text(), "ok");
 * await running.stop();
 * await running.finished;
 * ```
 *
 * @module
 */

import { ConnectionLedger } from "./connection_ledger.ts";
import { ReopeningServer } from "./reopening_server.ts";
import { closingResponse, ConnectionEnd } from "./closing_response.ts";

/** The drain's default deadline in ms. */
export const DEFAULT_DRAIN_MS = 10_000;

/** Where and how to listen. */
export interface ListenOptions {
  /** Default `127.0.0.1` (Deno.serve's own default would be every interface). */
  readonly hostname?: string;
  /** Default 8000; 0 picks a free port. */
  readonly port?: number;
  /**
   * The drain's deadline in ms (default {@link DEFAULT_DRAIN_MS}): then the socket closes,
   * cutting what is left.
   */
  readonly drainMs?: number;
  /**
   * How long a keep-alive connection may stay idle during the drain before it counts as
   * abandoned, in ms (default 1 s).
   */
  readonly idleMs?: number;
  /** Called once when the drain begins (e.g. `readiness.drain()`), before any other step. */
  readonly onDrain?: () => void;
  /**
   * Where the listener's own lines go (its socket failing and listening again, an error
   * outside the app); default `console.error`.
   */
  readonly log?: (line: string) => void;
  /**
   * Called once when the drain's deadline passes with requests in flight (e.g.
   * `readiness.cutOff()`), so the app can answer them before the socket closes.
   */
  readonly onDeadline?: () => void;
}

/** A listening server. */
export interface Running {
  /** The base URL, e.g. `http://127.0.0.1:8000`. */
  readonly url: string;
  /**
   * Resolves once the server has stopped (after {@link Running.stop} or a signal); rejects
   * when its listening socket failed and could not be reopened.
   */
  readonly finished: Promise<void>;
  /** Drains (see the module doc) and closes the socket, then resolves. */
  stop(): Promise<void>;
}

/** No request for this long, and the drain may close the socket. */
const QUIET_MS = 100;
/** How often the drain checks whether it may close the socket. */
const POLL_MS = 20;
/**
 * How long the socket stays open after `onDeadline` for the answers it provoked to go out, in
 * ms, at most.
 */
export const DEADLINE_GRACE_MS = 250;

/**
 * Serves `app` until `stop()` is called or the process gets SIGINT / SIGTERM.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { listen } from "./listen.ts";
 * const app = { fetch: (request: Request) => Promise.resolve(new Response(request.method)) };
 * const running = listen(app, { hostname: "127.0.0.1", port: 0 });
 * assert.equal(await (await fetch(running.url, { method: "DELETE" })).text(), "DELETE");
 * // `running.finished` resolves after stop() or SIGINT / SIGTERM.
 * await running.stop();
 * ```
 */
export function listen(
  app: {
    fetch(request: Request, info?: { signal?: AbortSignal }): Promise<Response>;
    fetchWhileDraining?(request: Request, info?: { signal?: AbortSignal }): Promise<Response>;
    /** Answers still streaming after `fetch` returned them; the drain waits for them too. */
    streamsInProgress?(): number;
  },
  options: ListenOptions = {},
): Running {
  // A streamed answer (a log being scored) is in flight until its last byte, not its head.
  const busy = () => ledger.inFlight > 0 || (app.streamsInProgress?.() ?? 0) > 0;
  const idleMs = options.idleMs ?? 1000;
  const ledger = new ConnectionLedger();
  let draining = false;
  let lastRequest = 0;
  const handler = async (request: Request, info: Deno.ServeHandlerInfo<Deno.NetAddr>) => {
    const key = `${info.remoteAddr.hostname}:${info.remoteAddr.port}`;
    lastRequest = performance.now();
    if (draining && !ledger.known(key)) {
      return app.fetchWhileDraining
        ? withConnectionClose(await app.fetchWhileDraining(request))
        : shuttingDown();
    }
    ledger.begin(key);
    let closing = request.headers.get("connection")?.toLowerCase() === "close";
    try {
      // The client's hang-up withdraws its queued rows (deno.json opts in to no-legacy-abort).
      const response = await app.fetch(request, { signal: request.signal });
      if (response.status === 408) {
        closing = true;
        return closingResponse(response, uploadStopped(request));
      }
      if (!draining) return response;
      closing = true;
      return withConnectionClose(response);
    } finally {
      ledger.end(key, performance.now(), closing || draining, idleMs);
    }
  };
  const log = options.log ?? ((line: string) => console.error(line));
  const server = new ReopeningServer({
    hostname: options.hostname ?? "127.0.0.1",
    port: options.port ?? 8000,
    log,
    onError: (error) => {
      // A closing answer's body ends this way on purpose (after its last byte).
      if (!(error instanceof ConnectionEnd)) log(`error: ${describe(error)}`);
      return new Response("Internal Server Error", { status: 500 });
    },
  }, handler);
  const { hostname, port } = server.addr;
  const host = hostname.includes(":") ? `[${hostname}]` : hostname;

  const signals: Deno.Signal[] = Deno.build.os === "windows" ? ["SIGINT"] : ["SIGINT", "SIGTERM"];
  const { promise: finished, resolve: stopped, reject: broke } = Promise.withResolvers<void>();
  let stopping: Promise<void> | undefined;
  const stop = () =>
    stopping ??= (async () => {
      for (const signal of signals) Deno.removeSignalListener(signal, onSignal);
      draining = true;
      options.onDrain?.();
      const deadline = performance.now() + (options.drainMs ?? DEFAULT_DRAIN_MS);
      const { promise: settled, resolve: settle } = Promise.withResolvers<void>();
      const timer = setInterval(() => {
        const now = performance.now();
        const quiet = now - lastRequest >= QUIET_MS && !busy() && ledger.settled(now, idleMs);
        if (now >= deadline || quiet) {
          settle();
        }
      }, POLL_MS);
      await settled;
      clearInterval(timer);
      if (busy() && options.onDeadline) {
        options.onDeadline();
        const until = performance.now() + DEADLINE_GRACE_MS;
        while (busy() && performance.now() < until) {
          await new Promise((resolve) => setTimeout(resolve, POLL_MS / 4));
        }
      }
      const shutdown = server.shutdown();
      // Past the deadline with requests in flight, shutting down cuts them; nobody waits. Else
      // it waits for answers still being written, but not past the deadline (and its grace).
      if (!busy()) {
        await within(shutdown, deadline + DEADLINE_GRACE_MS - performance.now());
      }
      stopped();
    })();
  const onSignal = () => void stop();
  for (const signal of signals) Deno.addSignalListener(signal, onSignal);
  server.failed.catch((error) => {
    for (const signal of signals) Deno.removeSignalListener(signal, onSignal);
    broke(error);
  });
  return { url: `http://${host}:${port}`, finished, stop };
}

/**
 * Settles once no read of `request`'s body is pending any more (see `closing_response.ts`): the
 * app let go of a stalled body (`body.ts` releases its reader at a 408), so one more read
 * settles when the client sends its next bytes (or its connection fails); then the body is
 * cancelled. A body the app still holds is left alone.
 */
async function uploadStopped(request: Request): Promise<void> {
  if (request.body === null || request.body.locked) return;
  const reader = request.body.getReader();
  await reader.read().catch(() => {});
  await reader.cancel().catch(() => {});
}

/** Waits for `promise`, but at most `ms` (its failure is ignored). */
async function within(promise: Promise<void>, ms: number): Promise<void> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  await Promise.race([
    promise.catch(() => {}),
    new Promise<void>((resolve) => (timer = setTimeout(resolve, Math.max(0, ms)))),
  ]);
  clearTimeout(timer);
}

function describe(error: unknown): string {
  return error instanceof Error ? error.stack ?? error.message : String(error);
}

function withConnectionClose(response: Response): Response {
  try {
    response.headers.set("connection", "close");
    return response;
  } catch {
    // Immutable headers (a response passed through from fetch): copy them.
    const headers = new Headers(response.headers);
    headers.set("connection", "close");
    return new Response(response.body, {
      status: response.status,
      statusText: response.statusText,
      headers,
    });
  }
}

function shuttingDown(): Response {
  return Response.json({ detail: "The server is shutting down" }, {
    status: 503,
    headers: { connection: "close", "retry-after": "1" },
  });
}
