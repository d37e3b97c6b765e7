/**
 * `core/schemas/mod.ts`: request parsing into the operations' types (Maps for id-keyed fields,
 * defaults) and FastAPI-shaped issues.
 *
 * @module
 */

import { deepEqual, equal, ok } from "node:assert/strict";
import * as z from "zod";
import {
  createSchemas,
  loadSchemas,
  type ObjectSchema,
  type ValidationIssue,
} from "../../../core/schemas/mod.ts";

const schemas = createSchemas(z);

function issuesOf(kind: Parameters<typeof schemas.parseRequest>[0], json: unknown) {
  const result = schemas.parseRequest(kind, json);
  if (result.success) throw new Error(`parsed: ${JSON.stringify(json)}`);
  return result.issues;
}

Deno.test("parseRequest() builds Maps from the body's own entries, __proto__ included", () => {
  const json = JSON.parse(
    '{"input_marking": {"__proto__": 0.5, "constructor": 1, "p": 0}, ' +
      '"input_values": {"__proto__": 2}}',
  );
  const result = schemas.parseRequest("forward", json);
  ok(result.success);
  ok(result.data.input_marking instanceof Map);
  deepEqual([...result.data.input_marking], [["__proto__", 0.5], ["constructor", 1], ["p", 0]]);
  deepEqual([...(result.data.input_values ?? [])], [["__proto__", 2]]);
});

Deno.test("parseRequest() validates a __proto__ value that zod leaves out", () => {
  const issues = issuesOf("forward", JSON.parse('{"input_marking": {"__proto__": "0.5"}}'));
  deepEqual(issues, [{
    type: "float_type",
    loc: ["body", "input_marking", "__proto__"],
    msg: "Input should be a valid number",
    input: "0.5",
  }]);
  const nested = issuesOf(
    "anomaly",
    JSON.parse('{"input_marking": {}, "events": [{"name": "a", "attributes": {"__proto__": {}}}]}'),
  );
  deepEqual(nested.map((i) => i.loc), [["body", "events", 0, "attributes", "__proto__"]]);
});

Deno.test("parseRequest() applies the documented defaults (docs/http_api.md)", () => {
  const counterfactual = schemas.parseRequest("counterfactual", {
    input_marking: {},
    flip_place: "p",
    target_transition: "t",
  });
  ok(counterfactual.success);
  equal(counterfactual.data.flip_channel, "marking");
  deepEqual(counterfactual.data.search_range, [0, 1]);
  equal(counterfactual.data.tolerance, 1e-3);
  equal(counterfactual.data.input_values, undefined);

  const anomaly = schemas.parseRequest("anomaly", {
    input_marking: {},
    input_values: null,
    events: [{ name: "a" }, { name: "b", attributes: { n: 5000, ok: true, s: "x" } }],
  });
  ok(anomaly.success);
  equal(anomaly.data.input_values, null);
  deepEqual([...(anomaly.data.attributes ?? [])], []);
  deepEqual([...(anomaly.data.events[0]?.attributes ?? ["unset"])], []);
  deepEqual([...(anomaly.data.events[1]?.attributes ?? [])], [["n", "5000"], ["ok", "true"], [
    "s",
    "x",
  ]]);
});

Deno.test("parseRequest() ignores extra top-level fields", () => {
  const result = schemas.parseRequest("sensitivity", {
    input_marking: {},
    target_transition: "t",
    extra: 1,
  });
  ok(result.success);
  ok(!("extra" in result.data));
});

Deno.test("parseRequest() reports issues as FastAPI does", () => {
  const cases: [string, unknown, ValidationIssue[]][] = [
    ["forward", {}, [{
      type: "missing",
      loc: ["body", "input_marking"],
      msg: "Field required",
      input: {},
    }]],
    ["forward", [], [{
      type: "model_attributes_type",
      loc: ["body"],
      msg: "Input should be a valid dictionary or object to extract fields from",
      input: [],
    }]],
    ["counterfactual", {
      input_marking: {},
      flip_place: "p",
      target_transition: "t",
      flip_channel: "both",
    }, [{
      type: "literal_error",
      loc: ["body", "flip_channel"],
      msg: "Input should be 'marking' or 'value'",
      input: "both",
      ctx: { expected: "'marking' or 'value'" },
    }]],
    ["counterfactual", {
      input_marking: {},
      flip_place: "p",
      target_transition: "t",
      search_range: [0, 1, 2],
    }, [{
      type: "too_long",
      loc: ["body", "search_range"],
      msg: "Tuple should have at most 2 items after validation, not 3",
      input: [0, 1, 2],
      ctx: { field_type: "Tuple", max_length: 2, actual_length: 3 },
    }]],
    ["counterfactual", {
      input_marking: {},
      flip_place: "p",
      target_transition: "t",
      search_range: [],
    }, [
      { type: "missing", loc: ["body", "search_range", 0], msg: "Field required", input: [] },
      { type: "missing", loc: ["body", "search_range", 1], msg: "Field required", input: [] },
    ]],
    ["counterfactual", {
      input_marking: {},
      flip_place: "p",
      target_transition: "t",
      search_range: [1, 0],
    }, [{
      type: "value_error",
      loc: ["body", "search_range"],
      msg: "Value error, search_range must be [lo, hi] with lo < hi",
      input: [1, 0],
      ctx: { error: "search_range must be [lo, hi] with lo < hi" },
    }]],
    ["counterfactual", {
      input_marking: {},
      flip_place: "p",
      target_transition: "t",
      tolerance: 0,
    }, [{
      type: "greater_than",
      loc: ["body", "tolerance"],
      msg: "Input should be greater than 0",
      input: 0,
      ctx: { gt: 0 },
    }]],
    ["anomaly", { input_marking: {}, events: [{ name: "a", attributes: { k: null } }] }, [{
      type: "union_type",
      loc: ["body", "events", 0, "attributes", "k"],
      msg: "Input should be a valid string, a valid number or a valid boolean",
      input: null,
    }]],
    ["forward", { input_marking: { p: Infinity } }, [{
      type: "finite_number",
      loc: ["body", "input_marking", "p"],
      msg: "Input should be a finite number",
      input: Infinity,
    }]],
  ];
  for (const [kind, json, expected] of cases) {
    deepEqual(issuesOf(kind as "forward", json), expected, JSON.stringify(json));
  }
});

Deno.test("loadSchemas() imports zod with the given importer", async () => {
  let calls = 0;
  const loaded = await loadSchemas(() => {
    calls++;
    return import("zod");
  });
  equal(calls, 1);
  ok(loaded.parseRequest("forward", { input_marking: {} }).success);
  // the schemas are built once per zod module
  equal(loaded.requests.forward, schemas.requests.forward);
});

Deno.test("the schemas describe every request field", () => {
  const requests: Record<string, ObjectSchema> = { ...schemas.requests };
  for (const [name, schema] of Object.entries(requests)) {
    ok(schema.description, `${name} has a description`);
    for (const [field, property] of Object.entries(schema.shape)) {
      ok(property.description, `${name}.${field} has a description`);
    }
  }
});
