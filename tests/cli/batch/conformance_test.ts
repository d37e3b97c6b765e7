/**
 * Replays PETRA's `score` command: for every model of tests/fixtures/conformance, `cli.ts batch`
 * (run with `--allow-read` only; natively, `--runtime native` with `--allow-ffi` too) on its traces.json, traces.csv and traces.xes must print
 * PETRA's score.json, score_csv.json and score_xes.json: the same text line by line once the
 * numbers are blanked out (layout, key order, attributes, error entries), and every number
 * within 1e-5.
 *
 * @module
 */

import assert from "node:assert/strict";
import {
  assertBatchMatchesScore,
  assertMatchesPetra,
  batch,
  compileTo,
  withTempDir,
} from "./helpers.ts";
import {
  CONFORMANCE,
  readConformanceDescription,
  RECORDED_MODELS,
  SCORE_FILES,
} from "../../conformance/fixtures.ts";
import { RUNTIME_RUNS } from "../../runtimes.ts";

for (const run of RUNTIME_RUNS) {
  Deno.test(`batch${run.label} reproduces PETRA's score output for every conformance model`, async (t) => {
    assert.ok(RECORDED_MODELS.length >= 5, `found ${RECORDED_MODELS.length} conformance models`);
    await withTempDir(async (dir) => {
      for (const model of RECORDED_MODELS) {
        const folder = new URL(`${model}/`, CONFORMANCE);
        const bundle = await compileTo(dir, model, await readConformanceDescription(model));
        for (const [traceFile, scoreFile] of SCORE_FILES) {
          // Every conformance model ships all three formats (conformance/README.md).
          assert.ok(existsSync(new URL(traceFile, folder)), `${model}/${traceFile} is missing`);
          await t.step(`${model}/${traceFile}`, async () => {
            await assertBatchMatchesScore(bundle, folder, traceFile, scoreFile, run);
          });
        }
      }
    });
  });
}

function existsSync(url: URL): boolean {
  try {
    Deno.statSync(url);
    return true;
  } catch {
    return false;
  }
}

Deno.test("batch reads a gzipped XES log (.xes.gz) as PETRA does", async () => {
  await withTempDir(async (dir) => {
    const folder = new URL("credit_approval_coloured/", CONFORMANCE);
    const description = await readConformanceDescription("credit_approval_coloured");
    const bundle = await compileTo(dir, "credit", description);
    const gz = `${dir}/traces.XES.gz`;
    const xes = await Deno.open(new URL("traces.xes", folder));
    await xes.readable.pipeThrough(new CompressionStream("gzip"))
      .pipeTo((await Deno.create(gz)).writable);
    const result = await batch([bundle, "--traces", gz]);
    assert.equal(result.code, 0, result.stderr);
    assertMatchesPetra(result.stdout, await Deno.readTextFile(new URL("score_xes.json", folder)));
  });
});
