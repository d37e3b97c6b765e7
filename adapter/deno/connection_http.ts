/**
 * HTTP on one connection that this process accepted itself: `Deno.serve`'s own server, bound to
 * a single `Deno.Conn` instead of a listening socket.
 *
 * Why: `Deno.serve` owns its listening socket, and its `shutdown()` closes that socket and every
 * idle keep-alive connection at once (a request a proxy is sending on one of them is lost) and
 * makes the bodies of requests in flight unreadable (denoland/deno#36809). There is no way to
 * close only the listening socket, which is what a proxy in front needs on a restart: new
 * connections refused (it retries them elsewhere, even a POST, since nothing was sent), the
 * ones it holds answered until it lets go of them. Serving each accepted connection on its own
 * gives that: the listener closes alone, and each connection closes when this process decides.
 *
 * The binding is Deno's `serveHttpOnConnection`, which Deno 2.9 exposes only on its internal
 * namespace (`Deno[Deno.internal]`), not as a public API: {@link serveConnection} is undefined
 * on a Deno without it, and `listen.ts` then falls back to `Deno.serve` (see its module doc).
 * `tests/adapter/deno/connection_http_test.ts` pins what this module relies on.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { serveConnection } from "./connection_http.ts";
 * assert.equal(typeof serveConnection, "function"); // on Deno 2.9
 * ```
 *
 * @module
 */

/** The server of one connection. */
export interface ConnectionHttp {
  /**
   * Resolves when the connection has ended: closed by either side (a reset included), or by
   * the signal.
   */
  readonly finished: Promise<void>;
  /**
   * Closes the connection once no request is in flight on it: at once when idle, else after
   * the answer. (Like `Deno.serve`'s `shutdown()`, it makes a body still arriving unreadable,
   * and waits for as long as the client keeps a body it never finishes.)
   */
  shutdown(): Promise<void>;
}

/**
 * Serves HTTP/1.1 on `connection` with `handler` until it ends or `signal` aborts (which closes
 * it at once, after what has been written); `onError` answers a handler that throws.
 */
export type ServeConnection = (
  connection: Deno.Conn,
  signal: AbortSignal,
  handler: (request: Request, info: Deno.ServeHandlerInfo) => Response | Promise<Response>,
  onError: (error: unknown) => Response | Promise<Response>,
) => ConnectionHttp;

/** Deno's per-connection server, or undefined where this Deno has none. */
export const serveConnection: ServeConnection | undefined = lookup();

function lookup(): ServeConnection | undefined {
  const deno = Deno as unknown as Record<symbol, unknown> & { internal?: symbol };
  const internals = deno.internal === undefined ? undefined : deno[deno.internal];
  const serve = (internals as { serveHttpOnConnection?: unknown } | undefined)
    ?.serveHttpOnConnection;
  if (typeof serve !== "function" || serve.length !== 5) return undefined;
  return (connection, signal, handler, onError) => {
    const served = serve(connection, signal, handler, onError, () => {}) as ConnectionHttp;
    // A client that resets its connection ends it as well as one that closes it.
    const finished = served.finished.catch(() => {});
    return { finished, shutdown: () => served.shutdown().catch(() => {}) };
  };
}
