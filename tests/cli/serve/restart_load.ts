/**
 * Rolling restarts behind a real nginx: two replicas of one server face, nginx in front
 * (`./nginx.ts`), four keep-alive clients sending `/forward`, `/schema` and a 20,000-row `/v2`
 * infer in turn through nginx, and one replica stopped with SIGTERM and started again on the
 * same port, several times, while they do. Reports every answer other than 200 that reached a
 * client, and what each stopped replica had answered. Bounded: the clients stop after the last
 * restart (and at {@link MAX_REQUESTS} each), everything listens on 127.0.0.1 or a Unix socket.
 *
 * @example
 * ```ts
 * import { CLI_FACE, restartBehindNginx } from "./restart_load.ts";
 * const report = await restartBehindNginx(CLI_FACE, { restarts: 1 });
 * report.failures.length; // 0
 * ```
 *
 * @module
 */

import { RawConnection } from "./raw_http.ts";
import { startNginx } from "./nginx.ts";
import { type Exit, type ServerProcess, startServerProcess } from "./server_process.ts";
import { inferBody } from "./flood_bodies.ts";

/** How one server face is started on a port (0: a free one) and stopped. */
export interface Face {
  readonly name: string;
  start(port: number, cwd?: string): Promise<ServerProcess>;
  /** SIGTERM, and its exit; at most a few seconds. */
  stop(server: ServerProcess): Promise<Exit>;
}

/** `cli.ts serve`, access log on stdout. */
export const CLI_FACE: Face = {
  name: "cli.ts serve",
  start: (port, cwd) =>
    startServerProcess(["run", "-A", "cli.ts", "serve", "--port", String(port)], {
      stdout: true,
      ...(cwd ? { cwd } : {}),
    }),
  async stop(server) {
    server.kill("SIGTERM");
    return await server.finished();
  },
};

/** `deno serve --parallel adapter/deno/main.ts`, with the permissions the docs give. */
export const DENO_SERVE_FACE: Face = {
  name: "deno serve --parallel",
  start: (port, cwd) =>
    startServerProcess(
      ["serve", "--parallel", "--allow-read", "--allow-env", "--allow-net", "adapter/deno/main.ts"],
      {
        env: { DENO_SERVE_ADDRESS: `tcp:127.0.0.1:${port}` },
        stdout: true,
        ...(cwd ? { cwd } : {}),
      },
    ),
  async stop(server) {
    // Deno 2.9.6 now and then leaves one instance running after SIGTERM: a second one ends it.
    server.kill("SIGTERM");
    for (let i = 0; i < 2; i++) {
      const exit = await within(server.finished(), 8_000);
      if (exit) return exit;
      server.kill(i === 0 ? "SIGTERM" : "SIGKILL");
    }
    return await server.finished();
  },
};

/** Each client stops after this many requests at most. */
export const MAX_REQUESTS = 50_000;
const CLIENTS = 4;
const ROWS = 20_000;

/** An answer other than 200 that reached a client. */
export interface Failure {
  readonly path: string;
  /** The status, or `closed` when nginx closed the connection without an answer. */
  readonly status: number | "closed";
  readonly body: string;
  /** Ms since the run began. */
  readonly at: number;
}

/** What a run saw. */
export interface RestartReport {
  readonly face: string;
  readonly restarts: number;
  readonly answered: number;
  readonly failures: readonly Failure[];
  /** Ms since the run began, of each SIGTERM. */
  readonly signals: readonly number[];
  /**
   * Per stopped replica: its exit code, how many requests its access log has, and when it
   * exited (ms since the run began).
   */
  readonly stopped: readonly {
    readonly code: number;
    readonly logged: number;
    readonly at: number;
  }[];
  /** nginx's error log (upstream errors it met, retried or not). */
  readonly nginxErrors: string;
}

/** Options of {@link restartBehindNginx}. */
export interface RestartOptions {
  /** How many times the one replica is restarted (default 3). */
  readonly restarts?: number;
  /** nginx's `proxy_next_upstream` (default: nginx's own default). */
  readonly proxyNextUpstream?: string;
  /** The checkout the replicas run from (default: this one). */
  readonly cwd?: string;
  /** How long the load runs on both replicas before each restart, in ms (default 1500). */
  readonly settleMs?: number;
}

/** Runs the rolling restarts of `face` behind nginx; see the module doc. */
export async function restartBehindNginx(
  face: Face,
  options: RestartOptions = {},
): Promise<RestartReport> {
  const restarts = options.restarts ?? 3;
  const settleMs = options.settleMs ?? 2500;
  const begin = performance.now();
  const now = () => Math.round(performance.now() - begin);
  let stable: ServerProcess | undefined;
  let moving: ServerProcess | undefined;
  const failures: Failure[] = [];
  const signals: number[] = [];
  const stopped: { code: number; logged: number; at: number }[] = [];
  let answered = 0;
  let stopping = false;
  try {
    stable = await face.start(0, options.cwd);
    moving = await face.start(0, options.cwd);
    const port = Number(new URL(moving.origin).port);
    await using nginx = await startNginx(
      [new URL(stable.origin).host, new URL(moving.origin).host],
      options.proxyNextUpstream ? { proxyNextUpstream: options.proxyNextUpstream } : {},
    );
    const schema = await (await fetch(`${stable.origin}/schema`)).json();
    const requests = [
      { method: "POST", path: "/forward", body: JSON.stringify({ input_marking: {} }) },
      { method: "GET", path: "/schema", body: undefined },
      {
        method: "POST",
        path: `/v2/models/${schema.scenario_name ?? "credit_approval_coloured"}/infer`,
        body: inferBody(ROWS),
      },
    ];
    const client = async (index: number) => {
      let connection: RawConnection | undefined;
      try {
        for (let i = index; i < MAX_REQUESTS && !stopping; i++) {
          connection ??= await RawConnection.openUnix(nginx.socket);
          const { method, path, body } = requests[i % requests.length]!;
          const answer = await connection.request(method, path, body);
          if (answer === "closed" || answer.status !== 200) {
            failures.push({
              path,
              status: answer === "closed" ? "closed" : answer.status,
              body: answer === "closed" ? "" : answer.body.slice(0, 200),
              at: now(),
            });
          } else {
            answered++;
          }
          if (answer === "closed" || answer.headers.get("connection") === "close") {
            connection.close();
            connection = undefined;
          }
        }
      } finally {
        connection?.close();
      }
    };
    const clients = Array.from({ length: CLIENTS }, (_, i) => client(i));
    try {
      for (let r = 0; r < restarts; r++) {
        await delay(settleMs);
        signals.push(now());
        const exit = await face.stop(moving);
        stopped.push({
          code: exit.code,
          logged: exit.stdout.match(/^\S+Z \w+ \//gm)?.length ?? 0,
          at: now(),
        });
        moving = await face.start(port, options.cwd);
      }
      await delay(settleMs);
    } finally {
      stopping = true;
      await Promise.all(clients);
    }
    return {
      face: face.name,
      restarts,
      answered,
      failures,
      signals,
      stopped,
      nginxErrors: await nginx.errorLog(),
    };
  } finally {
    stopping = true;
    for (const server of [stable, moving]) {
      if (server && !server.exited) await face.stop(server).catch(() => {});
    }
  }
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

async function within<T>(promise: Promise<T>, ms: number): Promise<T | undefined> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  try {
    return await Promise.race([
      promise,
      new Promise<undefined>((resolve) => (timer = setTimeout(() => resolve(undefined), ms))),
    ]);
  } finally {
    clearTimeout(timer);
  }
}
