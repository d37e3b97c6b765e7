/**
 * The petri-serve command line: `compile`, `inspect`, `serve`, `batch` and `merge`, each a
 * module under `cli/` listed in {@link COMMANDS}. Exit codes: 0 on success, 2 on bad usage or
 * unreadable input (one line on stderr), 1 on an unexpected failure, 3 from
 * `batch --fail-on-errors` when some traces failed.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { main } from "./cli.ts";
 * const out: string[] = [];
 * const io = { out: (text: string) => void out.push(text), err: (line: string) => void out.push(line) };
 * const code = await main(["inspect", "examples/rest_serving"], io);
 * assert.equal(code, 0);
 * assert.match(out.join(""), /scenario +rest_serving/);
 * ```
 *
 * @module
 */

import { BundleError, PACKAGE_NAME, PACKAGE_VERSION } from "./core/bundle/mod.ts";
import { terminalText } from "./cli/terminal_text.ts";
import { UsageError } from "./cli/args.ts";
import { batchCommand } from "./cli/batch/mod.ts";
import { type CliIo, type Command, InputError } from "./cli/command.ts";
import { compileCommand } from "./cli/compile.ts";
import { inspectCommand } from "./cli/inspect.ts";
import { mergeCommand } from "./cli/merge.ts";
import { serveCommand } from "./cli/serve.ts";

export type { CliIo, Command } from "./cli/command.ts";

/** The subcommands, in the order the help lists them. */
export const COMMANDS: readonly Command[] = [
  compileCommand,
  inspectCommand,
  serveCommand,
  batchCommand,
  mergeCommand,
];

const PROGRAM = "cli.ts";

function topHelp(): string {
  const width = Math.max(...COMMANDS.map((c) => c.name.length)) + 2;
  return `${PACKAGE_NAME} ${PACKAGE_VERSION}: serve trained PETRA Petri-net models

Usage: deno run -A ${PROGRAM} COMMAND [options]

Commands:
${COMMANDS.map((c) => `  ${c.name.padEnd(width)}${c.summary}`).join("\n")}

Options:
  -h, --help     show this help
  -V, --version  print the version and exit

Run '${PROGRAM} COMMAND --help' for a command's arguments and options.
`;
}

const STD_IO: CliIo = {
  out(text) {
    // writeSync may write only part of a buffer to a pipe.
    let bytes = new TextEncoder().encode(text);
    while (bytes.length > 0) bytes = bytes.subarray(Deno.stdout.writeSync(bytes));
  },
  err: (line) => console.error(line),
};

/**
 * Runs the CLI with `args` (without the program name) and returns the exit code; it never
 * exits the process itself.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { main } from "./cli.ts";
 * const out: string[] = [];
 * const io = { out: (text: string) => void out.push(text), err: (line: string) => void out.push(line) };
 * assert.equal(await main(["--help"], io), 0);
 * // Bad usage: exit 2 and one line on stderr.
 * assert.equal(await main(["inspect", "--fast"], io), 2);
 * assert.equal(await main(["--version"], io), 0);
 * assert.match(out.at(-1)!, /^@petri\/serve 0\.1\.0 \(deno /);
 * ```
 */
export async function main(args: readonly string[], io: CliIo = STD_IO): Promise<number> {
  const [name, ...rest] = args;
  if (name === undefined) {
    io.err(`error: no command given; run '${PROGRAM} --help' for the commands`);
    return 2;
  }
  if (name === "--help" || name === "-h" || name === "help") {
    io.out(topHelp());
    return 0;
  }
  if (name === "--version" || name === "-V") {
    io.out(`${PACKAGE_NAME} ${PACKAGE_VERSION} (deno ${Deno.version.deno})\n`);
    return 0;
  }
  const command = COMMANDS.find((c) => c.name === name);
  if (command === undefined) {
    const what = name.startsWith("-") ? `unknown option ${name}` : `unknown command '${name}'`;
    io.err(`error: ${what}; run '${PROGRAM} --help' for the commands`);
    return 2;
  }
  if (wantsHelp(rest)) {
    io.out(command.help);
    return 0;
  }
  try {
    return await command.run(rest, io);
  } catch (error) {
    if (error instanceof UsageError) {
      io.err(`error: ${error.message}; run '${PROGRAM} ${name} --help' for usage`);
      return 2;
    }
    if (error instanceof InputError || error instanceof BundleError) {
      io.err(`error: ${oneLine(error.message)}`);
      return 2;
    }
    io.err(
      `error: ${name} failed: ${oneLine(error instanceof Error ? error.message : String(error))}`,
    );
    return 1;
  }
}

/** `--help` or `-h` before any `--`. */
function wantsHelp(args: readonly string[]): boolean {
  const end = args.indexOf("--");
  return (end === -1 ? args : args.slice(0, end)).some((a) => a === "--help" || a === "-h");
}

/** One line, with no control character that a terminal would act on (the text may quote a model). */
function oneLine(text: string): string {
  return terminalText(text.replace(/\s*\n\s*/g, "; "));
}

if (import.meta.main) Deno.exit(await main(Deno.args));
