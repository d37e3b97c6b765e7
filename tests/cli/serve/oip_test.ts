/**
 * The Open Inference Protocol v2 on a real `cli.ts serve` process: health, server and model
 * metadata (the model's version and identity), the versioned routes, `infer` equal to `/forward`
 * row by row (a marking map ↔ `marking` plus a mask of 1 on the supplied places), `parameters`
 * accepted or refused, and every error in the protocol's `{"error": ...}` shape.
 *
 * @module
 */

import assert from "node:assert/strict";
import { startServerProcess } from "./server_process.ts";

const NAME = "credit_approval_coloured";
const SIDECAR = JSON.parse(
  await Deno.readTextFile(
    new URL(`../../../examples/${NAME}/${NAME}.onnx.meta.json`, import.meta.url),
  ),
);
/** The model's version: the first 12 hex digits of its ONNX file's SHA-256. */
const VERSION = SIDECAR.onnx_sha256.slice(0, 12);
const PLACES = ["p_approved", "p_declined", "p_submitted"];
const TRANSITIONS = ["t_approve", "t_decline"];

/** Requests of /forward: supplied markings and values by place id. */
const ROWS: { marking: Record<string, number>; values?: Record<string, number> }[] = [
  { marking: {} },
  { marking: { p_submitted: 1 }, values: { p_submitted: 5000 } },
  { marking: { p_submitted: 1 }, values: { p_submitted: 15000 } },
  { marking: { p_submitted: 0.3, p_approved: 0.5 } },
  { marking: { p_declined: 1 }, values: { p_submitted: 250, p_declined: 3 } },
];

function dense(rows: typeof ROWS, field: "marking" | "values") {
  const data: number[] = [];
  const mask: number[] = [];
  for (const row of rows) {
    for (const place of PLACES) {
      const value = row[field]?.[place];
      data.push(value ?? 0);
      mask.push(value === undefined ? 0 : 1);
    }
  }
  return { data, mask };
}

