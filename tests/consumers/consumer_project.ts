/**
 * Throw-away consumer projects: a temporary directory outside the repository with its own
 * `deno.json`, whose `links` point at this checkout, so `jsr:@petri/serve@^0.1.0` resolves to
 * it exactly as a JSR consumer resolves the published package: through `deno.json`'s `exports`
 * and the package's own `imports`, with no `--config` into the package and nothing of the
 * repository's own `deno.json` (its `allowScripts`, its lock) in effect.
 *
 * @example
 * ```ts
 * import { denoConsumer } from "./consumer_project.ts";
 * await using project = await denoConsumer({ "main.ts": 'import "@petri/serve";\n' }, {
 *   "@petri/serve": "jsr:@petri/serve@^0.1.0",
 * });
 * const { code } = await project.deno(["run", "main.ts"]);
 * ```
 *
 * @module
 */

import { fileURLToPath } from "node:url";

/** This checkout's root directory, as a path. */
export const REPO_DIR: string = fileURLToPath(new URL("../../", import.meta.url)).replace(
  /\/$/,
  "",
);

/** What a finished command left. */
export interface Output {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** A consumer project in a temporary directory, removed by `await using`. */
export interface ConsumerProject extends AsyncDisposable {
  /** Its directory. */
  readonly dir: string;
  /** Writes `text` to `name` (relative to the directory). */
  write(name: string, text: string | Uint8Array): Promise<void>;
  /** Runs `deno ...args` in the directory. */
  deno(args: readonly string[], env?: Readonly<Record<string, string>>): Promise<Output>;
  /** Runs `command ...args` in the directory. */
  run(
    command: string,
    args: readonly string[],
    env?: Readonly<Record<string, string>>,
  ): Promise<Output>;
}

/**
 * Creates a project holding `files`, with `deno.json` `{ links: [this checkout], imports }`.
 * `DENO_DIR` stays the shared cache (a consumer's own first run would download the same npm
 * packages).
 */
export async function denoConsumer(
  files: Readonly<Record<string, string | Uint8Array>>,
  imports: Readonly<Record<string, string>>,
): Promise<ConsumerProject> {
  const project = await emptyProject();
  await project.write("deno.json", JSON.stringify({ links: [REPO_DIR], imports }, null, 2) + "\n");
  for (const [name, text] of Object.entries(files)) await project.write(name, text);
  return project;
}

/** A temporary directory outside the repository, with the helpers of {@link ConsumerProject}. */
export async function emptyProject(): Promise<ConsumerProject> {
  const dir = await Deno.makeTempDir({ prefix: "petri-serve-consumer-" });
  if (dir.startsWith(`${REPO_DIR}/`)) throw new Error(`${dir} is inside the repository`);
  const run = async (
    command: string,
    args: readonly string[],
    env: Readonly<Record<string, string>> = {},
  ): Promise<Output> => {
    const output = await new Deno.Command(command, {
      args: [...args],
      cwd: dir,
      stdin: "null",
      env: { NO_COLOR: "1", ...env },
    }).output();
    const text = (bytes: Uint8Array) => new TextDecoder().decode(bytes);
    return { code: output.code, stdout: text(output.stdout), stderr: text(output.stderr) };
  };
  return {
    dir,
    async write(name, text) {
      const path = `${dir}/${name}`;
      await Deno.mkdir(path.slice(0, path.lastIndexOf("/")), { recursive: true });
      if (typeof text === "string") await Deno.writeTextFile(path, text);
      else await Deno.writeFile(path, text);
    },
    deno: (args, env) => run(Deno.execPath(), args, env),
    run,
    async [Symbol.asyncDispose]() {
      await Deno.remove(dir, { recursive: true });
    },
  };
}

/** Fails with the command's output when it did not exit 0; returns its stdout. */
export function succeeded(what: string, output: Output): string {
  if (output.code !== 0) {
    throw new Error(
      `${what} exited ${output.code}\n--- stdout\n${output.stdout}\n--- stderr\n${output.stderr}`,
    );
  }
  return output.stdout;
}

/** Whether `command --version` runs. */
export function installed(command: string): boolean {
  try {
    return new Deno.Command(command, { args: ["--version"] }).outputSync().success;
  } catch {
    return false;
  }
}

/** `npm install ...args` in the project, offline when npm's cache has them. */
export async function npmInstall(
  project: ConsumerProject,
  packages: readonly string[],
  env: Readonly<Record<string, string>> = {},
): Promise<void> {
  const args = ["install", "--no-audit", "--no-fund", "--prefer-offline", ...packages];
  succeeded(`npm ${args.join(" ")}`, await project.run("npm", args, env));
}
