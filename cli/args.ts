/**
 * A small command-line argument parser for the subcommands: `--name value`, `--name=value`,
 * short aliases (`-o value`), boolean flags and positional arguments; `--` ends the options.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { parseArgs } from "./args.ts";
 * const { flags, positionals } = parseArgs(["model.json", "-o", "out.onnx"], {
 *   output: { type: "string", short: "o" },
 *   help: { type: "boolean", short: "h" },
 * });
 * assert.equal(flags.output, "out.onnx");
 * assert.deepEqual(positionals, ["model.json"]);
 * ```
 *
 * @module
 */

/** Bad command-line usage: the CLI prints the message with a hint to `--help` and exits 2. */
export class UsageError extends Error {
  /** Builds the error; `message` says what is wrong, naming the argument. */
  constructor(message: string) {
    super(message);
    this.name = "UsageError";
  }
}

/** One option: a string that takes a value, or a boolean flag. */
export interface OptionSpec {
  /** `string` options take a value; `boolean` flags do not. */
  readonly type: "string" | "boolean";
  /** A one-letter alias, used as `-x`. */
  readonly short?: string;
  /** A `string` option that may be repeated: its values are collected in order. */
  readonly multiple?: boolean;
}

/** The options a command accepts, by long name (used as `--name`). */
export type OptionSpecs = Readonly<Record<string, OptionSpec>>;

/**
 * Parsed flags: a string (every value, for a `multiple` option) or `true` per option given
 * (absent when not given).
 */
export type Flags<S extends OptionSpecs> = {
  -readonly [K in keyof S]?: S[K]["type"] extends "string"
    ? S[K]["multiple"] extends true ? string[] : string
    : boolean;
};

/** The result of {@link parseArgs}. */
export interface ParsedArgs<S extends OptionSpecs> {
  /** The options given, by long name. */
  readonly flags: Flags<S>;
  /** The other arguments, in order. */
  readonly positionals: string[];
}

/**
 * Parses `args` against `specs`. A repeated option keeps its last value, unless it is
 * `multiple`.
 *
 * @throws {UsageError} for an unknown option, a missing value, or a value on a boolean flag.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { parseArgs } from "./args.ts";
 * const specs = { origin: { type: "string", multiple: true } } as const;
 * assert.deepEqual(parseArgs(["--origin", "a", "--origin=b"], specs).flags.origin, ["a", "b"]);
 * assert.throws(() => parseArgs(["--fast"], {}), { name: "UsageError" });
 * ```
 */
export function parseArgs<S extends OptionSpecs>(
  args: readonly string[],
  specs: S,
): ParsedArgs<S> {
  const flags: Record<string, string | string[] | boolean> = {};
  const positionals: string[] = [];
  const byShort = new Map(
    Object.entries(specs).flatMap(([name, spec]) =>
      spec.short === undefined ? [] : [[spec.short, name] as const]
    ),
  );
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (arg === "--") {
      positionals.push(...args.slice(i + 1));
      break;
    }
    if (!arg.startsWith("-") || arg === "-") {
      positionals.push(arg);
      continue;
    }
    const eq = arg.indexOf("=");
    const written = eq === -1 ? arg : arg.slice(0, eq);
    const inline = eq === -1 ? undefined : arg.slice(eq + 1);
    const name = written.startsWith("--") ? written.slice(2) : byShort.get(written.slice(1));
    const spec = name === undefined || !Object.hasOwn(specs, name) ? undefined : specs[name];
    if (name === undefined || spec === undefined) {
      throw new UsageError(`unknown option ${written}`);
    }
    if (spec.type === "boolean") {
      if (inline !== undefined) throw new UsageError(`option ${written} takes no value`);
      flags[name] = true;
      continue;
    }
    let value = inline;
    if (value === undefined) {
      value = args[++i];
      if (value === undefined || (value.startsWith("-") && value !== "-")) {
        throw new UsageError(`option ${written} needs a value`);
      }
    }
    const previous = flags[name];
    flags[name] = spec.multiple ? [...Array.isArray(previous) ? previous : [], value] : value;
  }
  return { flags: flags as Flags<S>, positionals };
}
