/**
 * Tests of the spec resolution (docs/batch.md) and of the batch `error` texts.
 *
 * @module
 */

import assert from "node:assert/strict";
import type { InputSpec } from "../../../core/net/types.ts";
import {
  resolveSpec,
  resolveTraceInputs,
  SpecError,
  specErrorEntry,
} from "../../../core/event_log/specs.ts";

function trace(attributes: Record<string, string>) {
  return { attributes: new Map(Object.entries(attributes)), events: [] };
}

function specError(run: () => unknown): SpecError {
  try {
    run();
  } catch (error) {
    if (error instanceof SpecError) return error;
    throw error;
  }
  throw new Error("expected a SpecError");
}

Deno.test("resolveSpec() takes constants and parses attributes as Python floats", () => {
  const spec: InputSpec = new Map([
    ["p_ticket", { constant: 1 }],
    ["p_triaged", { attribute: "severity" }],
    ["p_big", { attribute: "amount" }],
    ["p_inf", { attribute: "limit" }],
  ]);
  const got = resolveSpec(
    spec,
    trace({ severity: " 0.92\n", amount: "1_000", limit: "-Infinity", other: "x" }),
    "input_marking",
  );
  assert.deepEqual([...got], [["p_ticket", 1], ["p_triaged", 0.92], ["p_big", 1000], [
    "p_inf",
    -Infinity,
  ]]);
});

Deno.test("resolveSpec() gives PETRA's KeyError text for a missing attribute", () => {
  const spec: InputSpec = new Map([["p_submitted", { attribute: "amount" }]]);
  const error = specError(() => resolveSpec(spec, trace({ unrelated: "1" }), "input_values"));
  assert.equal(error.kind, "missing");
  assert.equal(
    error.message,
    "trace missing attribute 'amount' required by input_values for place 'p_submitted'",
  );
  assert.equal(
    specErrorEntry(error, 38),
    `missing attribute: "trace missing attribute 'amount' required by input_values for place 'p_submitted'"`,
  );
});

Deno.test("specErrorEntry() quotes the KeyError text as Python's str(KeyError) does", () => {
  // CPython: str(KeyError(msg)) == repr(msg); a message with both quote kinds keeps '…'.
  const spec: InputSpec = new Map([[`p "x"`, { attribute: "it's" }]]);
  const error = specError(() => resolveSpec(spec, trace({}), "input_marking"));
  assert.equal(
    error.message,
    `trace missing attribute "it's" required by input_marking for place 'p "x"'`,
  );
  assert.equal(
    specErrorEntry(error, 0),
    `missing attribute: 'trace missing attribute "it\\'s" required by input_marking for place \\'p "x"\\''`,
  );
});

Deno.test("resolveSpec() rejects text Python's float() rejects, naming attribute and text", async (t) => {
  const spec: InputSpec = new Map([["p_submitted", { attribute: "amount" }]]);
  for (const text of ["High", "", "0x10", "1__0", "five thousand"]) {
    await t.step(JSON.stringify(text), () => {
      const error = specError(() => resolveSpec(spec, trace({ amount: text }), "input_values"));
      assert.equal(error.kind, "not-a-number");
      assert.equal(error.attribute, "amount");
      assert.equal(error.text, text);
    });
  }
  const error = specError(() => resolveSpec(spec, trace({ amount: "High" }), "input_values"));
  assert.equal(
    error.message,
    "attribute 'amount' is not a number: 'High' (required by input_values for place 'p_submitted')",
  );
  assert.equal(
    specErrorEntry(error, 3),
    "trace 3: attribute 'amount' is not a number: 'High' (required by input_values for place 'p_submitted')",
  );
});

Deno.test("resolveSpec() treats ids like __proto__ as ordinary keys", () => {
  const spec: InputSpec = new Map([["__proto__", { attribute: "constructor" }]]);
  const got = resolveSpec(spec, trace({ constructor: "0.5" }), "input_marking");
  assert.deepEqual([...got], [["__proto__", 0.5]]);
});

Deno.test("resolveTraceInputs() skips an empty values spec and reports the marking first", () => {
  const marking: InputSpec = new Map([["p_a", { attribute: "a" }]]);
  const values: InputSpec = new Map([["p_a", { attribute: "b" }]]);
  assert.equal(resolveTraceInputs(marking, new Map(), trace({ a: "1" })).values, undefined);
  const both = resolveTraceInputs(marking, values, trace({ a: "1", b: "2" }));
  assert.deepEqual([...both.marking], [["p_a", 1]]);
  assert.deepEqual([...both.values!], [["p_a", 2]]);
  const error = specError(() => resolveTraceInputs(marking, values, trace({})));
  assert.equal(error.section, "input_marking");
});
