/**
 * Real server processes for the `serve` tests: `deno run ... cli.ts serve` or
 * `adapter/deno/main.ts` started with `Deno.command`, stderr piped. The first stderr line names the
 * URL; the rest of stderr is collected so a failure can show it. `await using` stops a process
 * that is still running (SIGKILL) and waits for it.
 *
 * @example
 * ```ts
 * import { startServerProcess } from "./server_process.ts";
 * await using server = await startServerProcess(["run", "-A", "cli.ts", "serve", "--port", "0"]);
 * await (await fetch(`${server.origin}/healthz`)).json();
 * server.kill("SIGTERM");
 * (await server.finished()).code; // 0
 * ```
 *
 * @module
 */

/** The repository root: the subprocesses' working directory. */
export const ROOT = new URL("../../../", import.meta.url);

/** How a server process ended. */
export interface Exit {
  readonly code: number;
  readonly signal: Deno.Signal | null;
  /** Everything it wrote to stderr, the first line included. */
  readonly stderr: string;
  /** Everything it wrote to stdout, when {@link StartOptions.stdout} asked for it. */
  readonly stdout: string;
}

/** A running server process. */
export interface ServerProcess extends AsyncDisposable {
  /** `http://127.0.0.1:PORT`, read from the first stderr line. */
  readonly origin: string;
  /** The first stderr line, without its newline. */
  readonly firstLine: string;
  /** The process id. */
  readonly pid: number;
  /** Whether the process has exited. */
  readonly exited: boolean;
  /** What it has written to stderr so far. */
  readonly stderrSoFar: string;
  /** Sends `signal` to the process (not to any other). */
  kill(signal: Deno.Signal): void;
  /** Waits for the process to exit and its stderr to end. */
  finished(): Promise<Exit>;
}

/** Options of {@link startServerProcess}. */
export interface StartOptions {
  /** Extra environment variables (the parent's are inherited). */
  readonly env?: Readonly<Record<string, string>>;
  /** How long to wait for the first stderr line, in ms (default 60 s). */
  readonly startTimeoutMs?: number;
  /** The working directory (default: the repository root). */
  readonly cwd?: string | URL;
  /** Collect stdout (default: discarded). */
  readonly stdout?: boolean;
  /**
   * A command that execs the rest of its arguments, run in place of `deno` with deno's path
   * and `args` after it (e.g. `["sh", "-c", 'ulimit -n 256 && exec "$0" "$@"']`): the process
   * keeps its id through the exec.
   */
  readonly launcher?: readonly string[];
}

const ORIGIN = /http:\/\/127\.0\.0\.1:\d+/;

/**
 * Runs `deno ...args` in the repository root and waits for its first stderr line, which must
 * hold an `http://127.0.0.1:PORT` URL. When it does not (or does not come in time), the
 * process is killed and the error quotes its stderr.
 *
 * @example
 * ```ts
 * import { startServerProcess } from "./server_process.ts";
 * await using server = await startServerProcess(
 *   ["run", "--allow-read", "--allow-env", "--allow-net", "adapter/deno/main.ts"],
 *   { env: { DENO_SERVE_ADDRESS: "tcp:127.0.0.1:0" } },
 * );
 * server.firstLine; // "Listening on http://127.0.0.1:PORT/"
 * ```
 */
export async function startServerProcess(
  args: readonly string[],
  options: StartOptions = {},
): Promise<ServerProcess> {
  const [program, ...launch] = [...(options.launcher ?? []), Deno.execPath()];
  const child = new Deno.Command(program!, {
    args: [...launch, ...args],
    cwd: options.cwd ?? ROOT,
    stdin: "null",
    stdout: options.stdout ? "piped" : "null",
    stderr: "piped",
    env: { NO_COLOR: "1", ...options.env },
  }).spawn();

  let exited = false;
  const status = child.status.then((s) => {
    exited = true;
    return s;
  });
  let stderr = "";
  let gotLine!: (line: string | undefined) => void;
  const firstLine = new Promise<string | undefined>((resolve) => (gotLine = resolve));
  const collected = (async () => {
    for await (const text of child.stderr.pipeThrough(new TextDecoderStream())) {
      stderr += text;
      const end = stderr.indexOf("\n");
      if (end >= 0) gotLine(stderr.slice(0, end));
    }
    gotLine(undefined); // no-op when a line came
  })();
  let stdout = "";
  const collectedOut = options.stdout
    ? (async () => {
      for await (const text of child.stdout.pipeThrough(new TextDecoderStream())) stdout += text;
    })()
    : Promise.resolve();
  let result: Promise<Exit> | undefined;
  const finished = () =>
    result ??= Promise.all([status, collected, collectedOut]).then(([s]) => ({
      code: s.code,
      signal: s.signal,
      stderr,
      stdout,
    }));
  const kill = (signal: Deno.Signal) => {
    if (!exited) child.kill(signal);
  };

  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<"timeout">((resolve) => {
    timer = setTimeout(() => resolve("timeout"), options.startTimeoutMs ?? 60_000);
  });
  const line = await Promise.race([firstLine, timeout]);
  clearTimeout(timer);
  const origin = typeof line === "string" ? ORIGIN.exec(line)?.[0] : undefined;
  if (typeof line !== "string" || origin === undefined) {
    kill("SIGKILL");
    const exit = await finished();
    const why = line === "timeout" ? "printed no line in time" : "printed no URL first";
    throw new Error(
      `deno ${args.join(" ")} ${why} (exit ${exit.code}); stderr: ${JSON.stringify(exit.stderr)}`,
    );
  }
  return {
    origin,
    firstLine: line,
    pid: child.pid,
    get exited() {
      return exited;
    },
    get stderrSoFar() {
      return stderr;
    },
    kill,
    finished,
    async [Symbol.asyncDispose]() {
      kill("SIGKILL");
      await finished();
    },
  };
}

/**
 * A temporary directory, removed with everything in it by `await using`.
 *
 * @example
 * ```ts
 * import { tempDir } from "./server_process.ts";
 * await using dir = await tempDir();
 * await Deno.writeTextFile(`${dir.path}/x.json`, "{}");
 * ```
 */
export async function tempDir(): Promise<{ readonly path: string } & AsyncDisposable> {
  const path = await Deno.makeTempDir({ prefix: "petri_serve_" });
  return {
    path,
    async [Symbol.asyncDispose]() {
      await Deno.remove(path, { recursive: true });
    },
  };
}
