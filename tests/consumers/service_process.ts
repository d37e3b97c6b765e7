/**
 * A service the consumer tests start as a subprocess (`deno run service.ts`, `node
 * server.mjs`, `bun server_bun.mjs`): it gets `PORT=0`, prints its URL as its first stdout line,
 * and is killed (SIGKILL) when disposed if it is still running.
 *
 * @example
 * ```ts
 * import { startService } from "./service_process.ts";
 * declare const dir: string;
 * await using service = await startService(dir, "node", ["server.mjs", "model.onnx"]);
 * await fetch(`${service.url}/healthz`);
 * ```
 *
 * @module
 */

/** A running service whose first stdout line holds its URL. */
export interface Service extends AsyncDisposable {
  /** `http://127.0.0.1:PORT`, from its first stdout line. */
  readonly url: string;
  kill(signal: Deno.Signal): void;
  finished(): Promise<{ code: number; stderr: string }>;
}

/**
 * Starts `command ...args` in `dir` with `PORT=0` and waits (60 s at most) for the first stdout
 * line, which must hold its `http://127.0.0.1:PORT` URL.
 */
export async function startService(
  dir: string,
  command: string,
  args: readonly string[],
): Promise<Service> {
  const child = new Deno.Command(command, {
    args: [...args],
    cwd: dir,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
    env: { NO_COLOR: "1", PORT: "0" },
  }).spawn();
  let stderr = "";
  const collected = (async () => {
    for await (const text of child.stderr.pipeThrough(new TextDecoderStream())) stderr += text;
  })();
  const lines = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  let stdout = "";
  const timer = setTimeout(() => child.kill("SIGKILL"), 60_000);
  while (!stdout.includes("\n")) {
    const { value, done } = await lines.read();
    if (done) break;
    stdout += value;
  }
  clearTimeout(timer);
  const drained = (async () => {
    while (!(await lines.read()).done) { /* later output is not needed */ }
  })();
  let result: Promise<{ code: number; stderr: string }> | undefined;
  const finished = () =>
    result ??= Promise.all([child.status, collected, drained]).then(([status]) => ({
      code: status.code,
      stderr,
    }));
  const url = /http:\/\/127\.0\.0\.1:\d+/.exec(stdout)?.[0];
  if (url === undefined) {
    child.kill("SIGKILL");
    const { stderr } = await finished();
    throw new Error(
      `${command} ${args.join(" ")} printed no URL: ${JSON.stringify(stdout)}; stderr: ${stderr}`,
    );
  }
  let exited = false;
  child.status.then(() => exited = true);
  return {
    url,
    kill: (signal) => {
      if (!exited) child.kill(signal);
    },
    finished,
    async [Symbol.asyncDispose]() {
      if (!exited) child.kill("SIGKILL");
      await finished();
    },
  };
}
