/**
 * Edge cases of the compiler that random nets rarely draw: a net of places only, and the
 * `gradient: false` variant that exists for benchmarks.
 *
 * @module
 */

import assert from "node:assert/strict";
import { compileModel } from "../../core/compile/mod.ts";
import { parseModelDescription } from "../../core/net/parse.ts";
import { decodeModel } from "../../core/onnx/proto.ts";
import { ModelSession } from "../../core/runtime.ts";
import { ORT } from "../ort.ts";

const placesOnly = parseModelDescription({
  format: "petri-net-model/1",
  net: { places: ["p_a", "p_b"], transitions: [], arcs: [], initial_marking: { p_b: 1 } },
  parameters: { arc_weights: [], transition_thresholds: {} },
});

Deno.test("compileModel() compiles a net without transitions", async () => {
  const { bytes } = compileModel(placesOnly);
  const ids = { places: placesOnly.net.places, transitions: [] };
  await using session = await ModelSession.create(ORT, bytes, ids);
  const [out] = await session.run([{ marking: new Map([["p_a", 0.25]]) }], {
    withGradient: true,
  });
  assert.deepEqual([...out!.places], [0.25, 1]);
  assert.equal(out!.transitions.length, 0);
  assert.deepEqual([...out!.gradMarking!], [0, 0]);
});

Deno.test("compileModel() without gradient emits no If node and no gradient outputs", () => {
  const { bytes, gradientNodes } = compileModel(placesOnly, { gradient: false });
  const graph = decodeModel(bytes).graph!;
  assert.equal(gradientNodes, 0);
  assert.ok(!graph.node!.some((n) => n.opType === "If"));
  assert.deepEqual(graph.output!.map((o) => o.name), ["transitions", "places"]);
});
