/**
 * Runs a fetch handler on a real socket with the lifecycle `serve` promises: binds
 * 127.0.0.1 by default, mounts the playground under `/playground`, and on SIGINT or SIGTERM
 * stops accepting, lets in-flight requests finish (up to a deadline, since Deno.serve waits
 * for clients still sending a body) and resolves.
 *
 * @example
 * ```ts
 * import { listen } from "./listen.ts";
 * const running = listen({ fetch: () => Promise.resolve(new Response("ok")) }, { port: 0 });
 * console.log(running.url);
 * await running.stop();
 * ```
 *
 * @module
 */

import { playgroundHandler } from "../web/serve_static.ts";

/** Where and how to listen. */
export interface ListenOptions {
  /** Default `127.0.0.1` (Deno.serve's own default would be every interface). */
  readonly hostname?: string;
  /** Default 8000; 0 picks a free port. */
  readonly port?: number;
  /** How long a shutdown waits for in-flight requests, in ms (default 10 s). */
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
  /** Stops accepting, drains in-flight requests up to the deadline, then resolves. */
  stop(): Promise<void>;
}

/**
 * Serves `app` until `stop()` is called or the process gets SIGINT / SIGTERM.
 *
 * @example
 * ```ts
 * import { listen } from "./listen.ts";
 * declare const app: { fetch(request: Request): Promise<Response> };
 * await listen(app, { hostname: "127.0.0.1", port: 8000 }).finished;
 * ```
 */
export function listen(
  app: { fetch(request: Request): Promise<Response> },
  options: ListenOptions = {},
): Running {
  const playground = options.playground === false ? undefined : playgroundHandler();
  const handler = async (request: Request) =>
    (await playground?.(request)) ?? await app.fetch(request);
  const server = Deno.serve({
    hostname: options.hostname ?? "127.0.0.1",
    port: options.port ?? 8000,
    onListen: () => {}, // the caller prints its own line
  }, handler);
  const { hostname, port } = server.addr;
  const host = hostname.includes(":") ? `[${hostname}]` : hostname;

  const signals: Deno.Signal[] = Deno.build.os === "windows" ? ["SIGINT"] : ["SIGINT", "SIGTERM"];
  let stopping: Promise<void> | undefined;
  let stopped!: () => void;
  const finished = new Promise<void>((resolve) => (stopped = resolve));
  const stop = () =>
    stopping ??= (async () => {
      for (const signal of signals) Deno.removeSignalListener(signal, onSignal);
      let timer: ReturnType<typeof setTimeout> | undefined;
      const deadline = new Promise<void>((resolve) => {
        timer = setTimeout(resolve, options.drainMs ?? 10_000);
      });
      await Promise.race([server.shutdown(), deadline]);
      clearTimeout(timer);
      stopped();
    })();
  const onSignal = () => void stop();
  for (const signal of signals) Deno.addSignalListener(signal, onSignal);
  return { url: `http://${host}:${port}`, finished, stop };
}
