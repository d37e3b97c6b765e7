/**
 * Helpers for the `batch` tests: running `cli.ts batch` as a subprocess with exactly the
 * permissions the README documents (`--allow-read`, plus `--allow-write` with `--output`),
 * compiling bundles into a temporary directory, and comparing an output with PETRA's.
 *
 * @example
 * ```ts
 * import { batch } from "./helpers.ts";
 * const result = await batch(["examples/rest_serving", "--traces", "traces.json"]);
 * result.code; // 0
 * ```
 *
 * @module
 */

import assert from "node:assert/strict";
import { compileBundle } from "../../../core/bundle/mod.ts";
import { parseModelDescription } from "../../../core/net/parse.ts";
import { writeBundle } from "../../../adapter/deno/bundle_files.ts";
import { runDeno, type RunResult } from "../../run_deno.ts";
import { entryLayout, type OutputFormat } from "../../../core/log_scoring/entry_layout.ts";
import { headerEntry, type PartIdentity, trailerEntry } from "../../../cli/batch/part_meta.ts";
import { type RuntimeRun, WASM_RUN } from "../../runtimes.ts";

/** The repository root (the subprocesses' working directory). */
export const ROOT = new URL("../../../", import.meta.url);

/** The conformance data recorded from PETRA. */
export { CONFORMANCE } from "../../conformance/fixtures.ts";

/** The credit-approval example bundle (a directory holding one bundle). */
export const CREDIT_BUNDLE = "examples/credit_approval_coloured";

/** What a `batch` run left. */
export type Result = RunResult;

/**
 * Runs `deno run --allow-read [--allow-write] cli.ts batch ...args` in the repository root;
 * `--allow-write` only when `write` is set (the tests pass it exactly with `--output`); on
 * `runtime` (default WASM), with the flags it needs.
 *
 * @example
 * ```ts
 * import { batch } from "./helpers.ts";
 * await batch(["b.onnx", "--traces", "t.csv", "-o", "out.json"], { write: true });
 * ```
 */
export function batch(
  args: readonly string[],
  options: { write?: boolean; runtime?: RuntimeRun } = {},
): Promise<Result> {
  const permissions = options.write ? ["--allow-read", "--allow-write"] : ["--allow-read"];
  const { deno, permissions: extra, cli } = options.runtime ?? WASM_RUN;
  return runDeno(["run", ...deno, ...permissions, ...extra, "cli.ts", "batch", ...args, ...cli]);
}

/**
 * Checks a failure: exit 2, nothing on stdout, one `error:` line on stderr with no stack
 * trace, containing each of `texts`.
 *
 * @example
 * ```ts
 * import { assertInputFailure, batch } from "./helpers.ts";
 * assertInputFailure(await batch(["nope.onnx", "--traces", "t.json"]), "nope.onnx");
 * ```
 */
export function assertInputFailure(result: Result, ...texts: string[]): void {
  assert.equal(result.code, 2, `exit code; stderr: ${result.stderr}`);
  assert.equal(result.stdout, "");
  assert.match(result.stderr, /^error: [^\n]+\n$/, `one error line: ${result.stderr}`);
  assert.ok(!/\n\s+at /.test(result.stderr), "no stack trace");
  for (const text of texts) {
    assert.ok(result.stderr.includes(text), `${JSON.stringify(result.stderr)} lacks ${text}`);
  }
}

/** The summary line `batch` ends with, as a pattern over its counts. */
export const SUMMARY =
  /^batch: (\d+) traces? in \d+\.\d\d s \(start-up \d+\.\d\d s, then \d+ traces\/s\), (\d+) scored, (\d+) errors?( \(traces? [\d, …]+\))?( -> \S+)?$/;

/**
 * Checks that `stderr` ends with the summary line and that it counts `traces` and `errors`.
 *
 * @example
 * ```ts
 * import { assertSummary } from "./helpers.ts";
 * assertSummary("batch: 2 traces in 0.10 s (start-up 0.05 s, then 40 traces/s), 2 scored, 0 errors\n", 2, 0);
 * ```
 */
export function assertSummary(stderr: string, traces: number, errors: number): void {
  const last = stderr.trimEnd().split("\n").at(-1) ?? "";
  const match = SUMMARY.exec(last);
  assert.ok(match, `summary line: ${JSON.stringify(stderr)}`);
  assert.deepEqual(
    [Number(match[1]), Number(match[2]), Number(match[3])],
    [traces, traces - errors, errors],
  );
}

/**
 * Runs `fn` with a fresh temporary directory, removed afterwards.
 *
 * @example
 * ```ts
 * import { withTempDir } from "./helpers.ts";
 * await withTempDir(async (dir) => await Deno.writeTextFile(`${dir}/x`, ""));
 * ```
 */
