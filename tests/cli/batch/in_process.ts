/**
 * `batch` and `merge` in-process, through the functions `cli.ts` runs: `batch` with a model
 * already loaded ({@link batchWithModel}, so many runs share one), `merge` as its command. A
 * run's stdout, its stderr lines and its exit code are collected; an error the command throws
 * becomes exit 2 with its `error:` line, as `cli.ts` makes it.
 *
 * @example
 * ```ts
 * import { runBatch } from "./in_process.ts";
 * import { readBundle } from "../../../adapter/deno/bundle_files.ts";
 * import { loadOrt } from "../../../adapter/deno/ort.ts";
 * await using model = await readBundle(await loadOrt(), "examples/rest_serving");
 * const run = await runBatch(model, ["--traces", "examples/rest_serving/applications.json"]);
 * run.code; // 0
 * ```
 *
 * @module
 */

import { batchWithModel } from "../../../cli/batch/mod.ts";
import { mergeCommand } from "../../../cli/merge.ts";
import type { Command } from "../../../cli/command.ts";
import type { Model } from "../../../core/bundle/mod.ts";

/** What a run left. */
export interface Run {
  readonly code: number;
  readonly stdout: string;
  /** The stderr lines, joined with line breaks. */
  readonly stderr: string;
}

/** `batch BUNDLE ...args` with `model` as the bundle. */
export function runBatch(model: Model, args: readonly string[]): Promise<Run> {
  return collect((io) => batchWithModel(model, ["BUNDLE", ...args], io));
}

/** `merge ...args`. */
export function runMerge(args: readonly string[]): Promise<Run> {
  return collect((io) => mergeCommand.run(args, io));
}

async function collect(run: (io: Parameters<Command["run"]>[1]) => Promise<number>): Promise<Run> {
  let stdout = "";
  const stderr: string[] = [];
  let code: number;
  try {
    code = await run({ out: (text) => stdout += text, err: (line) => stderr.push(line) });
  } catch (error) {
    stderr.push(`error: ${(error as Error).message}`);
    code = 2;
  }
  return { code, stdout, stderr: stderr.join("\n") };
}
