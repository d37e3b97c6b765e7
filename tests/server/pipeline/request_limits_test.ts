/**
 * The per-request limits of `createApp` (no socket): events per `/anomaly` trace, model rows per
 * request (a `/v2` infer's rows, any operation's runs), and the estimated size of a `/v2` infer
 * answer, each refused with 413 naming the limit and its flag, and each admitting at its
 * default the largest request that fits the default 1 MiB body. Also `/v2` infer's 422 for
 * numbers FP32 cannot hold, in its inputs or in its outputs: no FP32 tensor holds null.
 *
 * @module
 */

import assert from "node:assert/strict";
import { createApp } from "../../../server/app.ts";
import { DEFAULT_MAX_BODY_BYTES } from "../../../server/app.ts";
import {
  DEFAULT_MAX_REQUEST_ROWS,
  DEFAULT_MAX_TRACE_EVENTS,
  FLOAT32_JSON_BYTES,
} from "../../../server/pipeline/request_limits.ts";
import { post } from "../http.ts";
import { loadConformanceModel } from "../models.ts";

const INFER = "/v2/models/m/infer";

/** An infer body of `rows` rows of the marking only (a mask of 1 where `mask` is given). */
function inferBody(rows: number, places: number, value = "0", mask?: string): string {
  const data = (x: string) => `[${Array(rows * places).fill(x).join(",")}]`;
  const tensor = (name: string, x: string) =>
    `{"name":"${name}","datatype":"FP32","shape":[${rows},${places}],"data":${data(x)}}`;
  const inputs = [tensor("marking", value), ...(mask ? [tensor("marking_mask", mask)] : [])];
  return `{"inputs":[${inputs.join(",")}]}`;
}

/** An anomaly body of `count` events named `name`. */
function anomalyBody(count: number, name = ""): string {
  const events = Array(count).fill(`{"name":${JSON.stringify(name)}}`).join(",");
  return `{"input_marking":{},"events":[${events}]}`;
}

Deno.test("/anomaly refuses a trace over --max-trace-events with 413, and admits one at it", async () => {
  await using model = await loadConformanceModel("credit_approval_coloured");
  const app = await createApp(model, { maxTraceEvents: 10 });
  const at = await post(app, "/anomaly", anomalyBody(10, "approve loan"));
  assert.equal(at.status, 200);
  const over = await post(app, "/anomaly", anomalyBody(11, "approve loan"));
  assert.deepEqual([over.status, over.body], [413, {
    detail: "The trace has 11 events, more than the limit of 10 " +
      "(serve --max-trace-events, PETRI_SERVE_MAX_TRACE_EVENTS)",
  }]);
  // Counted before the events are validated: a bad event past the limit changes nothing.
  const bad = await post(app, "/anomaly", anomalyBody(11, "x").replace('"x"', "5e999"));
  assert.equal(bad.status, 413);
});

Deno.test("the default event limit admits the most events a 1 MiB body holds", async () => {
  await using model = await loadConformanceModel("credit_approval_coloured");
  const app = await createApp(model);
  // The smallest event is {"name":""}: 12 bytes with its comma.
  let count = Math.floor(DEFAULT_MAX_BODY_BYTES / 12);
  while (anomalyBody(count).length > DEFAULT_MAX_BODY_BYTES) count--;
  assert.ok(count < DEFAULT_MAX_TRACE_EVENTS && count > 87_000, `${count} events`);
  const full = await post(app, "/anomaly", anomalyBody(count));
  assert.equal(full.status, 200, JSON.stringify(full.body));
  // A 17.5k-event trace of real names, as a flood might send.
  const real = await post(app, "/anomaly", anomalyBody(17_500, "approve loan"));
  assert.equal(real.status, 200);
  assert.ok(real.body.trace_score >= 0);
});

Deno.test("/v2 infer refuses rows over --max-request-rows with 413 before reading data", async () => {
  await using model = await loadConformanceModel("credit_approval_coloured");
  const app = await createApp(model, { modelName: "m", maxRequestRows: 1000 });
  assert.equal((await post(app, INFER, inferBody(1000, 3))).status, 200);
  const over = await post(app, INFER, inferBody(1001, 3));
  assert.equal(over.status, 413);
  assert.deepEqual(over.body, {
    error: "The request needs 1001 model rows, more than the limit of 1000 " +
      "(serve --max-request-rows, PETRI_SERVE_MAX_REQUEST_ROWS): send the rows in several requests",
  });
  // Refused on the shape alone: data that would be a 400 is not even looked at.
  const shapeOnly =
    '{"inputs":[{"name":"marking","datatype":"FP32","shape":[5000,3],"data":"nope"}]}';
  assert.equal((await post(app, INFER, shapeOnly)).status, 413);
});

Deno.test("the row limit holds for every operation's runs", async () => {
  await using model = await loadConformanceModel("credit_approval_coloured");
  const request = {
    input_marking: { p_submitted: 1 },
    flip_place: "p_submitted",
    target_transition: "t_approve",
  };
  // A counterfactual's first run is the base point and the 129-point grid: 130 rows.
  const small = await createApp(model, { maxRequestRows: 100 });
  const refused = await post(small, "/counterfactual", request);
  assert.equal(refused.status, 413);
  assert.match(refused.body.detail, /needs 130 model rows, more than the limit of 100/);
  // 255 rows admit every search (core/ops/counterfactual.ts MAX_SEARCH_ROWS).
  const enough = await createApp(model, { maxRequestRows: 255 });
  assert.equal((await post(enough, "/counterfactual", request)).status, 200);
});

