/**
 * HTTP on one connection this process accepted itself: `Deno.serve`'s server bound to a single
 * `Deno.Conn`. `Deno.serve`'s `shutdown()` closes the listening socket and every idle
 * keep-alive connection at once (denoland/deno#36809); a proxy on a restart needs only the
 * listener closed, so each accepted connection is served on its own. The binding is Deno 2.9's
 * internal `serveHttpOnConnection`: {@link serveConnection} is undefined without it and
 * `listen.ts` falls back to `Deno.serve` (`tests/adapter/deno/connection_http_test.ts` pins it).
 *
 * @module
 */

/** The server of one connection. */
export interface ConnectionHttp {
  /** Resolves when the connection has ended: closed by either side, reset, or by the signal. */
  readonly finished: Promise<void>;
  /** Closes the connection once no request is in flight on it (a body still arriving is lost). */
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
