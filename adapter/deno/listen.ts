/**
 * Runs a fetch handler on a real socket with the lifecycle `serve` promises: binds
 * 127.0.0.1 by default, mounts the playground under `/playground`, and on SIGINT or SIGTERM
 * stops taking requests, lets in-flight requests finish (up to a deadline, since a client may
 * never finish sending its body) and resolves.
 *
 * The drain happens before `server.shutdown()`: Deno 2.9's shutdown makes the bodies of
 * in-flight requests unreadable at once (denoland/deno#36809), so a request still uploading
 * would fail with a 500. While draining, the socket still accepts connections, and new
 * requests get 503 with `connection: close`; once no request is in flight, the server shuts
 * down.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { listen } from "./listen.ts";
 * const running = listen({ fetch: () => Promise.resolve(new Response("ok")) }, {
 *   port: 0,
 *   playground: false,
 * });
 * assert.equal(await (await fetch(`${running.url}/anything`)).text(), "ok");
 * await running.stop();
 * await running.finished;
 * ```
 *
 * @module
 */

import { playgroundHandler } from "./serve_static.ts";

/** Where and how to listen. */
export interface ListenOptions {
  /** Default `127.0.0.1` (Deno.serve's own default would be every interface). */
  readonly hostname?: string;
  /** Default 8000; 0 picks a free port. */
  readonly port?: number;
  /** How long a shutdown waits for in-flight requests, in ms (default 10 s); then it cuts them. */
  readonly drainMs?: number;
  /** Serve the built playground at `/playground` (default true). */
  readonly playground?: boolean;
}

/** A listening server. */
export interface Running {
  /** The base URL, e.g. `http://127.0.0.1:8000`. */
  readonly url: string;
  /** Resolves once the server has stopped (after {@link Running.stop} or a signal). */
  readonly finished: Promise<void>;
  /** Stops taking requests, drains in-flight ones up to the deadline, then resolves. */
  stop(): Promise<void>;
}

/**
 * Serves `app` until `stop()` is called or the process gets SIGINT / SIGTERM.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { listen } from "./listen.ts";
 * const app = { fetch: (request: Request) => Promise.resolve(new Response(request.method)) };
 * const running = listen(app, { hostname: "127.0.0.1", port: 0, playground: false });
 * assert.equal(await (await fetch(running.url, { method: "DELETE" })).text(), "DELETE");
 * // `running.finished` resolves after stop() or SIGINT / SIGTERM.
 * await running.stop();
 * ```
 */
export function listen(
  app: { fetch(request: Request): Promise<Response> },
  options: ListenOptions = {},
): Running {
  const playground = options.playground === false ? undefined : playgroundHandler();
  let stopping: Promise<void> | undefined;
  let inFlight = 0;
  let idle: (() => void) | undefined;
  const handler = async (request: Request) => {
    if (stopping) return shuttingDown();
    inFlight++;
    try {
      return (await playground?.(request)) ?? await app.fetch(request);
    } catch (error) {
      // app.fetch answers every error itself; only the static files can get here.
      console.error(error);
      return Response.json({ detail: "Internal Server Error" }, { status: 500 });
    } finally {
      if (--inFlight === 0) idle?.();
    }
  };
  const server = Deno.serve({
    hostname: options.hostname ?? "127.0.0.1",
    port: options.port ?? 8000,
    onListen: () => {}, // the caller prints its own line
  }, handler);
  const { hostname, port } = server.addr;
  const host = hostname.includes(":") ? `[${hostname}]` : hostname;

  const signals: Deno.Signal[] = Deno.build.os === "windows" ? ["SIGINT"] : ["SIGINT", "SIGTERM"];
  let stopped!: () => void;
  const finished = new Promise<void>((resolve) => (stopped = resolve));
  let shutdown: Promise<void> | undefined;
  const shutdownOnce = () => (shutdown ??= server.shutdown());
  const stop = () =>
    stopping ??= (async () => {
      for (const signal of signals) Deno.removeSignalListener(signal, onSignal);
      let timer: ReturnType<typeof setTimeout> | undefined;
      const deadline = new Promise<false>((resolve) => {
        timer = setTimeout(() => resolve(false), options.drainMs ?? 10_000);
      });
      const drained = new Promise<void>((resolve) => {
        if (inFlight === 0) resolve();
        else idle = resolve;
      });
      const inTime = await Promise.race([
        drained.then(shutdownOnce).then(() => true),
        deadline,
      ]);
      clearTimeout(timer);
      // Past the deadline: shutting down cuts what is left; the caller is not kept waiting.
      if (!inTime) shutdownOnce().catch(() => {});
      stopped();
    })();
  const onSignal = () => void stop();
  for (const signal of signals) Deno.addSignalListener(signal, onSignal);
  return { url: `http://${host}:${port}`, finished, stop };
}

function shuttingDown(): Response {
  return Response.json({ detail: "The server is shutting down" }, {
    status: 503,
    headers: { connection: "close" },
  });
}
