/**
 * Runs a fetch handler on a real socket with the lifecycle `serve` promises: binds 127.0.0.1 by
 * default, and on SIGINT or SIGTERM drains without losing a request that a client or a proxy in
 * front had a right to send, then resolves. Mount the playground in the app (`createApp`'s
 * `mount` option).
 *
 * It accepts its own connections and serves each on its own (`connection_server.ts`), so the
 * listening socket and each connection close separately. The drain:
 *
 * 1. `onDrain` is called at once (the app's `/readyz` turns 503).
 * 2. New connections: after `lameDuckMs` (default 0, at once) the listening socket closes,
 *    having first accepted the connections the kernel had queued. A new connection is then
 *    refused, which a proxy retries on another replica whatever the method, since nothing was
 *    sent (nginx's default `proxy_next_upstream error timeout` does). Until then new
 *    connections are served like the others: a platform that still routes new connections to a
 *    stopping process for a while (a Kubernetes Service) wants a few seconds of this lame duck,
 *    or a `preStop` pause before the signal (docs/deployment.md).
 * 3. Once the socket is closed (from the start of a lame duck), every answer carries
 *    `Connection: close` and its connection is closed once it is out: a client does not send on
 *    it again. (Not before: each such answer makes a proxy open a new connection, which must
 *    not be arriving as the socket closes, when the kernel would reset it.)
 *    An answer that streams on after its head (a log being scored, `POST /batch`) keeps its
 *    connection in flight until its last byte: the drain lets it finish.
 * 4. Open connections with nothing in flight are closed once idle for `idleMs` (default 1 s)
 *    while no request has arrived on any connection for as long; one that never sent a request
 *    once it has been open that long. Closing an idle keep-alive connection races with a client
 *    that sends on it at that moment (nothing in HTTP/1.1 prevents it); the quiet spell is when
 *    a proxy is not sending: it uses its pooled connections first (each is answered and
 *    closed), and once it has found the socket closed it marks the replica down for a while
 *    (nginx: `fail_timeout`, 10 s by default). The drain ends when no connection is left.
 * 5. At `drainMs` the drain ends regardless: `onDeadline` is called first (the app then answers
 *    what it still holds with 503 and `Connection: close`, `server/admission.ts`, and ends the
 *    answers still streaming, the app's `streamsInProgress`, with their final record), and the
 *    connections close once those answers are out, or {@link DEADLINE_GRACE_MS} later at most,
 *    cutting what is left (half-sent requests, answers a client does not read).
 *
 * Outside the drain too, an answer given before the request's body was read to its end (a 413
 * from its `Content-Length`, a 408 for a body that stalled) closes its connection,
 * {@link LINGER_MS} after the answer (time for the client to read it while Deno drops the rest
 * of the body), so no client holds a connection by promising a body it never sends.
 *
 * On a Deno without per-connection serving (`connection_http.ts`), it falls back to
 * `Deno.serve` (`listen_shared.ts`), whose drain has to answer new connections 503 instead of
 * refusing them.
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

import { type Connection, ConnectionServer } from "./connection_server.ts";
import { serveConnection } from "./connection_http.ts";
import { withConnectionClose } from "./connection_close.ts";
import { internalError, listenShared, stopOnSignals, urlOf, waitFor } from "./listen_shared.ts";
import {
  DEADLINE_GRACE_MS,
  DEFAULT_DRAIN_MS,
  type ListenedApp,
  type ListenOptions,
  type Running,
} from "./listen_options.ts";

export { DEADLINE_GRACE_MS, DEFAULT_DRAIN_MS, type ListenedApp, type ListenOptions, type Running };

/** How long a connection whose answer came before its request body stays open after it, in ms. */
export const LINGER_MS = 1000;

/** How long no request must arrive before the drain closes idle connections, by default. */
export const DEFAULT_IDLE_MS = 1000;

/** How often the drain looks at the connections. */
const POLL_MS = 20;

