/**
 * Runs `deno` as a subprocess in the repository root (for CLI tests that must see real exit
 * codes, stdout and stderr, and real permission flags).
 *
 * @example
 * ```ts
 * import { runDeno } from "./run_deno.ts";
 * const { code, stderr } = await runDeno(["run", "-A", "cli.ts", "--help"]);
 * ```
 *
 * @module
 */

/** What a finished subprocess left. */
export interface RunResult {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

const ROOT = new URL("../", import.meta.url);

/** What else {@link runDeno} sets in the subprocess. */
export interface RunOptions {
  /** Environment variables added to the inherited environment (and `NO_COLOR=1`). */
  readonly env?: Readonly<Record<string, string>>;
  /** Kills the subprocess (SIGTERM) when it runs longer than this many ms: a bound, not a measure. */
  readonly timeoutMs?: number;
}

/**
 * Runs `deno ARGS…` from the repository root with no stdin and no colours.
 *
 * @example
 * ```ts
 * import { runDeno } from "./run_deno.ts";
 * const { code } = await runDeno(["eval", "Deno.exit(Number(Deno.env.get('CODE')))"], {
 *   env: { CODE: "3" },
 * });
 * code; // 3
 * ```
 */
export async function runDeno(
  args: readonly string[],
  options: RunOptions = {},
): Promise<RunResult> {
  const output = await new Deno.Command(Deno.execPath(), {
    args: [...args],
    cwd: ROOT,
    stdin: "null",
    env: { NO_COLOR: "1", ...options.env },
    ...(options.timeoutMs === undefined ? {} : { signal: AbortSignal.timeout(options.timeoutMs) }),
  }).output();
  const decode = (bytes: Uint8Array) => new TextDecoder().decode(bytes);
  return { code: output.code, stdout: decode(output.stdout), stderr: decode(output.stderr) };
}
