/**
 * Replays PETRA's `score` command: for every model of tests/fixtures/conformance, `cli.ts batch`
 * (run with `--allow-read` only) on its traces.json, traces.csv and traces.xes must print
 * PETRA's score.json, score_csv.json and score_xes.json: the same text line by line once the
 * numbers are blanked out (layout, key order, attributes, error entries), and every number
 * within 1e-5.
 *
 * @module
 */

import assert from "node:assert/strict";
import {
  assertMatchesPetra,
  assertSummary,
  batch,
  compileTo,
  CONFORMANCE,
  withTempDir,
} from "./helpers.ts";

const PAIRS: readonly [string, string][] = [
  ["traces.json", "score.json"],
  ["traces.csv", "score_csv.json"],
  ["traces.xes", "score_xes.json"],
];

const models = [...Deno.readDirSync(CONFORMANCE)]
  .filter((entry) => entry.isDirectory)
  .map((entry) => entry.name)
  .filter((name) => existsSync(new URL(`${name}/score.json`, CONFORMANCE)))
  .sort();

function existsSync(url: URL): boolean {
  try {
    Deno.statSync(url);
    return true;
  } catch {
    return false;
  }
}

Deno.test("batch reproduces PETRA's score output for every conformance model", async (t) => {
  assert.ok(models.length >= 5, `found ${models.length} conformance models`);
  await withTempDir(async (dir) => {
    for (const model of models) {
      const folder = new URL(`${model}/`, CONFORMANCE);
      const description = JSON.parse(await Deno.readTextFile(new URL("model.json", folder)));
      const bundle = await compileTo(dir, model, description);
      for (const [traceFile, scoreFile] of PAIRS) {
        const traces = new URL(traceFile, folder);
        // Every conformance model ships all three formats (conformance/README.md).
        assert.ok(existsSync(traces), `${model}/${traceFile} is missing`);
        await t.step(`${model}/${traceFile}`, async () => {
          const result = await batch([bundle, "--traces", traces.pathname]);
          assert.equal(result.code, 0, result.stderr);
          const expected = await Deno.readTextFile(new URL(scoreFile, folder));
          assertMatchesPetra(result.stdout, expected);
          const entries = JSON.parse(expected) as { error?: string }[];
          const errors = entries.filter((e) => e.error !== undefined).length;
          assertSummary(result.stderr, entries.length, errors);
        });
      }
    }
  });
});

Deno.test("batch reads a gzipped XES log (.xes.gz) as PETRA does", async () => {
  await withTempDir(async (dir) => {
    const folder = new URL("credit_approval_coloured/", CONFORMANCE);
    const description = JSON.parse(await Deno.readTextFile(new URL("model.json", folder)));
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
