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

/** Runs `deno ARGS…` from the repository root with no stdin and no colours. */
export async function runDeno(args: readonly string[]): Promise<RunResult> {
  const output = await new Deno.Command(Deno.execPath(), {
    args: [...args],
    cwd: ROOT,
    stdin: "null",
    env: { NO_COLOR: "1" },
  }).output();
  const decode = (bytes: Uint8Array) => new TextDecoder().decode(bytes);
  return { code: output.code, stdout: decode(output.stdout), stderr: decode(output.stderr) };
}
