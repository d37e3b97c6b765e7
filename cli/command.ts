/**
 * The shape of a CLI subcommand and the errors `main` maps to exit codes. Each subcommand
 * lives in its own module under `cli/` and is listed in the table in `cli.ts`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import type { Command } from "./command.ts";
 * const hello: Command = {
 *   name: "hello",
 *   summary: "Say hello",
 *   help: "Usage: cli.ts hello\n",
 *   async run(args, io) {
 *     io.out("hello\n");
 *     return 0;
 *   },
 * };
 * const out: string[] = [];
 * assert.equal(await hello.run([], { out: (t) => void out.push(t), err: () => {} }), 0);
 * assert.deepEqual(out, ["hello\n"]);
 * ```
 *
 * @module
 */

/** Where a command writes: `out` for results (stdout), `err` for messages (stderr). */
export interface CliIo {
  /** Writes text to standard output as is. */
  out(text: string): void;
  /** Writes one line (a newline is added) to standard error. */
  err(line: string): void;
}

/** One subcommand. */
export interface Command {
  /** The word that selects it: `cli.ts NAME ...`. */
  readonly name: string;
  /** One line for the top-level help. */
  readonly summary: string;
  /** The full help text (`cli.ts NAME --help`), ending with a newline. */
  readonly help: string;
  /**
   * Runs with the arguments after the command name (`--help` is handled by `main`); returns
   * the exit code. Throws {@link import("./args.ts").UsageError} for bad usage and
   * {@link InputError} (or a `BundleError`) for unreadable input: both exit 2.
   */
  run(args: readonly string[], io: CliIo): Promise<number>;
}

/**
 * Input that cannot be read or is invalid (a missing file, bad JSON, an invalid model): the
 * CLI prints the message, which names the file, and exits 2.
 */
export class InputError extends Error {
  /** Builds the error; `message` names the file and what is wrong with it, on one line. */
  constructor(message: string) {
    super(message);
    this.name = "InputError";
  }
}
