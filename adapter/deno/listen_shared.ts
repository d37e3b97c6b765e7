/**
 * `listen()`'s fallback on a Deno that cannot serve a connection it accepted itself
 * (`connection_http.ts`): the same lifecycle on `Deno.serve`, whose listening socket can only
 * close together with every idle connection.
 *
 * What Deno 2.9's `Deno.serve` does on `shutdown()` (checked with raw keep-alive sockets):
 * it closes the listening socket and, at once, every idle keep-alive connection, so a request
 * a client is sending on such a connection at that moment is lost without an answer; requests
 * already being handled are answered, but their bodies become unreadable
 * (denoland/deno#36809); a `Connection: close` response header is passed on but does not make
 * the server close the connection. So the drain runs before `shutdown()`:
 *
 * 1. `onDrain` is called at once (the app's `/readyz` turns 503).
 * 2. Requests on connections that have already sent one are answered normally, with
 *    `Connection: close`, after which a client does not send on them again. Requests on
 *    connections first seen during the drain are refused with 503 and `Connection: close`
 *    (an app with `fetchWhileDraining` answers those itself, its probes as usual): the socket
 *    still has to stay open. A proxy in front that does not retry a 503 passes these on.
 * 3. Once nothing is in flight (a streamed answer, such as a log being scored, until its last
 *    byte: the app's `streamsInProgress`), no connection is expected to send again (each was
 *    told to close or has been idle for `idleMs`) and no request came for a short quiet spell,
 *    `shutdown()` closes the socket and the remaining idle connections. At `drainMs` it
 *    happens regardless: `onDeadline` is called first (the app then answers what it still
 *    holds with 503 and `Connection: close`, `server/admission.ts`, and ends the logs still
 *    streaming with their final record), and the socket closes once those answers are out, or
 *    {@link DEADLINE_GRACE_MS} later at most, cutting what is left.
 *
 * When accepting a connection fails (out of descriptors), `Deno.serve`'s socket closes for good:
 * it is reopened (`reopening_server.ts`). A 408 (a body that stalled) is closed once the client
 * sends anything more (`closing_response.ts`).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { listenShared } from "./listen_shared.ts";
 * const running = listenShared({ fetch: () => Promise.resolve(new Response("ok")) }, { port: 0 });
 * assert.equal(await (await fetch(`${running.url}/anything`)).text(), "ok");
 * await running.stop();
 * ```
 *
 * @module
 */

import { ConnectionLedger } from "./connection_ledger.ts";
import { ReopeningServer } from "./reopening_server.ts";
import { closingResponse, ConnectionEnd, withConnectionClose } from "./closing_response.ts";
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
 * Serves `app` on `Deno.serve` until `stop()` is called or the process gets SIGINT / SIGTERM;
 * see the module doc (`lameDuckMs` does not apply: new connections are refused with 503 from the
 * start of the drain).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { listenShared } from "./listen_shared.ts";
 * const app = { fetch: (request: Request) => Promise.resolve(new Response(request.method)) };
 * const running = listenShared(app, { hostname: "127.0.0.1", port: 0 });
 * assert.equal(await (await fetch(running.url, { method: "DELETE" })).text(), "DELETE");
 * await running.stop();
 * ```
 */
export function listenShared(app: ListenedApp, options: ListenOptions = {}): Running {
  const idleMs = options.idleMs ?? 1000;
  const ledger = new ConnectionLedger();
  let draining = false;
  let lastRequest = 0;
  // A streamed answer (a log being scored) is in flight until its last byte, not its head.
  const busy = () => ledger.inFlight > 0 || (app.streamsInProgress?.() ?? 0) > 0;
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
      const response = await app.fetch(
        request,
        options.hangUpSignal ? { signal: request.signal } : undefined,
      );
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
    // A closing answer's body ends with ConnectionEnd on purpose (after its last byte).
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
        const quiet = now - lastRequest >= QUIET_MS && !busy() && ledger.settled(now, idleMs);
        if (now >= deadline || quiet) settle();
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
  const removeSignals = onStopSignals(() => void stop());
  server.failed.catch((error) => {
    removeSignals();
    broke(error);
  });
  return { url: urlOf(server.addr), finished, stop };
}

/**
 * Calls `stop` on SIGINT or SIGTERM (SIGINT alone on Windows); returns what removes the
 * listeners again.
 *
 * @example
 * ```ts
 * import { onStopSignals } from "./listen_shared.ts";
 * const remove = onStopSignals(() => console.log("stopping"));
 * remove();
 * ```
 */
export function onStopSignals(stop: () => void): () => void {
  const signals: Deno.Signal[] = Deno.build.os === "windows" ? ["SIGINT"] : ["SIGINT", "SIGTERM"];
  for (const signal of signals) Deno.addSignalListener(signal, stop);
  return () => {
    for (const signal of signals) Deno.removeSignalListener(signal, stop);
  };
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

/**
 * Waits for `promise`, but at most `ms` (its failure is ignored).
 *
 * @example
 * ```ts
 * import { within } from "./listen_shared.ts";
 * await within(new Promise(() => {}), 10); // gives up after 10 ms
 * ```
 */
export async function within(promise: Promise<void>, ms: number): Promise<void> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  await Promise.race([
    promise.catch(() => {}),
    new Promise<void>((resolve) => (timer = setTimeout(resolve, Math.max(0, ms)))),
  ]);
  clearTimeout(timer);
}

/**
 * An `onError` that logs the error (unless `expected` says it is one) and answers 500.
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
 * The base URL of a listening address, e.g. `http://127.0.0.1:8000` (`[…]` around IPv6).
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