Deno.test("Open Inference Protocol v2 on cli.ts serve", async (t) => {
  await using server = await startServerProcess([
    "run",
    "-A",
    "cli.ts",
    "serve",
    "--port",
    "0",
    "--access-log",
    "off",
  ]);
  const get = async (path: string) => {
    const response = await fetch(`${server.origin}${path}`);
    return { status: response.status, body: await response.json() };
  };
  const post = async (path: string, body: unknown) => {
    const response = await fetch(`${server.origin}${path}`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: typeof body === "string" ? body : JSON.stringify(body),
    });
    return { status: response.status, body: await response.json() };
  };

  await t.step("health, server metadata and model metadata", async () => {
    assert.deepEqual(await get("/v2/health/live"), { status: 200, body: { live: true } });
    assert.deepEqual(await get("/v2/health/ready"), { status: 200, body: { ready: true } });
    assert.deepEqual(await get("/v2"), {
      status: 200,
      body: { name: "petri-serve", version: "0.1.0", extensions: [] },
    });
    assert.deepEqual(await get("/v2/"), await get("/v2"));
    const tensor = (name: string, width: number) => ({
      name,
      datatype: "FP32",
      shape: [-1, width],
    });
    assert.deepEqual(await get(`/v2/models/${NAME}`), {
      status: 200,
      body: {
        name: NAME,
        versions: [VERSION],
        platform: "onnxruntime_onnx",
        inputs: ["marking", "marking_mask", "values", "values_mask"].map((n) => tensor(n, 3)),
        outputs: [tensor("transitions", 2), tensor("places", 3)],
        parameters: {
          scenario: NAME,
          onnx_sha256: SIDECAR.onnx_sha256,
          saved_at: SIDECAR.saved_at,
        },
      },
    });
    assert.deepEqual(await get(`/v2/models/${NAME}/ready`), {
      status: 200,
      body: { name: NAME, ready: true },
    });
    // The advertised version has its own routes, with the same answers.
    const versioned = `/v2/models/${NAME}/versions/${VERSION}`;
    assert.deepEqual(await get(versioned), await get(`/v2/models/${NAME}`));
    assert.deepEqual(await get(`${versioned}/ready`), await get(`/v2/models/${NAME}/ready`));
    assert.deepEqual(await get(`/v2/models/${NAME}/versions/0.1.0`), {
      status: 404,
      body: {
        error: `Unknown version "0.1.0" of model "${NAME}": it has version "${VERSION}"`,
      },
    });
    // The column order the protocol documents is /schema's.
    assert.deepEqual((await get("/schema")).body.places, PLACES);
  });

  await t.step("infer equals /forward for several rows", async () => {
    const marking = dense(ROWS, "marking");
    const values = dense(ROWS, "values");
    const shape = [ROWS.length, 3];
    const answer = await post(`/v2/models/${NAME}/infer`, {
      id: "req-1",
      inputs: [
        { name: "marking", datatype: "FP32", shape, data: marking.data },
        { name: "marking_mask", datatype: "FP32", shape, data: marking.mask },
        { name: "values", datatype: "FP32", shape, data: values.data },
        { name: "values_mask", datatype: "FP32", shape, data: values.mask },
      ],
    });
    assert.equal(answer.status, 200, JSON.stringify(answer.body));
    assert.equal(answer.body.model_name, NAME);
    assert.equal(answer.body.model_version, VERSION);
    assert.equal(answer.body.id, "req-1");
    const [transitions, places] = answer.body.outputs;
    assert.deepEqual(
      [transitions.name, transitions.datatype, transitions.shape],
      ["transitions", "FP32", [ROWS.length, 2]],
    );
    assert.deepEqual([places.name, places.datatype, places.shape], [
      "places",
      "FP32",
      [ROWS.length, 3],
    ]);
    for (const [r, row] of ROWS.entries()) {
      const forward = await post("/forward", {
        input_marking: row.marking,
        ...(row.values ? { input_values: row.values } : {}),
      });
      assert.equal(forward.status, 200);
      assert.deepEqual(
        transitions.data.slice(r * 2, r * 2 + 2),
        TRANSITIONS.map((id) => forward.body.transition_activations[id]),
        `row ${r} transitions`,
      );
      assert.deepEqual(
        places.data.slice(r * 3, r * 3 + 3),
        PLACES.map((id) => forward.body.place_activations[id]),
        `row ${r} places`,
      );
    }
  });

  await t.step("absent inputs are zero; nested data; outputs picks one", async () => {
    const answer = await post(`/v2/models/${NAME}/infer`, {
      inputs: [{ name: "marking", datatype: "FP32", shape: [1, 3], data: [[0, 0, 1]] }],
      outputs: [{ name: "places" }],
    });
    assert.equal(answer.status, 200, JSON.stringify(answer.body));
    const empty = await post("/forward", { input_marking: {} });
    assert.deepEqual(answer.body.outputs, [{
      name: "places",
      datatype: "FP32",
      shape: [1, 3],
      data: PLACES.map((id) => empty.body.place_activations[id]),
    }]);
  });

  await t.step("the versioned infer route; parameters passed or refused", async () => {
    const inputs = [{ name: "marking", datatype: "FP32", shape: [1, 3], data: [0, 0, 1] }];
    const plain = await post(`/v2/models/${NAME}/infer`, { inputs });
    const versioned = await post(`/v2/models/${NAME}/versions/${VERSION}/infer`, { inputs });
    assert.deepEqual(versioned, plain);
    // Parameters of the request, a tensor and an output: values are strings, numbers, booleans.
    const withParameters = await post(`/v2/models/${NAME}/infer`, {
      parameters: { priority: 1, tag: "nightly", sequence_start: false },
      inputs: [{ ...inputs[0], parameters: { note: "x" } }],
      outputs: [{ name: "transitions", parameters: { binary_data: false } }, { name: "places" }],
    });
    assert.deepEqual(withParameters, plain, "parameters without an effect are accepted");
    const refused: [unknown, RegExp][] = [
      [{ parameters: { binary_data_output: true } }, /binary_data_output is not supported/],
      [{ parameters: { classification: 2 } }, /classification is not supported/],
      [{ parameters: { nested: { a: 1 } } }, /parameters\.nested must be a string, a number or/],
      [{ parameters: [1] }, /parameters must be an object/],
      [
        { outputs: [{ name: "places", parameters: { binary_data: true } }] },
        /outputs\[0\]\.parameters\.binary_data is not supported/,
      ],
    ];
    for (const [extra, message] of refused) {
      const answer = await post(`/v2/models/${NAME}/infer`, { inputs, ...extra as object });
      assert.equal(answer.status, 400, JSON.stringify(extra));
      assert.match(answer.body.error, message);
    }
    const tensorParameter = await post(`/v2/models/${NAME}/infer`, {
      inputs: [{ ...inputs[0], parameters: { binary_data_size: 12 } }],
    });
    assert.match(tensorParameter.body.error, /inputs\[0\]\.parameters\.binary_data_size is not/);
  });

  await t.step("errors are {error} with clear messages", async () => {
    const infer = `/v2/models/${NAME}/infer`;
    const input = (extra: Record<string, unknown>) => ({
      inputs: [{ name: "marking", datatype: "FP32", shape: [1, 3], data: [1, 0, 0], ...extra }],
    });
    const cases: [string, unknown, number, RegExp][] = [
      [
        "wrong width",
        input({ shape: [1, 4], data: [1, 0, 0, 0] }),
        400,
        /shape \[1,4\], expected \[B, 3\]/,
      ],
      ["wrong count", input({ shape: [2, 3] }), 400, /must hold 2 × 3 = 6 numbers in data, got 3/],
      ["datatype", input({ datatype: "INT64" }), 400, /datatype "INT64", not FP32/],
      [
        "unknown input",
        input({ name: "target" }),
        400,
        /Unknown input "target": the inputs are marking/,
      ],
      ["not a number", input({ data: [1, "x", 0] }), 400, /data\[1\] is "x", not a number/],
      [
        "mask",
        { inputs: [{ name: "values_mask", datatype: "FP32", shape: [1, 3], data: [0.5, 0, 0] }] },
        400,
        /a mask holds 0 or 1/,
      ],
      [
        "rows differ",
        {
          inputs: [input({}).inputs[0], {
            name: "values",
            datatype: "FP32",
            shape: [2, 3],
            data: [0, 0, 0, 0, 0, 0],
          }],
        },
        400,
        /has 2 rows, the other inputs 1/,
      ],
      ["twice", { inputs: [input({}).inputs[0], input({}).inputs[0]] }, 400, /given twice/],
      ["no inputs", { inputs: [] }, 400, /at least one of marking/],
      [
        "unknown output",
        { ...input({}), outputs: [{ name: "grad_marking" }] },
        400,
        /Unknown output "grad_marking"/,
      ],
      ["not JSON", "{", 400, /The body is not JSON/],
    ];
    for (const [what, body, status, message] of cases) {
      const answer = await post(infer, body);
      assert.equal(answer.status, status, what);
      assert.deepEqual(Object.keys(answer.body), ["error"], what);
      assert.match(answer.body.error, message, what);
    }
    const unknown = await post("/v2/models/nope/infer", input({}));
    assert.deepEqual(unknown, {
      status: 404,
      body: { error: `Unknown model "nope": this server serves "${NAME}"` },
    });
    assert.equal((await get("/v2/models/nope")).status, 404);
    assert.deepEqual(await get("/v2/nothing"), { status: 404, body: { error: "Not Found" } });
    const method = await get(infer);
    assert.equal(method.status, 405);
    assert.match(method.body.error, /Method GET is not allowed/);
    const big = await post(infer, {
      inputs: [{
        name: "marking",
        datatype: "FP32",
        shape: [1, 3],
        data: new Array(600_000).fill(0),
      }],
    });
    assert.equal(big.status, 413);
    assert.match(big.body.error, /larger than/);
  });

  server.kill("SIGTERM");
  assert.equal((await server.finished()).code, 0);
});
