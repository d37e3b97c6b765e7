/**
 * Dynamic batching over real sockets: `cli.ts serve` processes (the model in an ORT worker, on
 * the WASM runtime and on the native one) answer many concurrent mixed requests exactly as
 * they answer the same requests one at a time,
 * and concurrent HTTP requests do share ORT runs.
 *
 * @module
 */

import { WebWorker } from "../../adapter/deno/web_worker.ts";
import assert from "node:assert/strict";
import { loadBundle } from "../../../core/bundle/mod.ts";
import { compileBundle } from "../../../core/bundle/mod.ts";
import { parseModelDescription } from "../../../core/net/parse.ts";
import type { RunRecord } from "../../../core/runtime/mod.ts";
import { workerOrt } from "../../../core/runtime/worker/worker_ort.ts";
import { createApp } from "../../../server/app.ts";
import { listen } from "../../../adapter/deno/listen.ts";
import { compileTo } from "../batch/helpers.ts";
import { exchangeRequest, readExchanges } from "../../conformance/check_exchange.ts";
import { random } from "../../core/fixtures.ts";
import { CONFORMANCE, RECORDED_MODELS } from "../../conformance/fixtures.ts";
import { readConformanceDescription } from "../../server/models.ts";
import { startServerProcess, tempDir } from "./server_process.ts";
import { RUNTIME_RUNS } from "../../runtimes.ts";

const WORKER_ENTRY = new URL("../../../adapter/deno/ort_worker.ts", import.meta.url);

interface Answer {
  readonly status: number;
  readonly contentType: string | null;
  readonly body: string;
}

async function answer(request: Request): Promise<Answer> {
  const response = await fetch(request);
  return {
    status: response.status,
    contentType: response.headers.get("content-type"),
    body: await response.text(),
  };
}

/** Runs `tasks` with at most `limit` in flight; results in task order. */
async function concurrently<T>(tasks: (() => Promise<T>)[], limit: number): Promise<T[]> {
  const results: T[] = new Array(tasks.length);
  let next = 0;
  const lane = async () => {
    while (next < tasks.length) {
      const i = next++;
      results[i] = await tasks[i]!();
    }
  };
  await Promise.all(Array.from({ length: limit }, lane));
  return results;
}

for (const run of RUNTIME_RUNS) {
  for (const name of RECORDED_MODELS) {
    Deno.test(`cli.ts serve${run.label} answers concurrent mixed requests of ${name} byte for byte as one at a time`, async () => {
      const exchanges = (await readExchanges(new URL(`${name}/`, CONFORMANCE)))
        .filter((exchange) => exchange.method === "POST" && exchange.expect.compare !== "skip");
      const paths = new Set(exchanges.map((exchange) => exchange.path));
      for (const path of ["/forward", "/anomaly", "/counterfactual", "/sensitivity"]) {
        assert.ok(paths.has(path), `${name} has ${path} exchanges`);
      }
      await using dir = await tempDir();
      const bundle = await compileTo(dir.path, name, await readConformanceDescription(name));
      await using server = await startServerProcess([
        "run",
        ...run.deno,
        "-A",
        "cli.ts",
        "serve",
        bundle,
        "--port",
        "0",
        ...run.cli,
      ]);

      const alone: Answer[] = [];
      for (const exchange of exchanges) {
        alone.push(await answer(exchangeRequest(exchange, server.origin)!));
      }
      // Every request three times, shuffled, 48 in flight: runs mix operations and flags.
      const next = random(name.length);
      const order = [...exchanges.keys(), ...exchanges.keys(), ...exchanges.keys()]
        .map((i) => ({ i, key: next() }))
        .sort((a, b) => a.key - b.key)
        .map(({ i }) => i);
      const together = await concurrently(
        order.map((i) => () => answer(exchangeRequest(exchanges[i]!, server.origin)!)),
        48,
      );
      together.forEach((got, k) => {
        const exchange = exchanges[order[k]!]!;
        assert.deepEqual(
          got,
          alone[order[k]!],
          `#${exchange.i} ${exchange.path} (${exchange.note}) differs under concurrency`,
        );
      });
      assert.ok(alone.some((a) => a.status === 200) && alone.some((a) => a.status !== 200));

      server.kill("SIGTERM");
      assert.equal((await server.finished()).code, 0);
    });
  }
}

Deno.test("Concurrent HTTP requests share ORT runs of a worker session", async () => {
  const description = await readConformanceDescription("credit_approval_coloured");
  const bundle = await compileBundle(parseModelDescription(description), { savedAt: new Date(0) });
  const ort = workerOrt(() => new WebWorker(WORKER_ENTRY, { type: "module" }));
  await using model = await loadBundle(ort, {
    onnx: bundle.onnx,
    sidecar: bundle.sidecar,
    onnxName: "model.onnx",
    sidecarName: "model.onnx.meta.json",
  });
  const app = await createApp(model);
  const running = listen(app, { hostname: "127.0.0.1", port: 0 });
  const runs: RunRecord[] = [];
  const stop = model.session.observe((run) => runs.push(run));
  try {
    const bodies = Array.from({ length: 64 }, (_, i) =>
      [
        ["/forward", { input_marking: { p_submitted: 1 }, input_values: { p_submitted: 100 * i } }],
        ["/sensitivity", { input_marking: { p_submitted: 1 }, target_transition: "t_approve" }],
      ][i % 2]!);
    const answers = await Promise.all(bodies.map(async ([path, body]) => {
      const response = await fetch(`${running.url}${path}`, {
        method: "POST",
        body: JSON.stringify(body),
      });
      return { status: response.status, text: await response.text() };
    }));
    assert.deepEqual(answers.map((a) => a.status), bodies.map(() => 200), answers[0]!.text);
    const rows = runs.reduce((sum, run) => sum + run.rows, 0);
    assert.deepEqual(rows, 64, "one row per request");
    assert.ok(
      runs.length < 64 && Math.max(...runs.map((run) => run.rows)) > 1,
      `64 requests took ${runs.length} runs of ${runs.map((run) => run.rows).join(", ")} rows`,
    );
  } finally {
    stop();
    await running.stop();
  }
});

for (const run of RUNTIME_RUNS) {
  Deno.test(`cli.ts serve${run.label} --ort-in-process answers byte for byte as the worker does`, async () => {
    const name = "triage_softmax_ste";
    const exchanges = (await readExchanges(new URL(`${name}/`, CONFORMANCE)))
      .filter((exchange) => exchange.method === "POST" && exchange.expect.compare !== "skip");
    await using dir = await tempDir();
    const bundle = await compileTo(dir.path, name, await readConformanceDescription(name));
    const serve = ["run", ...run.deno, "-A", "cli.ts", "serve", bundle, "--port", "0", ...run.cli];
    await using worker = await startServerProcess(serve);
    await using local = await startServerProcess([...serve, "--ort-in-process"]);
    for (const exchange of exchanges) {
      assert.deepEqual(
        await answer(exchangeRequest(exchange, local.origin)!),
        await answer(exchangeRequest(exchange, worker.origin)!),
        `#${exchange.i} ${exchange.path}`,
      );
    }
    for (const server of [worker, local]) {
      server.kill("SIGTERM");
      assert.equal((await server.finished()).code, 0);
    }
  });
}
