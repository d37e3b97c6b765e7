/**
 * The example event logs in `examples/` are accepted by `cli.ts batch` as they are, and the
 * `batch` commands the README shows run as written: each is run as a real subprocess, and its
 * output must hold one entry per trace of the log, in order. Traces are counted from the files
 * themselves (JSON entries, CSV case ids, XES `<trace>` elements), not from the output.
 *
 * @module
 */

import assert from "node:assert/strict";
import { batch } from "../cli/batch/helpers.ts";
import { runDeno } from "../run_deno.ts";

const ROOT = new URL("../../", import.meta.url);

/** Every example log, with the bundle it is meant for. */
const LOGS = [
  ["examples/credit_approval_coloured", "examples/credit_approval_coloured/loans.json"],
  ["examples/credit_approval_coloured", "examples/credit_approval_coloured/loans.csv"],
  ["examples/credit_approval_coloured", "examples/credit_approval_coloured/loans.xes"],
  ["examples/credit_approval_coloured", "examples/credit_approval_coloured/loans.jsonl"],
  ["examples/rest_serving", "examples/rest_serving/applications.json"],
  ["examples/rest_serving", "examples/rest_serving/applications.csv"],
  ["examples/rest_serving", "examples/rest_serving/applications.xes"],
] as const;

interface Entry {
  readonly trace_index: number;
  readonly attributes: Record<string, string>;
  readonly trace_score?: number;
  readonly per_transition_residuals?: Record<string, number>;
  readonly error?: string;
}

Deno.test("every example event log is scored by cli.ts batch, one entry per trace", async (t) => {
  for (const [bundle, log] of LOGS) {
    await t.step(log, async () => {
      const result = await batch([bundle, "--traces", log]);
      assert.equal(result.code, 0, result.stderr);
      const entries: Entry[] = JSON.parse(result.stdout);
      assertEntries(entries, await countTraces(log));
    });
  }
});

Deno.test("the README's batch commands run as written on the example logs", async (t) => {
  const commands = readmeBatchCommands(await Deno.readTextFile(new URL("README.md", ROOT)));
  assert.ok(commands.length > 0, "README.md shows no batch command on examples/");
  for (const command of commands) {
    await t.step(command, async () => {
      const args = command.split(/\s+/);
      const log = args[args.indexOf("--traces") + 1]!;
      assert.ok(LOGS.some(([, known]) => known === log), `${log} is not an example log`);
      // The command as printed, less the leading "deno" (stdout is read instead of a file).
      const result = await runDeno(args.slice(1));
      assert.equal(result.code, 0, result.stderr);
      assertEntries(JSON.parse(result.stdout), await countTraces(log));
      assert.match(result.stderr, /^batch: \d+ traces? in /m);
    });
  }
});

Deno.test("the JSON credit log shows an error entry for the trace without an amount", async () => {
  const log = "examples/credit_approval_coloured/loans.json";
  const result = await batch(["examples/credit_approval_coloured", "--traces", log]);
  assert.equal(result.code, 0, result.stderr);
  const entries: Entry[] = JSON.parse(result.stdout);
  const failed = entries.filter((entry) => entry.error !== undefined);
  assert.deepEqual(failed.map((entry) => entry.attributes.case_id), ["L-1007"]);
  assert.match(failed[0]!.error!, /^missing attribute: .*'amount'/);
  assert.match(result.stderr, /1 error \(trace 6\)/);
});

/** Checks `count` entries with indices 0…count-1, each scored or failed. */
function assertEntries(entries: readonly Entry[], count: number): void {
  assert.ok(count > 0);
  assert.equal(entries.length, count);
  entries.forEach((entry, i) => {
    assert.equal(entry.trace_index, i);
    const scored = typeof entry.trace_score === "number" &&
      typeof entry.per_transition_residuals === "object";
    assert.ok(scored || typeof entry.error === "string", `entry ${i} is neither scored nor failed`);
  });
}

/** The number of traces in a log, read from the file itself. */
async function countTraces(path: string): Promise<number> {
  const text = await Deno.readTextFile(new URL(path, ROOT));
  if (path.endsWith(".json")) return JSON.parse(text).length;
  if (path.endsWith(".jsonl")) return text.trim().split("\n").length;
  if (path.endsWith(".xes")) return text.match(/<trace>/g)?.length ?? 0;
  // The example CSV files hold the case id in their first column.
  const rows = text.trim().split("\n").slice(1);
  return new Set(rows.map((row) => row.split(",")[0])).size;
}

/** The one-line `deno … cli.ts batch examples/…` commands of the README's code blocks. */
function readmeBatchCommands(readme: string): string[] {
  const blocks = [...readme.matchAll(/```(?:sh|shell|bash)\n([\s\S]*?)```/g)].map((m) => m[1]!);
  return blocks.flatMap((block) =>
    block.split("\n").map((line) => line.replace(/\s+#.*$/, "").trim()).filter((line) =>
      /^deno run .*cli\.ts batch examples\//.test(line)
    )
  );
}
