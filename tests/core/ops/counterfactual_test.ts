/**
 * `counterfactual()` on small nets whose answers are known by hand: PETRA's XOR reference
 * trace, a straight-through jump and a tolerance below float32 resolution (both found as a
 * decision flip), a value channel the model never reads, the original input read from the
 * graph's outputs (D4), a bundle compiled before `place_values`, and arguments the operation
 * refuses.
 *
 * @module
 */

import assert from "node:assert/strict";
import { loadBundle, type Model } from "../../../core/bundle/mod.ts";
import { parseModelDescription } from "../../../core/net/parse.ts";
import { counterfactual } from "../../../core/ops/counterfactual.ts";
import { RequestError } from "../../../core/ops/errors.ts";
import { evaluate } from "../../oracle/evaluate.ts";
import { ORT } from "../../ort.ts";
import { openModel, xorDescription } from "../../server/models.ts";

/** SEMANTICS.md §9's XOR fixture, with a chosen firing rule. */
function xor(firing: "sigmoid" | "ste"): Promise<Model> {
  const description = xorDescription();
  description.module.firing = firing;
  return openModel(description);
}

const base = { input_marking: new Map([["p_in", 0]]), flip_place: "p_in" } as const;

Deno.test("counterfactual() finds PETRA's XOR crossing within tolerance", async () => {
  await using model = await xor("sigmoid");
  const answer = await counterfactual(model, { ...base, target_transition: "t_a" });
  assert.ok(answer.found);
  // PETRA: 0.2998046875 with activation 0.4996093511581421 (SEMANTICS.md §4.1).
  assert.ok(Math.abs(answer.counterfactual_input - 0.2998046875) < 0.01);
  assert.ok(Math.abs(answer.counterfactual_activation - 0.5) < 1e-3);
  assert.equal(answer.original_input, 0);
  assert.ok(Math.abs(answer.original_activation - 0.08317269384860992) < 1e-6);
  assert.equal(answer.target_label, "Path A");
});

Deno.test("counterfactual() prefers the crossing nearest the original input", async () => {
  await using model = await xor("sigmoid");
  // From p_in = 0.9 over [-5, 5] the only crossing is 0.3, whichever side the search starts.
  const answer = await counterfactual(model, {
    ...base,
    input_marking: new Map([["p_in", 0.9]]),
    target_transition: "t_a",
    search_range: [-5, 5],
  });
  assert.ok(answer.found);
  assert.ok(Math.abs(answer.counterfactual_input - 0.3) < 1e-3);
});

Deno.test("counterfactual() finds a straight-through jump as a decision flip", async () => {
  await using model = await xor("ste");
  // t_a fires (1) iff p_in > θa = 0.3; no input gives an activation near 0.5.
  for (const [start, range] of [[0, [0, 1]], [0.9, [-5, 5]]] as const) {
    const answer = await counterfactual(model, {
      ...base,
      input_marking: new Map([["p_in", start]]),
      target_transition: "t_a",
      search_range: range,
    });
    assert.ok(answer.found, `from ${start}`);
    const width = range[1] - range[0];
    assert.ok(
      Math.abs(answer.counterfactual_input - 0.3) <= width * 1e-6,
      `${answer.counterfactual_input} is not within ${width * 1e-6} of 0.3`,
    );
    // Reported on the far side of 0.5 from the original activation: the decision has flipped.
    assert.equal(answer.original_activation, start > 0.3 ? 1 : 0);
    assert.equal(answer.counterfactual_activation, start > 0.3 ? 0 : 1);
  }
});

Deno.test("counterfactual() with a tolerance below float32 resolution reports the boundary", async () => {
  await using model = await xor("sigmoid");
  // Slope of t_a at 0.3: sharpness · w · σ'(0) = 8 · 1 · 0.25 = 2.
  const wide = await counterfactual(model, {
    ...base,
    target_transition: "t_a",
    tolerance: 1e-12,
  });
  assert.ok(wide.found);
  assert.ok(wide.counterfactual_activation > 0.5, "across 0.5 from the original 0.083");
  assert.ok(Math.abs(wide.counterfactual_activation - 0.5) <= 2 * 1e-6 + 1e-7);
  assert.ok(Math.abs(wide.counterfactual_input - 0.3) <= 1e-6);

  // A range narrow enough that the bracket closes below float32 spacing: the answer's
  // activation is 0.5 itself or the first float32 past it, one float32 step (2^-24) at most,
  // and the float32 input just below the answer's gives a lower activation.
  const narrow = await counterfactual(model, {
    ...base,
    target_transition: "t_a",
    tolerance: 1e-12,
    search_range: [0.2999, 0.3001],
  });
  assert.ok(narrow.found);
  const above = narrow.counterfactual_activation - 0.5;
  assert.ok(above >= 0 && above <= 2 ** -24, `activation ${narrow.counterfactual_activation}`);
  const neighbour = float32Below(Math.fround(narrow.counterfactual_input));
  const [row] = await model.run([{ marking: new Map([["p_in", neighbour]]) }], {
    withGradient: false,
  });
  assert.ok(row!.transitions[0]! < 0.5, `activation ${row!.transitions[0]} at ${neighbour}`);
});

Deno.test("counterfactual() finds nothing on a value channel that no guard reads", async () => {
  await using model = await xor("sigmoid");
  const answer = await counterfactual(model, {
    ...base,
    target_transition: "t_a",
    flip_channel: "value",
    search_range: [0, 10],
  });
  // The value of p_in feeds no guard, so varying it changes no activation (D5: no 500 either).
  assert.deepEqual(answer, { found: false, target_transition: "t_a" });
});

