import assert from "node:assert/strict";
import * as z from "zod";
import { createSchemas } from "../../core/schemas/mod.ts";
import { describeRequest, type FormField } from "../../web/form_fields.ts";

const { requests } = createSchemas(z);

function shape(fields: readonly FormField[]) {
  return fields.map((f) => ({
    name: f.name,
    kind: f.kind,
    required: f.required,
    ...(f.defaultValue === undefined ? {} : { defaultValue: f.defaultValue }),
  }));
}

Deno.test("describeRequest() reads the forward schema", () => {
  const form = describeRequest(requests.forward);
  assert.deepEqual(shape(form.fields), [
    { name: "input_marking", kind: "idMap", required: true },
    { name: "input_values", kind: "idMap", required: false },
  ]);
  const values = form.fields[1]!;
  assert.ok(values.kind === "idMap" && values.nullable);
  assert.match(values.description, /value channel/);
  assert.deepEqual(form.example, {
    input_marking: { p_submitted: 1 },
    input_values: { p_submitted: 5000 },
  });
});

Deno.test("describeRequest() reads the anomaly schema's events and attributes", () => {
  const { fields } = describeRequest(requests.anomaly);
  assert.deepEqual(shape(fields), [
    { name: "input_marking", kind: "idMap", required: true },
    { name: "input_values", kind: "idMap", required: false },
    { name: "events", kind: "list", required: true },
    { name: "attributes", kind: "json", required: false, defaultValue: {} },
  ]);
  const events = fields[2]!;
  assert.ok(events.kind === "list");
  assert.equal(events.itemField, "name");
  assert.match(events.itemDescription, /transition labels/);
});

Deno.test("describeRequest() reads the counterfactual schema's choices, range and bound", () => {
  const { fields } = describeRequest(requests.counterfactual);
  assert.deepEqual(shape(fields), [
    { name: "input_marking", kind: "idMap", required: true },
    { name: "input_values", kind: "idMap", required: false },
    { name: "flip_place", kind: "id", required: true },
    { name: "target_transition", kind: "id", required: true },
    { name: "flip_channel", kind: "choice", required: false, defaultValue: "marking" },
    { name: "search_range", kind: "numbers", required: false, defaultValue: [0, 1] },
    { name: "tolerance", kind: "number", required: false, defaultValue: 0.001 },
  ]);
  const [, , place, transition, channel, range, tolerance] = fields;
  assert.ok(place?.kind === "id" && place.domain === "place");
  assert.ok(transition?.kind === "id" && transition.domain === "transition");
  assert.ok(channel?.kind === "choice");
  assert.deepEqual(channel.options, ["marking", "value"]);
  assert.ok(range?.kind === "numbers" && range.count === 2);
  assert.ok(tolerance?.kind === "number");
  assert.deepEqual(tolerance.min, { value: 0, inclusive: false });
});

Deno.test("describeRequest() reads the sensitivity schema", () => {
  assert.deepEqual(shape(describeRequest(requests.sensitivity).fields), [
    { name: "input_marking", kind: "idMap", required: true },
    { name: "input_values", kind: "idMap", required: false },
    { name: "target_transition", kind: "id", required: true },
  ]);
});

Deno.test("describeRequest() refuses a schema that is not an object", () => {
  assert.throws(
    () => describeRequest(z.string() as never),
    /Cannot build a form: the schema is a string, not an object/,
  );
});
