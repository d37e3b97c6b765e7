/**
 * `batch --output` is crash-safe: a run killed half-way (SIGKILL) leaves no file at the
 * output path, only its temporary file beside it; a run stopped by SIGINT or SIGTERM removes
 * the temporary file too, exits non-zero (128 + the signal) and says so in one line. The runs
 * are real `deno run --allow-read --allow-write cli.ts batch` processes on a log large enough
 * to be stopped while the output is being written.
 *
 * @module
 */

import assert from "node:assert/strict";
import { writeLog } from "../../../bench/batch_logs.ts";
import { CREDIT_BUNDLE, ROOT, withTempDir } from "./helpers.ts";

/** Traces in the log: several seconds of scoring, so a signal lands mid-run. */
const TRACES = 500_000;
/** How long to wait for the temporary file to fill, at most. */
const WAIT_MS = 60_000;

/** Starts `batch` on `log` writing `output`; resolves once its temporary file has bytes. */
async function startBatch(log: string, output: string, dir: string) {
  const child = new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "--allow-read",
      "--allow-write",
      "cli.ts",
      "batch",
      CREDIT_BUNDLE,
      "--traces",
      log,
      "-o",
      output,
      "-q",
    ],
    cwd: ROOT,
    stdin: "null",
    stdout: "null",
    stderr: "piped",
    env: { NO_COLOR: "1" },
  }).spawn();
  const deadline = Date.now() + WAIT_MS;
  for (;;) {
    const temporary = temporaries(dir)[0];
    if (temporary !== undefined && Deno.statSync(`${dir}/${temporary}`).size > 0) break;
    if (Date.now() > deadline) {
      child.kill("SIGKILL");
      await child.output();
      throw new Error("batch wrote nothing to a temporary file in time");
    }
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return child;
}

function temporaries(dir: string): string[] {
  return [...Deno.readDirSync(dir)].map((e) => e.name).filter((n) => n.endsWith(".tmp"));
}

Deno.test("batch killed with SIGKILL mid-run leaves no file at the --output path", async () => {
  await withTempDir(async (dir) => {
    const log = `${dir}/log.json`;
    await writeLog(log, "json", TRACES);
    const output = `${dir}/scores.json`;
    const child = await startBatch(log, output, dir);
    child.kill("SIGKILL");
    const status = await child.output();
    assert.equal(status.signal, "SIGKILL");
    await assert.rejects(Deno.stat(output), Deno.errors.NotFound);
    assert.match(temporaries(dir)[0] ?? "", /^\.scores\.json\.\d+-[0-9a-z]+\.tmp$/);
  });
});

for (const [signal, code] of [["SIGINT", 130], ["SIGTERM", 143]] as const) {
  Deno.test(`batch stopped by ${signal} mid-run removes its temporary file and says so`, async () => {
    await withTempDir(async (dir) => {
      const log = `${dir}/log.csv`;
      await writeLog(log, "csv", TRACES);
      const output = `${dir}/scores.json`;
      const child = await startBatch(log, output, dir);
      child.kill(signal);
      const status = await child.output();
      const stderr = new TextDecoder().decode(status.stderr);
      assert.equal(status.code, code, stderr);
      assert.equal(stderr, `error: batch stopped by ${signal}; ${output} was not written\n`);
      await assert.rejects(Deno.stat(output), Deno.errors.NotFound);
      assert.deepEqual(temporaries(dir), []);
    });
  });
}