export async function withTempDir<T>(fn: (dir: string) => Promise<T>): Promise<T> {
  const dir = await Deno.makeTempDir({ prefix: "petri_batch_" });
  try {
    return await fn(dir);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

/**
 * Compiles a model description (parsed JSON) to `dir/name.onnx` + sidecar; returns the
 * `.onnx` path.
 *
 * @example
 * ```ts
 * import { compileTo } from "./helpers.ts";
 * declare const description: unknown;
 * await compileTo("/tmp/x", "model", description); // "/tmp/x/model.onnx"
 * ```
 */
export async function compileTo(dir: string, name: string, description: unknown): Promise<string> {
  const model = parseModelDescription(description);
  const path = `${dir}/${name}.onnx`;
  await writeBundle(path, await compileBundle(model, { savedAt: new Date(0) }));
  return path;
}

/** JSON numbers in a text, for comparing layouts without the digits. */
const NUMBER = /-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?/g;

/**
 * Checks `ours` against PETRA's `theirs` (both JSON text): the same lines once numbers are
 * blanked out (so the layout, key order and strings match exactly), the same value kinds,
 * and every number within `atol`.
 *
 * @example
 * ```ts
 * import { assertMatchesPetra } from "./helpers.ts";
 * assertMatchesPetra('[\n  {\n    "a": 1.0\n  }\n]\n', '[\n  {\n    "a": 1.0000001\n  }\n]\n');
 * ```
 */
export function assertMatchesPetra(ours: string, theirs: string, atol = 1e-5): void {
  const blank = (text: string) => text.replace(NUMBER, "N").split("\n");
  const ourLines = blank(ours);
  const theirLines = blank(theirs);
  for (let i = 0; i < Math.max(ourLines.length, theirLines.length); i++) {
    assert.equal(ourLines[i], theirLines[i], `line ${i + 1}`);
  }
  const ourNumbers = ours.match(NUMBER) ?? [];
  const theirNumbers = theirs.match(NUMBER) ?? [];
  assert.equal(ourNumbers.length, theirNumbers.length);
  ourNumbers.forEach((text, i) => {
    const [a, b] = [Number(text), Number(theirNumbers[i])];
    assert.ok(Math.abs(a - b) <= atol, `number ${i}: ${text} vs PETRA's ${theirNumbers[i]}`);
    // Integers stay integers (trace_index) and floats stay floats (`1.0`, not `1`).
    assert.equal(/[.eE]/.test(text), /[.eE]/.test(theirNumbers[i]!), `number ${i}: ${text}`);
  });
}

/**
 * Runs `batch BUNDLE --traces FOLDER/TRACE_FILE` and checks that it succeeds, prints PETRA's
 * `FOLDER/SCORE_FILE` (by {@link assertMatchesPetra}) and ends with a summary line counting its
 * traces and error entries; on `runtime` (default WASM).
 *
 * @example
 * ```ts
 * import { assertBatchMatchesScore } from "./helpers.ts";
 * import { CONFORMANCE } from "../../conformance/fixtures.ts";
 * const folder = new URL("paint_shop/", CONFORMANCE);
 * const bundle = new URL("model.pt", folder).pathname;
 * await assertBatchMatchesScore(bundle, folder, "traces.csv", "score_csv.json");
 * ```
 */
export async function assertBatchMatchesScore(
  bundle: string,
  folder: URL,
  traceFile: string,
  scoreFile: string,
  runtime: RuntimeRun = WASM_RUN,
): Promise<void> {
  const result = await batch([bundle, "--traces", new URL(traceFile, folder).pathname], {
    runtime,
  });
  assert.equal(result.code, 0, result.stderr);
  const expected = await Deno.readTextFile(new URL(scoreFile, folder));
  assertMatchesPetra(result.stdout, expected);
  const entries = JSON.parse(expected) as { error?: string }[];
  const errors = entries.filter((e) => e.error !== undefined).length;
  assertSummary(result.stderr, entries.length, errors);
}

/**
 * A modulo shard's part around `entries` (entry texts in `format`'s layout): the header and a
 * trailer naming one made-up log and model, as `batch --shard I/N` writes them.
 *
 * @example
 * ```ts
 * import { moduloPart } from "./helpers.ts";
 * moduloPart("jsonl", 0, 2, ['{"trace_index":0}']).startsWith('{"petri_serve_part":'); // true
 * ```
 */
export function moduloPart(
  format: OutputFormat,
  index: number,
  count: number,
  entries: readonly string[],
  identity: Partial<PartIdentity> = {},
): string {
  const header = headerEntry(format, { mode: "modulo", index, count, format: "json" });
  const trailer = trailerEntry(format, {
    logSize: 1000,
    logHead: "0".repeat(64),
    model: "f".repeat(64),
    ...identity,
    traces: entries.length,
  });
  return entryLayout(format).list([header, ...entries, trailer]);
}