Deno.test("counterfactual() refuses a reversed range and a tolerance that is not > 0", async () => {
  await using model = await xor("sigmoid");
  await assert.rejects(
    counterfactual(model, { ...base, target_transition: "t_a", search_range: [1, 0] }),
    (error: unknown) => error instanceof RequestError && error.detail.includes("[1, 0]"),
  );
  await assert.rejects(
    counterfactual(model, { ...base, target_transition: "t_a", tolerance: 0 }),
    (error: unknown) => error instanceof RequestError && error.detail.includes("tolerance"),
  );
});

/**
 * p_in -> t1 -> p_mid -> t2 -> p_out in one time step, where t2's guard reads p_mid's value
 * (the supplied one, else 0, at step 1). t1's arc into p_mid produces 2.5, so p_mid's value at
 * the end of the pass is 0.8·a(t1)·2.5 / (0.8·a(t1) + 1e-6), just under 2.5.
 */
const CHAIN = {
  format: "petri-net-model/1",
  net: {
    places: ["p_in", "p_mid", "p_out"],
    transitions: ["t1", "t2"],
    arcs: [
      { from: "p_in", to: "t1" },
      { from: "t1", to: "p_mid" },
      { from: "p_mid", to: "t2" },
      { from: "t2", to: "p_out" },
    ],
    structural_guards: { t2: { place: "p_mid", op: ">=", value: 1 } },
    arc_output_values: [{ transition: "t1", place: "p_mid", value: 2.5 }],
  },
  module: { sharpness: 8, num_steps: 1, firing: "sigmoid", routing: "independent" },
  parameters: {
    arc_weights: [
      { from: "p_in", to: "t1", weight: 1 },
      { from: "t1", to: "p_mid", weight: 0.8 },
      { from: "p_mid", to: "t2", weight: 1 },
      { from: "t2", to: "p_out", weight: 1 },
    ],
    transition_thresholds: { t1: 0.3, t2: -0.5 },
    guard_thresholds: { t2: 1 },
  },
};

Deno.test("counterfactual() reads the original input the graph computed (D4)", async () => {
  await using model = await openModel(CHAIN);
  const marking = new Map([["p_in", 1]]); // clamped, so a(t1) = sigmoid(8 · 0.7)
  const request = {
    input_marking: marking,
    flip_place: "p_mid",
    target_transition: "t2",
    search_range: [0, 4],
  } as const;
  const [row] = await model.run([{ marking }], { withGradient: true });
  const mid = model.net.places.indexOf("p_mid");

  const value = await counterfactual(model, { ...request, flip_channel: "value" });
  assert.ok(value.found);
  // Exactly the graph's place_values output, which is the float64 oracle's within float32.
  assert.equal(value.original_input, row!.placeValues![mid]);
  const oracle = evaluate(parseModelDescription(CHAIN), { marking, values: new Map() });
  assert.ok(Math.abs(value.original_input - oracle.values.get("p_mid")!) < 1e-6);
  assert.ok(value.original_input > 2.49 && value.original_input < 2.5);

  // A source place left out takes its default (the `places` output); a supplied value is
  // echoed as given.
  const source = await counterfactual(model, {
    ...request,
    flip_place: "p_in",
    target_transition: "t1",
    input_marking: new Map(),
    flip_channel: "marking",
  });
  assert.ok(source.found);
  assert.equal(source.original_input, 0);
  const supplied = await counterfactual(model, {
    ...request,
    flip_channel: "value",
    input_values: new Map([["p_mid", 3.3]]),
  });
  assert.ok(supplied.found);
  assert.equal(supplied.original_input, 3.3);
});

Deno.test("counterfactual() on a bundle compiled before place_values says to recompile", async () => {
  const dir = new URL("../../fixtures/pre_place_values/", import.meta.url);
  await using model = await loadBundle(ORT, {
    onnx: await Deno.readFile(new URL("credit_approval_coloured.onnx", dir)),
    sidecar: await Deno.readTextFile(new URL("credit_approval_coloured.onnx.meta.json", dir)),
    onnxName: "credit_approval_coloured.onnx",
    sidecarName: "credit_approval_coloured.onnx.meta.json",
  });
  const request = {
    input_marking: new Map([["p_submitted", 1]]),
    flip_place: "p_submitted",
    target_transition: "t_approve",
    flip_channel: "value",
    search_range: [0, 10000],
  } as const;
  await assert.rejects(
    counterfactual(model, request),
    (error: unknown) =>
      error instanceof RequestError && /predates the place_values output/.test(error.detail) &&
      /recompile the bundle/.test(error.detail) && error.detail.includes("'p_submitted'"),
  );
  // Everything else works as before: the marking channel, and the value channel when supplied.
  const supplied = await counterfactual(model, {
    ...request,
    input_values: new Map([["p_submitted", 5000]]),
  });
  assert.ok(supplied.found);
  assert.equal(supplied.original_input, 5000);
  assert.ok(Math.abs(supplied.counterfactual_input - 1356.7) < 10);
});

/** The largest float32 below a positive float32 `x`. */
function float32Below(x: number): number {
  const bits = new Float32Array([x]);
  const int = new Int32Array(bits.buffer);
  int[0]! -= 1;
  return bits[0]!;
}
