/**
 * PETRA's own `.pt` bundles served as they are: for every model of tests/fixtures/conformance,
 * `cli.ts serve MODEL.pt` (a real process) answers every recorded exchange by its
 * `expect.compare` rule, `cli.ts batch MODEL.pt` prints PETRA's score files for the three
 * trace formats, and `inspect` says it read a `.pt`. The Deno Deploy entry takes a `.pt` from
 * `PETRI_SERVE_BUNDLE`, and a directory holding one `.pt` serves too.
 *
 * @module
 */

import assert from "node:assert/strict";
import { assertBatchMatchesScore } from "../../cli/batch/helpers.ts";
import {
  exchangeContext,
  readExchanges,
  replayExchanges,
} from "../../conformance/check_exchange.ts";
import { runDeno } from "../../run_deno.ts";
import { startServerProcess } from "../../cli/serve/server_process.ts";
import {
  CONFORMANCE,
  readConformanceDescription,
  RECORDED_MODELS,
  SCORE_FILES,
} from "../../conformance/fixtures.ts";

const SERVE = ["run", "-A", "cli.ts", "serve"];

for (const name of RECORDED_MODELS) {
  Deno.test(`cli.ts serve ${name}/model.pt answers every recorded exchange`, async (t) => {
    const folder = new URL(`${name}/`, CONFORMANCE);
    const context = exchangeContext(await readConformanceDescription(name));
    const exchanges = await readExchanges(folder);
    assert.ok(exchanges.length > 0);
    // One model is served through its directory (it holds model.pt as its only bundle).
    const bundle = name === "rest_serving" ? folder.pathname : new URL("model.pt", folder).pathname;
    await using server = await startServerProcess([...SERVE, bundle, "--port", "0"]);
    assert.match(server.firstLine, /^serving \S+ on http:\/\/127\.0\.0\.1:\d+/);
    await replayExchanges(t, exchanges, server.origin, context);
    server.kill("SIGTERM");
    assert.equal((await server.finished()).code, 0);
  });
}

Deno.test("cli.ts batch MODEL.pt prints PETRA's score output for every model", async (t) => {
  for (const name of RECORDED_MODELS) {
    const folder = new URL(`${name}/`, CONFORMANCE);
    const pt = new URL("model.pt", folder).pathname;
    for (const [traceFile, scoreFile] of SCORE_FILES) {
      await t.step(`${name}/${traceFile}`, async () => {
        await assertBatchMatchesScore(pt, folder, traceFile, scoreFile);
      });
    }
  }
});

Deno.test("cli.ts inspect says which kind of bundle it read", async () => {
  const pt = await runDeno(
    ["run", "-A", "cli.ts", "inspect", new URL("paint_shop/model.pt", CONFORMANCE).pathname],
  );
  assert.equal(pt.code, 0, pt.stderr);
  assert.match(
    pt.stdout,
    /^kind +PETRA \.pt \(read without running it, compiled to ONNX in memory\)$/m,
  );
  assert.match(pt.stdout, /^scenario +paint_shop$/m);
  assert.match(pt.stdout, /^durations +1 /m);
  const onnx = await runDeno(["run", "-A", "cli.ts", "inspect", "examples/rest_serving"]);
  assert.equal(onnx.code, 0, onnx.stderr);
  assert.match(onnx.stdout, /^kind +petri-serve \.onnx$/m);
});

Deno.test("adapter/deno/main.ts serves the .pt named by PETRI_SERVE_BUNDLE", async () => {
  const pt = new URL("triage_softmax_ste/model.pt", CONFORMANCE).pathname;
  await using server = await startServerProcess(
    ["serve", "--allow-read", "--allow-env", "--allow-net", "adapter/deno/main.ts"],
    { env: { DENO_SERVE_ADDRESS: "tcp:127.0.0.1:0", PETRI_SERVE_BUNDLE: pt } },
  );
  const schema = await (await fetch(`${server.origin}/schema`)).json();
  assert.equal(schema.places.length, 9);
  assert.ok(schema.places.includes("p_triaged"));
  server.kill("SIGTERM");
  await server.finished();
});