/**
 * Serves `app` until `stop()` is called or the process gets SIGINT / SIGTERM; see the module
 * doc.
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
export function listen(app: ListenedApp, options: ListenOptions = {}): Running {
  return serveConnection === undefined ? listenShared(app, options) : listenOwn(app, options);
}

function listenOwn(app: ListenedApp, options: ListenOptions): Running {
  const idleMs = options.idleMs ?? DEFAULT_IDLE_MS;
  const hangUps = options.hangUpSignal ?? false;
  /** Whether answers tell their client to close the connection (during the drain). */
  let closing = false;
  let inFlight = 0;
  // A streamed answer (a log being scored) is in flight until its last byte, not its head.
  const busy = () => inFlight > 0 || (app.streamsInProgress?.() ?? 0) > 0;
  const handler = async (request: Request, connection: Connection) => {
    inFlight++;
    try {
      const response = await app.fetch(request, hangUps ? { signal: request.signal } : undefined);
      if (bodyLeftUnread(request, response)) {
        connection.closeAfterAnswer(LINGER_MS);
        return withConnectionClose(response);
      }
      if (!closing) return response;
      connection.closeAfterAnswer();
      return withConnectionClose(response);
    } finally {
      inFlight--;
    }
  };
  const log = options.log ?? ((line: string) => console.error(line));
  const server = new ConnectionServer({
    hostname: options.hostname ?? "127.0.0.1",
    port: options.port ?? 8000,
    log,
    onError: internalError(log),
  }, handler);

  const { promise: finished, resolve: stopped, reject: broke } = Promise.withResolvers<void>();
  let stopping: Promise<void> | undefined;
  const stop = () =>
    stopping ??= (async () => {
      removeSignals();
      options.onDrain?.();
      const began = performance.now();
      const deadline = began + (options.drainMs ?? DEFAULT_DRAIN_MS);
      const lameDuckMs = options.lameDuckMs ?? 0;
      const lameDuckUntil = began + lameDuckMs;
      // A lame duck moves its clients on at once; otherwise each answer that closes its
      // connection makes a proxy open a new one, which must not arrive as the socket closes.
      closing = lameDuckMs > 0;
      while (performance.now() < deadline) {
        if (server.listening && performance.now() >= lameDuckUntil) {
          await server.closeListener();
          closing = true;
        }
        const now = performance.now();
        const quiet = now - server.lastArrival >= idleMs;
        for (const connection of server.connections) {
          if (idle(connection, now, idleMs) && (quiet || connection.requests === 0)) {
            connection.closeAfterAnswer();
          }
        }
        if (!server.listening && server.connections.size === 0) break;
        await new Promise((resolve) => setTimeout(resolve, POLL_MS));
      }
      if (server.connections.size > 0) {
        // The deadline: what the app still holds is answered, then each answer goes out.
        const until = performance.now() + DEADLINE_GRACE_MS;
        if (busy()) options.onDeadline?.();
        await waitFor(() => !busy(), until);
        if (!busy()) {
          for (const connection of server.connections) connection.closeAfterAnswer();
          await waitFor(() => server.connections.size === 0, until);
        }
      }
      await server.close();
      stopped();
    })();
  const removeSignals = stopOnSignals(stop, server.failed, broke);
  return { url: urlOf(server.addr), finished, stop };
}

/**
 * Whether `connection` has had nothing in flight for `idleMs`: since its last answer, or since it
 * was accepted (a client that connects sends its request at once; one that has not for so long
 * is holding a connection in reserve).
 */
function idle(connection: Connection, now: number, idleMs: number): boolean {
  return connection.active === 0 && now - connection.idleSince >= idleMs;
}

/**
 * Whether `response` answers `request` before its body was read to the end: the app never read
 * it, or stopped reading it (408, 413).
 */
function bodyLeftUnread(request: Request, response: Response): boolean {
  // `bodyUsed` first: `body` of a body read in one call would build a stream to answer.
  if (request.bodyUsed) return response.status === 408 || response.status === 413;
  return request.body !== null;
}
