/**
 * `counterfactual()` on small nets whose answers are known by hand: PETRA's XOR reference
 * trace, a straight-through jump and a tolerance below float32 resolution (both found as a
 * decision flip), a value channel the model never reads, and arguments the operation refuses.
 *
 * @module
 */

import assert from "node:assert/strict";
import type { Model } from "../../../core/bundle.ts";
import { counterfactual } from "../../../core/ops/counterfactual.ts";
import { RequestError } from "../../../core/ops/errors.ts";
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

/** The largest float32 below a positive float32 `x`. */
function float32Below(x: number): number {
  const bits = new Float32Array([x]);
  const int = new Int32Array(bits.buffer);
  int[0]! -= 1;
  return bits[0]!;
}
