/**
 * Edge cases of the compiler that random nets rarely draw: a net of places only, and the
 * `gradient: false` and `placeValues: false` variants that exist for benchmarks.
 *
 * @module
 */

import assert from "node:assert/strict";
import { compileModel } from "../../../core/compile/mod.ts";
import { parseModelDescription } from "../../../core/net/parse.ts";
import { decodeModel, encodeModel } from "../../../core/onnx/proto.ts";
import { ModelSession } from "../../../core/runtime/mod.ts";
import { ORT } from "../../ort.ts";
import { exampleModel } from "../fixtures.ts";

const placesOnly = parseModelDescription({
  format: "petri-net-model/1",
  net: { places: ["p_a", "p_b"], transitions: [], arcs: [], initial_marking: { p_b: 1 } },
  parameters: { arc_weights: [], transition_thresholds: {} },
});

Deno.test("compileModel() compiles a net without transitions", async () => {
  const { bytes } = compileModel(placesOnly);
  const ids = { places: placesOnly.net.places, transitions: [] };
  await using session = await ModelSession.create(ORT, bytes, ids);
  const [out] = await session.run([{
    marking: new Map([["p_a", 0.25]]),
    values: new Map([["p_b", 7]]),
  }], { withGradient: true });
  assert.deepEqual([...out!.places], [0.25, 1]);
  assert.deepEqual([...out!.placeValues!], [1, 7]);
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

Deno.test("compileModel() keeps an infinite input on its own arcs, as PETRA does", async () => {
  const twoPaths = parseModelDescription({
    format: "petri-net-model/1",
    net: {
      places: ["p1", "p2", "q1", "q2"],
      transitions: ["t1", "t2"],
      arcs: [
        { from: "p1", to: "t1" },
        { from: "p2", to: "t2" },
        { from: "t1", to: "q1" },
        { from: "t2", to: "q2" },
      ],
    },
    parameters: {
      arc_weights: [
        { from: "p1", to: "t1", weight: 1.2 },
        { from: "p2", to: "t2", weight: 0.9 },
        { from: "t1", to: "q1", weight: 1 },
        { from: "t2", to: "q2", weight: 1 },
      ],
      transition_thresholds: { t1: 0, t2: 0 },
    },
  });
  const ids = { places: twoPaths.net.places, transitions: twoPaths.net.transitions };
  await using session = await ModelSession.create(ORT, compileModel(twoPaths).bytes, ids);
  // 1e39 is a finite double but infinite in float32.
  const marking = new Map([["p1", 0.5], ["p2", 1e39]]);
  const [out] = await session.run([{ marking, target: new Map([["t1", 1]]) }], {
    withGradient: true,
  });
  const t1 = 1 / (1 + Math.exp(-0.6));
  assert.ok(Math.abs(out!.transitions[0]! - t1) < 1e-6, `t1 = ${out!.transitions[0]}`);
  assert.ok(Math.abs(out!.places[2]! - t1) < 1e-6, `q1 = ${out!.places[2]}`);
  assert.ok(Number.isFinite(out!.gradMarking![0]!), `d t1 / d p1 = ${out!.gradMarking![0]}`);
});

Deno.test("compileModel() without place_values writes the graph compilers wrote before it", async () => {
  // The bundle in tests/fixtures/pre_place_values/ was compiled before the output existed.
  const url = new URL(
    "../../fixtures/pre_place_values/credit_approval_coloured.onnx",
    import.meta.url,
  );
  const before = decodeModel(await Deno.readFile(url)).graph!;
  const model = await exampleModel("credit_approval_coloured");
  const now = decodeModel(compileModel(model, { placeValues: false }).bytes).graph!;
  const graphOnly = (graph: typeof now) =>
    encodeModel({ irVersion: 8, opsetImport: [{ domain: "", version: 17 }], graph });
  assert.deepEqual(graphOnly(now), graphOnly(before));
  const full = decodeModel(compileModel(model).bytes).graph!;
  assert.ok(full.output!.some((o) => o.name === "place_values"));
  assert.ok(!now.output!.some((o) => o.name === "place_values"));
});
