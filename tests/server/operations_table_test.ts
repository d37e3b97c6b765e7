/**
 * The operations table (`core/ops/operations.ts`) drives every face: each row is routed,
 * documented in `/openapi.json`, parsed by its schema and given a playground form; and an
 * operation added as one new file plus one table row is served, documented and gets a form
 * with no other change.
 *
 * @module
 */

import assert from "node:assert/strict";
import * as z from "zod";
import { OPERATIONS } from "../../core/ops/operations.ts";
import { createSchemas } from "../../core/schemas/mod.ts";
import { createApp } from "../../server/app.ts";
import { describeRequest } from "../../web/form_fields.ts";
import { get, post } from "./http.ts";
import { openModel, xorDescription } from "./models.ts";
import { markingTotalOperation } from "./toy_operation.ts";

Deno.test("every row of the operations table is routed, documented and has a form", async () => {
  await using model = await openModel(xorDescription());
  const app = await createApp(model);
  const { body: doc } = await get(app, "/openapi.json");
  const schemas = createSchemas(z);
  for (const row of OPERATIONS) {
    // Routed: an empty object reaches the operation's schema (422 naming a missing field).
    const answer = await post(app, row.path, {});
    assert.equal(answer.status, 422, row.path);
    assert.deepEqual(answer.body.detail[0].loc.slice(0, 1), ["body"]);
    assert.equal((await get(app, row.path)).status, 405, `GET ${row.path}`);
    // Documented, with the row's own words.
    const documented = doc.paths[row.path].post;
    assert.equal(documented.operationId, row.name);
    assert.equal(documented.summary, row.summary);
    assert.equal(
      documented.responses["400"].content["application/json"].example.detail,
      row.badRequest.detail,
    );
    // A form, read from the same schema.
    const form = describeRequest(schemas.requests[row.name]);
    assert.equal(form.fields[0]?.name, "input_marking", row.name);
  }
  assert.deepEqual(
    // The operations' POST routes; the Open Inference Protocol's infer route and `/batch` (a
    // whole log, streamed) are not operations.
    Object.keys(doc.paths).filter((path) =>
      doc.paths[path].post && !path.startsWith("/v2/") && path !== "/batch"
    ),
    OPERATIONS.map((row) => row.path),
  );
});

Deno.test("an operation added as one file and one table row is served, documented and has a form", async () => {
  await using model = await openModel(xorDescription());
  const operations = [...OPERATIONS, markingTotalOperation];
  const app = await createApp(model, { operations });

  const ok = await post(app, "/marking_total", { input_marking: { p_in: 0.25, p_a: 0.5 } });
  assert.deepEqual([ok.status, ok.body], [200, { total: 0.75, n_supplied: 2 }]);
  const bad = await post(app, "/marking_total", { input_marking: { p_x: 1 } });
  assert.deepEqual([bad.status, bad.body], [
    400,
    { detail: "input_marking has ids that are not in the net's place set: 'p_x'" },
  ]);
  const malformed = await post(app, "/marking_total", { input_marking: { p_in: "1" } });
  assert.equal(malformed.status, 422);
  assert.deepEqual(malformed.body.detail[0].loc, ["body", "input_marking", "p_in"]);
  // The built-in operations still answer beside it.
  assert.equal((await post(app, "/forward", { input_marking: { p_in: 1 } })).status, 200);

  const { body: doc } = await get(app, "/openapi.json");
  const documented = doc.paths["/marking_total"].post;
  assert.equal(documented.operationId, "marking_total");
  assert.deepEqual(documented.requestBody.content["application/json"].schema, {
    $ref: "#/components/schemas/MarkingTotalRequest",
  });
  assert.ok(doc.components.schemas.MarkingTotalResponse);

  const schemas = createSchemas(z, operations);
  const form = describeRequest(schemas.requests["marking_total"]!);
  assert.deepEqual(form.fields.map((f) => f.name), ["input_marking"]);
  assert.deepEqual(form.example, { input_marking: { p_in: 1 } });

  // The default app does not know it.
  const plain = await createApp(model);
  assert.equal((await post(plain, "/marking_total", { input_marking: {} })).status, 404);
});
