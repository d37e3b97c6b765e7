/**
 * The shape of a CLI subcommand and the errors `main` maps to exit codes. Each subcommand lives
 * in its own module under `cli/` and is listed in `cli.ts`.
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
   * Runs with the arguments after the command name; returns the exit code. A `UsageError`, an
   * {@link InputError} or a `BundleError` exits 2.
   */
  run(args: readonly string[], io: CliIo): Promise<number>;
}

/** Input that cannot be read or is invalid: the CLI prints the message (naming the file), exits 2. */
export class InputError extends Error {
  /** Builds the error; `message` names the file and what is wrong with it, on one line. */
  constructor(message: string) {
    super(message);
    this.name = "InputError";
  }
}
