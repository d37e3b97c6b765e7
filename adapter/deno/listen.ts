/**
 * Runs a fetch handler on a real socket (127.0.0.1 by default) and, on SIGINT or SIGTERM,
 * drains without losing a request a client or a proxy had a right to send. Each accepted
 * connection is served on its own (`connection_server.ts`), so the listening socket and each
 * connection close separately. The drain:
 *
 * 1. `onDrain` is called (the app's `/readyz` turns 503).
 * 2. After `lameDuckMs` the listening socket closes: a new connection is refused, which a proxy
 *    retries elsewhere whatever the method, since nothing was sent.
 * 3. From then on every response says `Connection: close` and its connection closes once it is
 *    out; a response that streams on (`POST /batch`) keeps its connection until its last byte.
 * 4. Connections idle for `idleMs` while no request arrives anywhere are closed: the quiet spell
 *    is when a proxy is not about to send on them.
 * 5. At `drainMs`, `onDeadline` lets the app respond 503 to what it still holds; connections
 *    close once those responses are out, {@link DEADLINE_GRACE_MS} later at most.
 *
 * A response sent before its request body was read whole (a 413, a 408) closes its connection
 * {@link LINGER_MS} later, so no client holds one by promising a body it never sends. Without
 * per-connection serving (`connection_http.ts`) it falls back to `Deno.serve`
 * (`listen_shared.ts`).
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

/** How long a connection whose response came before its request body stays open after it, in ms. */
export const LINGER_MS = 1000;

/** How long no request must arrive before the drain closes idle connections, by default. */
export const DEFAULT_IDLE_MS = 1000;

/** How often the drain looks at the connections. */
const POLL_MS = 20;

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
export function listen(app: ListenedApp, options: ListenOptions = {}): Running {
  return serveConnection === undefined ? listenShared(app, options) : listenOwn(app, options);
}

function listenOwn(app: ListenedApp, options: ListenOptions): Running {
  const idleMs = options.idleMs ?? DEFAULT_IDLE_MS;
  const hangUps = options.hangUpSignal ?? false;
  /** Whether responses tell their client to close the connection (during the drain). */
  let closing = false;
  let inFlight = 0;
  // A streamed response (a log being scored) is in flight until its last byte, not its head.
  const busy = () => inFlight > 0 || (app.streamsInProgress?.() ?? 0) > 0;
  const handler = async (request: Request, connection: Connection) => {
    inFlight++;
    try {
      const response = await app.fetch(request, hangUps ? { signal: request.signal } : undefined);
      if (bodyLeftUnread(request, response)) {
        connection.closeAfterResponse(LINGER_MS);
        return withConnectionClose(response);
      }
      if (!closing) return response;
      connection.closeAfterResponse();
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
            connection.closeAfterResponse();
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
          for (const connection of server.connections) connection.closeAfterResponse();
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
