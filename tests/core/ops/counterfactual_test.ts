/**
 * `counterfactual()` on small nets whose answers are known by hand: PETRA's XOR reference
 * trace, a straight-through jump (no point within tolerance: not found), a value channel the
 * model never reads, and arguments the operation refuses itself.
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

Deno.test("counterfactual() reports a straight-through jump as not found", async () => {
  await using model = await xor("ste");
  const answer = await counterfactual(model, { ...base, target_transition: "t_a" });
  // The activation jumps from 0 to 1 at 0.3: no input gives an activation within 1e-3 of 0.5.
  assert.deepEqual(answer, { found: false, target_transition: "t_a" });
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
