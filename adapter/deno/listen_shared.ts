/**
 * `listen()`'s fallback on a Deno that cannot serve a connection it accepted itself, and the
 * helpers both share. `Deno.serve`'s `shutdown()` closes idle keep-alive connections at once and
 * makes bodies in flight unreadable, so the drain runs before it: known connections get
 * `Connection: close`, new ones 503, and the socket closes once all is quiet, or at `drainMs`.
 *
 * @module
 */

import { KeepAliveConnections } from "./keep_alive_connections.ts";
import { ReopeningServer } from "./reopening_server.ts";
import { closeAfterResponse, ConnectionEnd, withConnectionClose } from "./connection_close.ts";
import {
  DEADLINE_GRACE_MS,
  DEFAULT_DRAIN_MS,
  type ListenedApp,
  type ListenOptions,
  type Running,
} from "./listen_options.ts";

/** No request for this long, and the drain may close the socket. */
const QUIET_MS = 100;
/** How often the drain checks whether it may close the socket. */
const POLL_MS = 20;
/**
 * Serves `app` on `Deno.serve` until `stop()` or SIGINT / SIGTERM (new connections get 503 from
 * the start of the drain: `lameDuckMs` does not apply).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { listenShared } from "./listen_shared.ts";
 * const running = listenShared({ fetch: () => Promise.resolve(new Response("ok")) }, { port: 0 });
 * assert.equal(await (await fetch(`${running.url}/anything`)).text(), "ok");
 * await running.stop();
 * ```
 */
export function listenShared(app: ListenedApp, options: ListenOptions = {}): Running {
  const idleMs = options.idleMs ?? 1000;
  const connections = new KeepAliveConnections();
  let draining = false;
  let lastRequest = 0;
  // A streamed response (a log being scored) is in flight until its last byte, not its head.
  const busy = () => connections.inFlight > 0 || (app.streamsInProgress?.() ?? 0) > 0;
  const handler = async (request: Request, info: Deno.ServeHandlerInfo<Deno.NetAddr>) => {
    const key = `${info.remoteAddr.hostname}:${info.remoteAddr.port}`;
    lastRequest = performance.now();
    if (draining && !connections.known(key)) {
      return app.fetchWhileDraining
        ? withConnectionClose(await app.fetchWhileDraining(request))
        : shuttingDown();
    }
    connections.begin(key);
    let closing = request.headers.get("connection")?.toLowerCase() === "close";
    try {
      const response = await app.fetch(
        request,
        options.hangUpSignal ? { signal: request.signal } : undefined,
      );
      if (response.status === 408) {
        closing = true;
        return closeAfterResponse(response, uploadStopped(request));
      }
      if (!draining) return response;
      closing = true;
      return withConnectionClose(response);
    } finally {
      connections.end(key, performance.now(), closing || draining, idleMs);
    }
  };
  const log = options.log ?? ((line: string) => console.error(line));
  const server = new ReopeningServer({
    hostname: options.hostname ?? "127.0.0.1",
    port: options.port ?? 8000,
    log,
    // A closing response's body ends with ConnectionEnd on purpose (after its last byte).
    onError: internalError(log, (error) => error instanceof ConnectionEnd),
  }, handler);

  const { promise: finished, resolve: stopped, reject: broke } = Promise.withResolvers<void>();
  let stopping: Promise<void> | undefined;
  const stop = () =>
    stopping ??= (async () => {
      removeSignals();
      draining = true;
      options.onDrain?.();
      const deadline = performance.now() + (options.drainMs ?? DEFAULT_DRAIN_MS);
      const { promise: settled, resolve: settle } = Promise.withResolvers<void>();
      const timer = setInterval(() => {
        const now = performance.now();
        const quiet = now - lastRequest >= QUIET_MS && !busy() && connections.settled(now, idleMs);
        if (now >= deadline || quiet) settle();
      }, POLL_MS);
      await settled;
      clearInterval(timer);
      if (busy() && options.onDeadline) {
        options.onDeadline();
        await waitFor(() => !busy(), performance.now() + DEADLINE_GRACE_MS);
      }
      const shutdown = server.shutdown();
      // Past the deadline with requests in flight, shutting down cuts them; else wait for writes, within grace.
      if (!busy()) {
        await within(shutdown, deadline + DEADLINE_GRACE_MS - performance.now());
      }
      stopped();
    })();
  const removeSignals = stopOnSignals(stop, server.failed, broke);
  return { url: urlOf(server.addr), finished, stop };
}

/** Calls `stop` on SIGINT or SIGTERM until the server fails (`broke` gets the error). */
export function stopOnSignals(
  stop: () => Promise<void>,
  failed: Promise<unknown>,
  broke: (error: unknown) => void,
): () => void {
  const removeSignals = onStopSignals(() => void stop());
  failed.catch((error) => {
    removeSignals();
    broke(error);
  });
  return removeSignals;
}

/** Polls `done` until it holds or the clock passes `until`. */
export async function waitFor(done: () => boolean, until: number): Promise<void> {
  while (!done() && performance.now() < until) {
    await new Promise((resolve) => setTimeout(resolve, POLL_MS / 4));
  }
}

/** Calls `stop` on SIGINT or SIGTERM (SIGINT alone on Windows); returns what removes the listeners. */
export function onStopSignals(stop: () => void): () => void {
  const signals: Deno.Signal[] = Deno.build.os === "windows" ? ["SIGINT"] : ["SIGINT", "SIGTERM"];
  for (const signal of signals) Deno.addSignalListener(signal, stop);
  return () => {
    for (const signal of signals) Deno.removeSignalListener(signal, stop);
  };
}

/**
 * Settles once no read of `request`'s body is pending: a stalled body the app let go of is
 * cancelled when the client sends its next bytes. A body the app still holds is left alone.
 */
async function uploadStopped(request: Request): Promise<void> {
  if (request.body === null || request.body.locked) return;
  const reader = request.body.getReader();
  await reader.read().catch(() => {});
  await reader.cancel().catch(() => {});
}

/** Waits for `promise`, but at most `ms` (its failure is ignored). */
export async function within(promise: Promise<void>, ms: number): Promise<void> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  await Promise.race([
    promise.catch(() => {}),
    new Promise<void>((resolve) => (timer = setTimeout(resolve, Math.max(0, ms)))),
  ]);
  clearTimeout(timer);
}

/**
 * An `onError` that logs the error (unless `expected` says it is one) and responds 500.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { internalError } from "./listen_shared.ts";
 * const lines: string[] = [];
 * assert.equal(internalError((line) => lines.push(line))(new Error("x")).status, 500);
 * assert.match(lines[0]!, /^error: Error: x/);
 * ```
 */
export function internalError(
  log: (line: string) => void,
  expected: (error: unknown) => boolean = () => false,
): (error: unknown) => Response {
  return (error) => {
    if (!expected(error)) log(`error: ${describe(error)}`);
    return new Response("Internal Server Error", { status: 500 });
  };
}

/**
 * The base URL of a listening address (`[…]` around IPv6).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { urlOf } from "./listen_shared.ts";
 * assert.equal(urlOf({ transport: "tcp", hostname: "::1", port: 80 }), "http://[::1]:80");
 * ```
 */
export function urlOf({ hostname, port }: Deno.NetAddr): string {
  return `http://${hostname.includes(":") ? `[${hostname}]` : hostname}:${port}`;
}

function describe(error: unknown): string {
  return error instanceof Error ? error.stack ?? error.message : String(error);
}

function shuttingDown(): Response {
  return Response.json({ detail: "The server is shutting down" }, {
    status: 503,
    headers: { connection: "close", "retry-after": "1" },
  });
}