Deno.test("/v2 infer refuses an answer over --max-response-bytes, estimated from above", async () => {
  await using model = await loadConformanceModel("credit_approval_coloured");
  const body = inferBody(2000, 3, "0.37", "1");
  const free = await createApp(model, { modelName: "m" });
  const response = await free.fetch(
    new Request(`http://localhost${INFER}`, {
      method: "POST",
      body,
    }),
  );
  assert.equal(response.status, 200);
  const size = (await response.text()).length;
  // 2000 rows of 5 numbers: the estimate is at most 26 bytes per number and the framing.
  assert.ok(size < 2000 * 5 * FLOAT32_JSON_BYTES, `${size} bytes`);

  // A limit one byte below the real answer is refused: the estimate never undershoots.
  const tight = await createApp(model, { modelName: "m", maxResponseBytes: size - 1 });
  const refused = await post(tight, INFER, body);
  assert.equal(refused.status, 413);
  assert.match(
    refused.body.error,
    new RegExp(
      `^The answer could take \\d+ bytes \\(2000 rows of 5 numbers, up to 26 bytes each\\), ` +
        `more than the limit of ${size - 1} bytes \\(serve --max-response-bytes, ` +
        "PETRI_SERVE_MAX_RESPONSE_BYTES\\): send fewer rows per request, or ask for fewer outputs$",
    ),
  );
  // Asking for one output halves the estimate: 2000 rows of 2 numbers fit.
  const fewer = JSON.parse(body);
  fewer.outputs = [{ name: "transitions" }];
  const one = await post(tight, INFER, fewer);
  assert.equal(one.status, 200);
  assert.deepEqual(one.body.outputs.map((o: { name: string }) => o.name), ["transitions"]);
});

Deno.test("the default limits admit the largest infer a 1 MiB body holds", async () => {
  await using model = await loadConformanceModel("credit_approval_coloured");
  const app = await createApp(model, { modelName: "m" });
  // The most rows: one-character numbers, marking only (3 places, "0," per number).
  let rows = Math.floor(DEFAULT_MAX_BODY_BYTES / 6);
  while (inferBody(rows, 3).length > DEFAULT_MAX_BODY_BYTES) rows--;
  assert.ok(rows > 170_000 && rows < DEFAULT_MAX_REQUEST_ROWS, `${rows} rows`);
  const full = await post(app, INFER, inferBody(rows, 3));
  assert.equal(full.status, 200, JSON.stringify(full.body).slice(0, 300));
  assert.deepEqual(full.body.outputs[0].shape, [rows, 2]);
  // The 60k-row infer (a marking and its mask, about 0.7 MB).
  const typical = await post(app, INFER, inferBody(60_000, 3, "1", "1"));
  assert.equal(typical.status, 200);
  assert.equal(typical.body.outputs[1].data.length, 60_000 * 3);
});

Deno.test("/v2 infer answers 422 for numbers FP32 cannot hold, naming the input and index", async () => {
  await using model = await loadConformanceModel("credit_approval_coloured");
  const app = await createApp(model, { modelName: "m" });
  const infinite = "not a finite number (a JSON number such as 1e999 overflows to Infinity)";
  const cases: [string, string, string][] = [
    ["1e999", "1", `Input marking data[0] is ${infinite}`],
    ["-1e999", "1", `Input marking data[0] is ${infinite}`],
    [
      "1e300",
      "1",
      "Input marking data[0] is 1e+300, beyond the FP32 range of ±3.4028234663852886e38",
    ],
    // Refused even where the mask leaves it unused, and in a mask.
    ["1e999", "0", `Input marking data[0] is ${infinite}`],
    ["0", "1e999", `Input marking_mask data[0] is ${infinite}`],
  ];
  for (const [value, mask, error] of cases) {
    const answer = await post(app, INFER, inferBody(1, 3, value, mask));
    assert.deepEqual([answer.status, answer.body], [422, { error }], `${value} / ${mask}`);
  }
  // The largest float32 and numbers that round to it are fine.
  const edge = await post(app, INFER, inferBody(1, 3, "3.4028235e38", "1"));
  assert.equal(edge.status, 200);
  for (const output of edge.body.outputs) {
    for (const x of output.data) assert.equal(typeof x, "number", `${output.name}: ${x}`);
  }
  // /forward refuses the same overflowing literal (D9's 422).
  const forward = await post(app, "/forward", '{"input_marking":{"p_submitted":1e999}}');
  assert.equal(forward.status, 422);
});

Deno.test("/v2 infer never writes null into an FP32 tensor: a non-finite output is a 422", async () => {
  await using model = await loadConformanceModel("triage_softmax_ste");
  const app = await createApp(model, { modelName: "m" });
  const P = model.net.places.length;
  // Finite FP32 inputs so large that the model's float32 arithmetic overflows.
  const answer = await post(app, INFER, inferBody(2, P, "3.4e38", "1"));
  assert.equal(answer.status, 422, JSON.stringify(answer.body).slice(0, 300));
  assert.match(
    answer.body.error,
    /^Output (transitions|places) is (NaN|-?Infinity) at row 0, column "[a-z_]+": the model's float32 arithmetic overflows on that row's inputs/,
  );
  // The same row at ordinary scale is answered in numbers.
  const ordinary = await post(app, INFER, inferBody(2, P, "0.5", "1"));
  assert.equal(ordinary.status, 200);
  for (const output of ordinary.body.outputs) {
    assert.ok(output.data.every((x: unknown) => typeof x === "number"), output.name);
  }
});
