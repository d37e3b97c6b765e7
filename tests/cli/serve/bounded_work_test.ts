/**
 * Every request's work is bounded, on real `cli.ts serve` and `adapter/deno/main.ts` processes:
 * counterfactual searches on ranges narrower than float32 spacing around the triage model's
 * straight-through jump (which once ran forever) are answered, and the model stops running once
 * they are; the per-request limits answer 413 naming their flag; their flags and variables are
 * checked at start-up; `/v2` infer refuses numbers FP32 cannot hold. Each wait has a bound
 * (`AbortSignal.timeout`) that proves termination; none measures speed.
 *
 * @module
 */

import assert from "node:assert/strict";
import { compileTo } from "../batch/helpers.ts";
import { readConformanceDescription } from "../../conformance/fixtures.ts";
import { runDeno } from "../../run_deno.ts";
import { startServerProcess, tempDir } from "./server_process.ts";

const SERVE = ["run", "-A", "cli.ts", "serve", "--port", "0", "--access-log", "off"];

/** POSTs JSON (or text) within `ms`; the status and the decoded answer. */
async function post(origin: string, path: string, body: unknown, ms = 30_000) {
  const response = await fetch(`${origin}${path}`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: typeof body === "string" ? body : JSON.stringify(body),
    signal: AbortSignal.timeout(ms),
  });
  return { status: response.status, body: await response.json() };
}

/** Rows the model has run, from `/metrics`. */
async function modelRows(origin: string): Promise<number> {
  const text = await (await fetch(`${origin}/metrics`, { signal: AbortSignal.timeout(30_000) }))
    .text();
  let rows = 0;
  for (const [, value] of text.matchAll(/^petri_serve_ort_run_rows_sum\{[^}]*\} (\S+)$/gm)) {
    rows += Number(value);
  }
  return rows;
}

Deno.test("cli.ts serve answers counterfactuals narrower than float32 around a jump", async () => {
  await using dir = await tempDir();
  const name = "triage_softmax_ste";
  const bundle = await compileTo(dir.path, name, await readConformanceDescription(name));
  await using server = await startServerProcess([...SERVE, bundle]);
  const marking = { p_escalate_req: 0, p_ticket: 1, p_triaged: 0.92 };
  const activation = async (x: number) =>
    (await post(server.origin, "/forward", {
      input_marking: { ...marking, p_escalate_req: x },
    })).body.transition_activations.t_escalate as number;

  // t_escalate steps from 0 to 1: find the step by bisection down to float64.
  let [below, above] = [0, 1];
  assert.deepEqual([await activation(below), await activation(above)], [0, 1]);
  for (;;) {
    const middle = (below + above) / 2;
    if (middle === below || middle === above) break;
    if (await activation(middle) > 0.5) above = middle;
    else below = middle;
  }

  // 21 ranges 2e-11 wide around the step, from either side, all at once.
  const requests = [0, 0.95].flatMap((start) =>
    Array.from({ length: 21 }, (_, k) => {
      const centre = below + (k - 10) * 1e-12;
      return {
        input_marking: { ...marking, p_escalate_req: start },
        flip_place: "p_escalate_req",
        target_transition: "t_escalate",
        search_range: [centre - 1e-11, centre + 1e-11],
        tolerance: 1e-6,
      };
    })
  );
  const before = await modelRows(server.origin);
  const answers = await Promise.all(
    requests.map((request) => post(server.origin, "/counterfactual", request)),
  );
  let found = 0;
  answers.forEach(({ status, body }, i) => {
    const request = requests[i]!;
    assert.equal(status, 200, JSON.stringify(body));
    if (!body.found) return;
    found++;
    // A decision flip, reported on the far side of the step, inside the range.
    const start = request.input_marking.p_escalate_req;
    assert.equal(body.original_activation, start > 0.5 ? 1 : 0);
    assert.equal(body.counterfactual_activation, start > 0.5 ? 0 : 1);
    const [lo, hi] = request.search_range as [number, number];
    assert.ok(lo <= body.counterfactual_input && body.counterfactual_input <= hi);
  });
  assert.ok(found >= 30, `${found} of ${answers.length} found`);

  // Each search ran at most 255 rows, and nothing runs on once all are answered.
  const after = await modelRows(server.origin);
  assert.ok(after - before <= requests.length * 255, `${after - before} rows`);
  await new Promise((resolve) => setTimeout(resolve, 300));
  assert.equal(await modelRows(server.origin), after, "the model kept running");
});

