/**
 * The shape of a CLI subcommand and the errors `main` maps to exit codes. Each subcommand
 * lives in its own module under `cli/` and is listed in the table in `cli.ts`.
 *
 * @example
 * ```ts
 * import type { Command } from "./command.ts";
 * export const hello: Command = {
 *   name: "hello",
 *   summary: "Say hello",
 *   help: "Usage: cli.ts hello\n",
 *   async run(args, io) {
 *     io.out("hello\n");
 *     return 0;
 *   },
 * };
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
 *
 * @example
 * ```ts
 * import { InputError } from "./command.ts";
 * throw new InputError("cannot read model.json: no such file");
 * ```
 */
export class InputError extends Error {
  /**
   * Builds the error.
   *
   * @param message the file and what is wrong with it, on one line
   *
   * @example
   * ```ts
   * import { InputError } from "./command.ts";
   * new InputError("model.json is not valid JSON").message;
   * ```
   */
  constructor(message: string) {
    super(message);
    this.name = "InputError";
  }
}