Deno.test("cli.ts serve's per-request limits answer 413 naming their flag", async () => {
  await using server = await startServerProcess([
    ...SERVE,
    "--max-trace-events",
    "3",
    "--max-request-rows",
    "300",
    "--max-response-bytes",
    "20000",
  ]);
  const events = (n: number) => Array.from({ length: n }, () => ({ name: "approve loan" }));
  assert.equal(
    (await post(server.origin, "/anomaly", { input_marking: {}, events: events(3) }))
      .status,
    200,
  );
  const trace = await post(server.origin, "/anomaly", { input_marking: {}, events: events(4) });
  assert.equal(trace.status, 413);
  assert.match(trace.body.detail, /4 events, more than the limit of 3 \(serve --max-trace-events/);

  const infer = (rows: number, value = 0.5) => ({
    inputs: [{
      name: "marking",
      datatype: "FP32",
      shape: [rows, 3],
      data: Array(rows * 3).fill(value),
    }],
  });
  const path = "/v2/models/credit_approval_coloured/infer";
  assert.equal((await post(server.origin, path, infer(100))).status, 200);
  const rows = await post(server.origin, path, infer(301));
  assert.equal(rows.status, 413);
  assert.match(
    rows.body.error,
    /301 model rows, more than the limit of 300 \(serve --max-request-rows/,
  );
  // 300 rows fit the row limit, but their answer could not fit 20000 bytes.
  const answer = await post(server.origin, path, infer(300));
  assert.equal(answer.status, 413);
  assert.match(
    answer.body.error,
    /more than the limit of 20000 bytes \(serve --max-response-bytes/,
  );

  // And /v2 infer's 422 for a number FP32 cannot hold, over HTTP.
  const infinite = await post(
    server.origin,
    path,
    '{"inputs":[{"name":"marking","datatype":"FP32","shape":[1,3],"data":[0,1e999,0]}]}',
  );
  assert.equal(infinite.status, 422);
  assert.match(infinite.body.error, /^Input marking data\[1\] is not a finite number/);
});

Deno.test("cli.ts serve refuses limit flags out of range", async () => {
  const cases: [string[], RegExp][] = [
    [["--max-request-rows", "254"], /--max-request-rows must be an integer from 255 to/],
    [["--max-trace-events", "0"], /--max-trace-events must be an integer from 1 to/],
    [["--max-response-bytes", "lots"], /--max-response-bytes must be an integer from 1 to/],
  ];
  for (const [flags, message] of cases) {
    const { code, stderr } = await runDeno(["run", "-A", "cli.ts", "serve", ...flags]);
    assert.equal(code, 2, stderr);
    assert.match(stderr, message);
  }
});

Deno.test("adapter/deno/main.ts takes the limits from PETRI_SERVE_* variables", async () => {
  const MAIN = ["serve", "--allow-read", "--allow-env", "--allow-net", "adapter/deno/main.ts"];
  const ADDRESS = { DENO_SERVE_ADDRESS: "tcp:127.0.0.1:0" };
  {
    await using server = await startServerProcess(MAIN, {
      env: { ...ADDRESS, PETRI_SERVE_MAX_TRACE_EVENTS: "2" },
    });
    const events = [{ name: "a" }, { name: "b" }, { name: "c" }];
    const trace = await post(server.origin, "/anomaly", { input_marking: {}, events });
    assert.equal(trace.status, 413);
    assert.match(trace.body.detail, /more than the limit of 2 .*PETRI_SERVE_MAX_TRACE_EVENTS/);
  }
  const { code, stderr } = await runDeno(MAIN, {
    env: { ...ADDRESS, PETRI_SERVE_MAX_REQUEST_ROWS: "12" },
  });
  assert.equal(code, 2, stderr);
  assert.match(stderr, /PETRI_SERVE_MAX_REQUEST_ROWS must be an integer of at least 255, got '12'/);
});
