/**
 * Tests of the oracle itself: hand-computed numbers from docs/semantics.md, PETRA's recorded
 * `/forward` and `/sensitivity` answers in `tests/fixtures/conformance`, and property tests on random
 * nets (reverse-mode gradients against central finite differences; float32 emulation against
 * float64; feature coverage of the generator).
 *
 * @module
 */

import assert from "node:assert/strict";
import { CONFORMANCE, RECORDED_MODELS } from "../conformance/fixtures.ts";
import { parseModelDescription } from "../../core/net/parse.ts";
import { arcKey, compareIds, type GuardOp, type PetriModel } from "../../core/net/types.ts";
import {
  type Arithmetic,
  evaluate,
  evaluateWith,
  float32,
  float64,
  longestPathDepths,
  type RequestRow,
  sigmoid64,
} from "./evaluate.ts";
import { forwardModeDerivative, gradient } from "./gradient.ts";
import {
  describeNet,
  describeRow,
  numericalAmbiguity,
  type RandomCase,
  randomCase,
} from "./random_net.ts";

function close(actual: number, expected: number, atol: number, rtol = 0): boolean {
  return Math.abs(actual - expected) <= atol + rtol * Math.abs(expected);
}

function assertClose(actual: number, expected: number, atol: number, message: string, rtol = 0) {
  assert.ok(
    close(actual, expected, atol, rtol),
    `${message}: got ${actual}, expected ${expected} (atol ${atol}, rtol ${rtol})`,
  );
}

const row = (
  marking: Record<string, number> = {},
  values: Record<string, number> = {},
): RequestRow => ({
  marking: new Map(Object.entries(marking)),
  values: new Map(Object.entries(values)),
});

/** A compact description of a small hand-written model. */
interface Sketch {
  places: string[];
  transitions: string[];
  /** [from, to, weight] */
  arcs: [string, string, number][];
  thresholds?: Record<string, number>;
  inhibitors?: [string, string][];
  initial?: string[];
  guards?: Record<string, { place: string; op: GuardOp; value: number; theta: number }>;
  rates?: Record<string, number>;
  durations?: Record<string, number>;
  outputs?: [string, string, number][];
  sharpness?: number;
  numSteps?: number;
  firing?: "sigmoid" | "ste";
  routing?: "independent" | "softmax";
}

function sketch(s: Sketch): PetriModel {
  const guards = Object.entries(s.guards ?? {});
  return {
    net: {
      places: [...s.places].sort(compareIds),
      transitions: [...s.transitions].sort(compareIds),
      arcs: s.arcs.map(([from, to]) => ({ from, to })),
      inhibitorArcs: (s.inhibitors ?? []).map(([place, transition]) => ({ place, transition })),
      initialMarking: new Map((s.initial ?? []).map((p) => [p, 1])),
      labels: new Map(),
      silentTransitions: [],
      structuralGuards: new Map(
        guards.map(([t, g]) => [t, { place: g.place, op: g.op, value: g.value }]),
      ),
      rates: new Map(Object.entries(s.rates ?? {})),
      durations: new Map(Object.entries(s.durations ?? {})),
      arcOutputValues: (s.outputs ?? []).map(([transition, place, value]) => ({
        transition,
        place,
        value,
      })),
    },
    module: {
      sharpness: s.sharpness ?? 1,
      numSteps: s.numSteps ?? 0,
      firing: s.firing ?? "sigmoid",
      routing: s.routing ?? "independent",
    },
    parameters: {
      arcWeights: new Map(s.arcs.map(([from, to, w]) => [arcKey(from, to), w])),
      transitionThresholds: new Map(s.transitions.map((t) => [t, s.thresholds?.[t] ?? 0])),
      guardThresholds: new Map(guards.map(([t, g]) => [t, g.theta])),
    },
    inputMarkingSpec: new Map(),
    inputValuesSpec: new Map(),
  };
}

/** PETRA's test_rest.py fixture. */
const XOR = sketch({
  places: ["p_in", "p_a", "p_b"],
  transitions: ["t_a", "t_b"],
  arcs: [["p_in", "t_a", 1], ["p_in", "t_b", 1], ["t_a", "p_a", 1], ["t_b", "p_b", 1]],
  thresholds: { t_a: 0.3, t_b: 0.7 },
  sharpness: 8,
});

Deno.test("evaluate() reproduces the XOR fixture of PETRA's test_rest.py", async (t) => {
  await t.step("forward at p_in 0.5", () => {
    const out = evaluate(XOR, row({ p_in: 0.5 }));
    assertClose(out.transitions.get("t_a")!, 0.8320183753967285, 1e-6, "t_a");
    assertClose(out.transitions.get("t_b")!, 0.16798162460327148, 1e-6, "t_b");
    assertClose(out.places.get("p_a")!, 0.8320183753967285, 1e-6, "p_a");
    assert.equal(out.places.get("p_in"), 0.5);
  });
  await t.step("sensitivity at p_in 0.3", () => {
    const g = gradient(XOR, row({ p_in: 0.3 }), new Map([["t_a", 1]]));
    assertClose(g.transitions.get("t_a")!, 0.5, 1e-12, "base_activation");
    assertClose(g.gradMarking.get("p_in")!, 2.0, 1e-12, "d t_a / d p_in");
    assert.equal(g.gradMarking.get("p_a"), 0);
    assert.deepEqual([...g.gradValues.values()], [0, 0, 0]);
  });
  await t.step("counterfactual endpoints of §4.1", () => {
    assertClose(
      evaluate(XOR, row({ p_in: 0 })).transitions.get("t_a")!,
      0.08317269384860992,
      1e-6,
      "0",
    );
    assertClose(
      evaluate(XOR, row({ p_in: 1 })).transitions.get("t_a")!,
      0.9963157773017883,
      1e-6,
      "1",
    );
  });
});

Deno.test("evaluate() follows the fine print of acyclic mode (docs/semantics.md)", async (t) => {
  await t.step("an unclamped source place uses 1/0 by initial marking, value 1", () => {
    const m = sketch({
      places: ["p0", "p1", "q"],
      transitions: ["t"],
      arcs: [["p0", "t", 1], ["p1", "t", 1], ["t", "q", 2]],
      initial: ["p0"],
      thresholds: { t: 0.25 },
    });
    const out = evaluate(m, row());
    assert.equal(out.places.get("p0"), 1);
    assert.equal(out.places.get("p1"), 0);
    assert.equal(out.values.get("p0"), 1);
    assertClose(out.transitions.get("t")!, sigmoid64(0.75), 1e-15, "t");
    assertClose(out.places.get("q")!, 2 * sigmoid64(0.75), 1e-15, "q");
  });
  await t.step("a clamped non-source place takes the supplied value and value 1", () => {
    const m = sketch({
      places: ["p", "q", "r"],
      transitions: ["t", "u"],
      arcs: [["p", "t", 1], ["t", "q", 1], ["q", "u", 3], ["u", "r", 1]],
      guards: { u: { place: "q", op: ">", value: 0.5, theta: 0.5 } },
    });
    const out = evaluate(m, row({ q: 0.2 }));
    assert.equal(out.places.get("q"), 0.2);
    assert.equal(out.values.get("q"), 1);
    assertClose(out.transitions.get("u")!, sigmoid64(0.6) * sigmoid64(0.5), 1e-15, "u");
  });
  await t.step("supplied values of unclamped non-source places are ignored", () => {
    const m = sketch({
      places: ["p", "q", "r"],
      transitions: ["t", "u"],
      arcs: [["p", "t", 1], ["t", "q", 1], ["q", "u", 1], ["u", "r", 1]],
      initial: ["p"],
      outputs: [["t", "q", 4]],
      guards: { u: { place: "q", op: "<=", value: 10, theta: 3 } },
    });
    const a = evaluate(m, row());
    const b = evaluate(m, row({}, { q: 1000 }));
    assert.deepEqual(b, a);
    const at = sigmoid64(1);
    const vq = (at * 4) / (at + 1e-6);
    assertClose(a.values.get("q")!, vq, 1e-15, "v(q)");
    // '<=' gates with sigmoid(−x), x = sharpness · (1/10) · (v − θg).
    assertClose(a.transitions.get("u")!, sigmoid64(at) * sigmoid64(-0.1 * (vq - 3)), 1e-15, "u");
  });
  await t.step("inhibitor places at the same or a later depth do not gate", () => {
    // t0 at depth 1; p_late (depth 2) and p_same... only places at depth < 1 count: p_early.
    const m = sketch({
      places: ["p_early", "p_in", "p_late"],
      transitions: ["t0", "t1"],
      arcs: [["p_in", "t0", 1], ["p_in", "t1", 1], ["t0", "p_late", 1], ["t1", "p_late", 1]],
      inhibitors: [["p_late", "t0"], ["p_early", "t1"]],
    });
    assert.deepEqual(
      Object.fromEntries(longestPathDepths(m.net)),
      { p_early: 0, p_in: 0, p_late: 2, t0: 1, t1: 1 },
    );
    const out = evaluate(m, row({ p_in: 0.5, p_early: 0.25, p_late: 0.9 }));
    assertClose(out.transitions.get("t0")!, sigmoid64(0.5), 1e-15, "t0: no gate");
    assertClose(out.transitions.get("t1")!, sigmoid64(0.5) * 0.75, 1e-15, "t1: gate 1 − 0.25");
  });
  await t.step("an inhibitor place above 1 gives a negative gate", () => {
    const m = sketch({
      places: ["p", "h", "q"],
      transitions: ["t"],
      arcs: [["p", "t", 1], ["t", "q", 1]],
      inhibitors: [["h", "t"]],
    });
    const out = evaluate(m, row({ p: 1, h: 3 }));
    assertClose(out.transitions.get("t")!, sigmoid64(1) * -2, 1e-15, "t");
  });
  await t.step("rate and sharpness scale the pre-activation, not the guard", () => {
    const m = sketch({
      places: ["p", "q"],
      transitions: ["t"],
      arcs: [["p", "t", 2], ["t", "q", 1]],
      thresholds: { t: 0.5 },
      rates: { t: 1.5 },
      sharpness: 2,
      guards: { t: { place: "p", op: ">=", value: 1000, theta: 990 } },
    });
    const out = evaluate(m, row({ p: 0.4 }, { p: 1000 }));
    const expected = sigmoid64(3 * (0.8 - 0.5)) * sigmoid64(2 * (1 / 1000) * 10);
    assertClose(out.transitions.get("t")!, expected, 1e-15, "t");
  });
  await t.step("STE fires 1 strictly above sigmoid 0.5, else 0", () => {
    const m = sketch({
      places: ["p", "q"],
      transitions: ["t"],
      arcs: [["p", "t", 1], ["t", "q", 1]],
      thresholds: { t: 0.5 },
      firing: "ste",
    });
    assert.equal(evaluate(m, row({ p: 0.5 })).transitions.get("t"), 0);
    assert.equal(evaluate(m, row({ p: 0.51 })).transitions.get("t"), 1);
    assert.equal(evaluate(m, row({ p: 0.49 })).transitions.get("t"), 0);
    const g = gradient(m, row({ p: 0.51 }), new Map([["t", 1]]));
    const s = sigmoid64(0.01);
    assertClose(g.gradMarking.get("p")!, s * (1 - s), 1e-15, "surrogate gradient");
  });
  await t.step("softmax group members bypass STE and keep their own gates", () => {
    const m = sketch({
      places: ["p", "h", "a", "b", "c"],
      transitions: ["ta", "tb", "tc"],
      arcs: [
        ["p", "ta", 1],
        ["p", "tb", 2],
        ["p", "tc", -1],
        ["ta", "a", 1],
        ["tb", "b", 1],
        ["tc", "c", 1],
      ],
      thresholds: { ta: 0.1, tb: 0.2, tc: 0 },
      inhibitors: [["h", "tb"]],
      guards: { tc: { place: "p", op: "<", value: 0.5, theta: 0.5 } },
      firing: "ste",
      routing: "softmax",
      sharpness: 2,
    });
    const out = evaluate(m, row({ p: 0.7, h: 0.4 }, { p: 2 }));
    const pre = [2 * (0.7 - 0.1), 2 * (1.4 - 0.2), 2 * (-0.7)];
    const z = pre.map(Math.exp).reduce((x, y) => x + y);
    const soft = pre.map((x) => Math.exp(x) / z);
    assertClose(out.transitions.get("ta")!, soft[0]!, 1e-15, "ta");
    assertClose(out.transitions.get("tb")!, soft[1]! * 0.6, 1e-15, "tb");
    assertClose(out.transitions.get("tc")!, soft[2]! * sigmoid64(-2 * 1.5), 1e-15, "tc");
  });
  await t.step("presets {p} and {p, q} do not form a softmax group", () => {
    const m = sketch({
      places: ["p", "q", "a", "b"],
      transitions: ["ta", "tb"],
      arcs: [["p", "ta", 1], ["p", "tb", 1], ["q", "tb", 1], ["ta", "a", 1], ["tb", "b", 1]],
      routing: "softmax",
    });
    const out = evaluate(m, row({ p: 0.3, q: 0.2 }));
    assertClose(out.transitions.get("ta")!, sigmoid64(0.3), 1e-15, "ta");
    assertClose(out.transitions.get("tb")!, sigmoid64(0.5), 1e-15, "tb");
  });
  await t.step("ids that are not places are refused", () => {
    assert.throws(() => evaluate(XOR, row({ t_a: 1 })), /marking has ids that are not places/);
    assert.throws(() => evaluate(XOR, row({}, { nope: 1 })), /values has ids/);
  });
});

Deno.test("evaluate() follows the fine print of time-unrolled mode (docs/semantics.md)", async (t) => {
  const chain = (duration: number, numSteps: number) =>
    sketch({
      places: ["p", "q"],
      transitions: ["t"],
      arcs: [["p", "t", 1], ["t", "q", 2]],
      initial: ["p"],
      durations: { t: duration },
      numSteps,
      thresholds: { t: 0.5 },
    });
  await t.step("duration 3 gives 0 after 1 or 2 steps and the step-1 firing after 3", () => {
    assert.equal(evaluate(chain(3, 1), row()).transitions.get("t"), 0);
    assert.equal(evaluate(chain(3, 2), row()).transitions.get("t"), 0);
    assert.equal(evaluate(chain(3, 2), row()).places.get("q"), 0);
    assertClose(evaluate(chain(3, 3), row()).transitions.get("t")!, sigmoid64(0.5), 1e-15, "t");
    assertClose(evaluate(chain(3, 3), row()).places.get("q")!, 2 * sigmoid64(0.5), 1e-15, "q");
  });
  await t.step("a non-source place starts at 0 even with initial tokens", () => {
    const m = sketch({
      places: ["loop", "out"],
      transitions: ["t"],
      arcs: [["loop", "t", 1], ["t", "loop", 1], ["t", "out", 1]],
      initial: ["loop"],
      numSteps: 1,
      thresholds: { t: -0.5 },
    });
    assertClose(evaluate(m, row()).transitions.get("t")!, sigmoid64(0.5), 1e-15, "t");
    const m2 = { ...m, module: { ...m.module, numSteps: 2 } };
    const a1 = sigmoid64(0.5);
    assertClose(evaluate(m2, row()).transitions.get("t")!, sigmoid64(a1 + 0.5), 1e-15, "t@2");
  });
  await t.step("guards read the previous step's values; initial non-source values are 0", () => {
    const m = sketch({
      places: ["p", "q", "r"],
      transitions: ["t", "u"],
      arcs: [["p", "t", 1], ["t", "q", 1], ["q", "u", 1], ["u", "r", 1]],
      initial: ["p"],
      outputs: [["t", "q", 5]],
      guards: { u: { place: "q", op: ">", value: 2, theta: 2 } },
      numSteps: 2,
    });
    const out1 = evaluate({ ...m, module: { ...m.module, numSteps: 1 } }, row());
    // Step 1: q = 0 and v(q) = 0, so u = sigmoid(0) · sigmoid((1/2)·(0 − 2)).
    assertClose(out1.transitions.get("u")!, 0.5 * sigmoid64(-1), 1e-15, "u@1");
    const a = sigmoid64(1);
    const vq = (a * 5) / (a + 1e-6);
    assertClose(out1.values.get("q")!, vq, 1e-15, "v(q)@1");
    const out2 = evaluate(m, row());
    assertClose(out2.transitions.get("u")!, sigmoid64(a) * sigmoid64(0.5 * (vq - 2)), 1e-15, "u@2");
    // A supplied value seeds a non-source place's initial value.
    const seeded = evaluate({ ...m, module: { ...m.module, numSteps: 1 } }, row({}, { q: 4 }));
    assertClose(seeded.transitions.get("u")!, 0.5 * sigmoid64(1), 1e-15, "u@1 seeded");
  });
  await t.step("the value numerator uses the post-duration activation", () => {
    const m = sketch({
      places: ["p", "q", "r"],
      transitions: ["fast", "slow", "u"],
      arcs: [
        ["p", "fast", 1],
        ["p", "slow", 1],
        ["fast", "q", 1],
        ["slow", "q", 1],
        ["q", "u", 1],
        ["u", "r", 1],
      ],
      initial: ["p"],
      outputs: [["slow", "q", 9]],
      durations: { slow: 2 },
      guards: { u: { place: "q", op: ">", value: 1, theta: 0 } },
      numSteps: 1,
    });
    // After one step slow has produced nothing: v(q) = a(fast)·1 / (a(fast) + 1e-6).
    const a = sigmoid64(1);
    assertClose(evaluate(m, row()).values.get("q")!, a / (a + 1e-6), 1e-15, "v(q)");
  });
  await t.step("clamped places are re-clamped every step with value supplied or 1", () => {
    const m = sketch({
      places: ["p", "q", "r"],
      transitions: ["t", "u"],
      arcs: [["p", "t", 1], ["t", "q", 1], ["q", "u", 1], ["u", "r", 1]],
      guards: { u: { place: "q", op: "<", value: 3, theta: 0.5 } },
      numSteps: 2,
    });
    const out = evaluate(m, row({ q: 0.25 }));
    assert.equal(out.places.get("q"), 0.25);
    assert.equal(out.values.get("q"), 1);
    // Step 2 reads q = 0.25 and v(q) = 1 (step 1 read the initial value 0).
    const expected = sigmoid64(0.25) * sigmoid64(-(1 / 3) * (1 - 0.5));
    assertClose(out.transitions.get("u")!, expected, 1e-15, "u");
  });
  await t.step("inhibitors see every place in unrolled mode", () => {
    const m = sketch({
      places: ["p", "q"],
      transitions: ["t"],
      arcs: [["p", "t", 1], ["t", "q", 1]],
      inhibitors: [["q", "t"]],
      initial: ["p"],
      numSteps: 2,
    });
    const a1 = sigmoid64(1);
    assertClose(evaluate(m, row()).transitions.get("t")!, a1 * (1 - a1), 1e-15, "t@2");
  });
});

/** One recorded exchange of `exchanges.jsonl`. */
interface Exchange {
  i: number;
  method: string;
  path: string;
  note?: string;
  body?: Record<string, unknown> | null;
  body_raw?: string;
  petra: { status: number; response?: Record<string, unknown> };
  expect: { status?: number; compare: string; response?: Record<string, unknown> };
}

async function conformanceModels(): Promise<
  { name: string; model: PetriModel; exchanges: Exchange[] }[]
> {
  const out = [];
  for (const name of RECORDED_MODELS) {
    const dir = new URL(`${name}/`, CONFORMANCE);
    const model = parseModelDescription(
      JSON.parse(await Deno.readTextFile(new URL("model.json", dir))),
    );
    const exchanges = (await Deno.readTextFile(new URL("exchanges.jsonl", dir)))
      .split("\n")
      .filter((line) => line.trim() !== "")
      .map((line) => JSON.parse(line) as Exchange);
    out.push({ name, model, exchanges });
  }
  return out.sort((a, b) => compareIds(a.name, b.name));
}

function requestRow(model: PetriModel, body: Record<string, unknown>): RequestRow | undefined {
  const marking = new Map(Object.entries((body.input_marking ?? {}) as Record<string, number>));
  const values = new Map(Object.entries((body.input_values ?? {}) as Record<string, number>));
  const places = new Set(model.net.places);
  if ([...marking.keys(), ...values.keys()].some((id) => !places.has(id))) return undefined;
  return { marking, values };
}

function compareActivations(
  actual: Map<string, number>,
  expected: Record<string, number | null>,
  what: string,
) {
  assert.deepEqual([...actual.keys()].sort(compareIds), Object.keys(expected).sort(compareIds));
  for (const [id, want] of Object.entries(expected)) {
    const got = actual.get(id)!;
    if (want === null) assert.ok(!Number.isFinite(got), `${what} ${id}: expected non-finite`);
    else assertClose(got, want, 1e-5, `${what} ${id}`);
  }
}

Deno.test("evaluate() matches PETRA's recorded /forward answers", async (t) => {
  const models = await conformanceModels();
  assert.ok(models.length >= 5, `expected the conformance models in ${CONFORMANCE.pathname}`);
  for (const { name, model, exchanges } of models) {
    await t.step(name, async (t) => {
      let checked = 0;
      for (const e of exchanges) {
        if (e.method !== "POST" || e.path !== "/forward") continue;
        if (e.expect.status !== 200 || e.expect.compare !== "exact") continue;
        const body = e.body ?? JSON.parse(e.body_raw!);
        const input = requestRow(model, body);
        if (input === undefined) continue;
        const expected = (e.expect.response ?? e.petra.response)!;
        await t.step(`#${e.i} ${e.note ?? ""}`, () => {
          const out = evaluate(model, input);
          compareActivations(
            out.transitions,
            expected.transition_activations as Record<string, number | null>,
            "transition",
          );
          compareActivations(
            out.places,
            expected.place_activations as Record<string, number | null>,
            "place",
          );
        });
        checked++;
      }
      assert.ok(checked > 10, `only ${checked} /forward exchanges checked`);
    });
  }
});

Deno.test("gradient() matches PETRA's recorded /sensitivity answers", async (t) => {
  for (const { name, model, exchanges } of await conformanceModels()) {
    await t.step(name, async (t) => {
      let checked = 0;
      for (const e of exchanges) {
        if (e.method !== "POST" || e.path !== "/sensitivity") continue;
        if (e.expect.status !== 200 || e.expect.compare !== "sensitivity") continue;
        const body = e.body!;
        const input = requestRow(model, body);
        if (input === undefined) continue;
        const response = e.petra.response as {
          base_activation: number;
          marking_gradients: Record<string, number>;
          value_gradients: Record<string, number>;
        };
        await t.step(`#${e.i} ${e.note ?? ""}`, () => {
          const target = body.target_transition as string;
          const g = gradient(model, input, new Map([[target, 1]]));
          assertClose(g.transitions.get(target)!, response.base_activation, 1e-5, "base");
          for (const [p, want] of Object.entries(response.marking_gradients)) {
            assertClose(g.gradMarking.get(p)!, want, 1e-5, `d/d marking ${p}`, 1e-4);
          }
          for (const [p, want] of Object.entries(response.value_gradients)) {
            assertClose(g.gradValues.get(p)!, want, 1e-5, `d/d value ${p}`, 1e-4);
          }
        });
        checked++;
      }
      assert.ok(checked >= 5, `only ${checked} /sensitivity exchanges checked`);
    });
  }
});

/**
 * float64 arithmetic whose STE is the straight-through surrogate frozen at a base point:
 * `ste(x) = sigmoid(x) + (hard(x0) − sigmoid(x0))`, the k-th STE call using the k-th offset
 * recorded at the base point. Its derivative is exactly the sigmoid surrogate, so finite
 * differences of it check STE gradients (the evaluation's control flow does not depend on
 * values, so call k is the same STE node in every run).
 */
function frozenSte(offsets: number[] | undefined): Arithmetic<number> & { offsets: number[] } {
  const recorded: number[] = [];
  let k = 0;
  return {
    ...float64,
    ste(x) {
      const s = sigmoid64(x);
      if (offsets === undefined) {
        const hard = s > 0.5 ? 1 : 0;
        recorded.push(hard - s);
        return hard;
      }
      return s + offsets[k++]!;
    },
    offsets: recorded,
  };
}

function objective(
  model: PetriModel,
  input: RequestRow,
  target: ReadonlyMap<string, number>,
  ar: Arithmetic<number>,
): number {
  const out = evaluateWith(model, input.marking, input.values, ar);
  let total = 0;
  for (const [t, w] of target) total += w * out.transitions.get(t)!;
  return total;
}

/** Whether finite differences at successive steps agree (the function is smooth there). */
function converged(fds: number[]): boolean {
  return fds.every((d) => close(d, fds[0]!, 1e-5, 1e-4));
}

/** What {@link checkFiniteDifferences} compared. */
interface FdTally {
  /** Partial derivatives that matched central finite differences. */
  fd: number;
  /**
   * Partial derivatives where finite differences do not converge (steps 1e-6, 1e-7, 1e-8
   * disagree: the value channel of a place whose activation is exactly 0 bends on the scale of
   * the 1e-6 epsilon), checked against forward mode only.
   */
  forwardMode: number;
}

function checkFiniteDifferences(c: RandomCase, tally: FdTally) {
  for (const [r, input] of c.rows.entries()) {
    const g = gradient(c.model, input, input.target);
    const base = frozenSte(undefined);
    const f0 = objective(c.model, input, input.target, base);
    const plain = objective(c.model, input, input.target, float64);
    assert.equal(f0, plain, "the frozen-STE arithmetic must not change the forward value");
    const f = (channel: "marking" | "values", p: string, x: number) => {
      const changed = new Map(input[channel]);
      changed.set(p, x);
      const probe = channel === "marking"
        ? { marking: changed, values: input.values }
        : { marking: input.marking, values: changed };
      return objective(c.model, probe, input.target, frozenSte(base.offsets));
    };
    for (const channel of ["marking", "values"] as const) {
      const grads = channel === "marking" ? g.gradMarking : g.gradValues;
      for (const [p, x] of input[channel]) {
        const got = grads.get(p)!;
        const fail = (what: string) =>
          new Error(
            `seed ${c.seed}, row ${r}: d/d ${channel}[${JSON.stringify(p)}] reverse mode ${got}` +
              ` vs ${what}\nrow: ${describeRow(input)}\nnet: ${describeNet(c.model)}`,
          );
        const forward = forwardModeDerivative(c.model, input, input.target, channel, p);
        if (!close(got, forward, 1e-9, 1e-9)) throw fail(`forward mode ${forward}`);
        // In STE nets a guard place whose activation is exactly 0 has a value channel that
        // bends on the scale of the 1e-6 epsilon (its gradient is ~1e6), so smaller steps, also
        // scaled by the gradient, are tried before declaring a mismatch.
        const steps = [1e-6, 1e-7, 1e-8, 1e-9, 1e-10];
        if (Math.abs(got) > 1) steps.push(1e-6 / Math.abs(got), 1e-8 / Math.abs(got));
        const fds = steps.map((step) => {
          const h = step * Math.max(1, Math.abs(x));
          return (f(channel, p, x + h) - f(channel, p, x - h)) / (2 * h);
        });
        if (fds.some((fd) => close(got, fd, 1e-5, 1e-4))) {
          tally.fd++;
        } else if (!converged(fds.slice(0, 3))) {
          // Already checked against forward mode above.
          tally.forwardMode++;
        } else {
          throw fail(`finite differences ${fds.join(", ")} (steps ${steps.join(", ")})`);
        }
      }
    }
    for (const p of c.model.net.places) {
      if (!input.marking.has(p)) assert.equal(g.gradMarking.get(p), 0);
      if (!input.values.has(p)) assert.equal(g.gradValues.get(p), 0);
    }
  }
}

/** Random nets per property (set ORACLE_SEEDS for a longer run). */
const PROPERTY_SEEDS = Number(Deno.env.get("ORACLE_SEEDS") ?? 400);

Deno.test("gradient() equals central finite differences on random nets", async (t) => {
  // STE nets are included: the finite differences run on the straight-through surrogate
  // frozen at the base point (see frozenSte), whose derivative is exactly what STE backward is.
  for (const firing of ["sigmoid", "ste"] as const) {
    await t.step(`${firing} firing`, () => {
      const tally: FdTally = { fd: 0, forwardMode: 0 };
      for (let seed = 0; seed < PROPERTY_SEEDS; seed++) {
        checkFiniteDifferences(randomCase(seed, { firing, rows: 3, redrawAmbiguous: true }), tally);
      }
      assert.ok(tally.fd > PROPERTY_SEEDS * 3, `only ${tally.fd} partial derivatives compared`);
      assert.ok(tally.forwardMode <= tally.fd / 200, `${tally.forwardMode} unresolved by FD`);
    });
  }
});

Deno.test("random nets keep float32 within 1e-5 of float64 on unambiguous rows", () => {
  let rows = 0;
  for (let seed = 0; seed < PROPERTY_SEEDS * 2; seed++) {
    const c = randomCase(seed, { rows: 3, redrawAmbiguous: true });
    for (const input of c.rows) {
      const exact = evaluate(c.model, input);
      const m32 = new Map([...input.marking].map(([p, x]) => [p, Math.fround(x)]));
      const v32 = new Map([...input.values].map(([p, x]) => [p, Math.fround(x)]));
      const approx = evaluateWith(c.model, m32, v32, float32);
      for (const kind of ["transitions", "places"] as const) {
        for (const [id, x] of exact[kind]) {
          const y = approx[kind].get(id)!;
          if (!close(y, x, 1e-5)) {
            throw new Error(
              `seed ${c.seed}: float32 ${kind} ${JSON.stringify(id)} = ${y} vs float64 ${x}\n` +
                `row: ${describeRow(input)}\nnet: ${describeNet(c.model)}`,
            );
          }
        }
      }
      rows++;
    }
  }
  assert.ok(rows > PROPERTY_SEEDS * 4);
});

Deno.test("random nets cover every feature", () => {
  const seen = new Map<string, number>();
  const count = (feature: string, yes: boolean) => {
    if (yes) seen.set(feature, (seen.get(feature) ?? 0) + 1);
  };
  let ambiguous = 0;
  for (let seed = 0; seed < PROPERTY_SEEDS; seed++) {
    const { model, rows } = randomCase(seed, { rows: 3 });
    const { net, module } = model;
    const unrolled = module.numSteps > 0;
    count(`${unrolled ? "unrolled" : "acyclic"} ${module.firing} ${module.routing}`, true);
    const presets = new Map<string, string[]>();
    for (const { from, to } of net.arcs) presets.set(to, [...(presets.get(to) ?? []), from]);
    const keys = net.transitions.map((t) => JSON.stringify(presets.get(t)!.sort(compareIds)));
    count(
      `softmax group (${module.routing})`,
      keys.some((k, i) => keys.indexOf(k) !== i),
    );
    const isSource = (p: string) => !presets.has(p);
    if (!unrolled) {
      const depth = longestPathDepths(net);
      count(
        "acyclic inhibitor at a later depth",
        net.inhibitorArcs.some((a) => depth.get(a.place)! > depth.get(a.transition)!),
      );
      count(
        "acyclic inhibitor at an earlier depth",
        net.inhibitorArcs.some((a) => depth.get(a.place)! < depth.get(a.transition)!),
      );
      count(
        "acyclic initial marking on a non-source place",
        [...net.initialMarking.keys()].some((p) => !isSource(p)),
      );
    } else {
      count(
        "unrolled cycle",
        (() => {
          try {
            longestPathDepths(net);
            return false;
          } catch {
            return true;
          }
        })(),
      );
      count("unrolled duration > 1", net.durations.size > 0);
    }
    for (const op of [">", ">=", "<", "<="]) {
      count(`guard ${op}`, [...net.structuralGuards.values()].some((g) => g.op === op));
    }
    count("guard value 1000", [...net.structuralGuards.values()].some((g) => g.value === 1000));
    count("guard value 0.5", [...net.structuralGuards.values()].some((g) => g.value === 0.5));
    count("rate", net.rates.size > 0);
    count("arc output value", net.arcOutputValues.length > 0);
    count("initial marking", net.initialMarking.size > 0);
    count("silent transition", net.silentTransitions.length > 0);
    count("label", net.labels.size > 0);
    count("odd id", net.places.concat(net.transitions).some((id) => !/^[pt]\d+$/.test(id)));
    count("__proto__ id", net.places.concat(net.transitions).includes("__proto__"));
    count(
      "isolated place",
      net.places.some((p) => !net.arcs.some((a) => a.from === p || a.to === p)),
    );
    for (const r of rows) {
      count("clamped non-source place", [...r.marking.keys()].some((p) => !isSource(p)));
      count("value for a non-source place", [...r.values.keys()].some((p) => !isSource(p)));
      if (numericalAmbiguity(model, r) !== undefined) ambiguous++;
    }
  }
  const required = [
    ...["acyclic", "unrolled"].flatMap((m) =>
      ["sigmoid", "ste"].flatMap((f) => ["independent", "softmax"].map((r) => `${m} ${f} ${r}`))
    ),
    "softmax group (softmax)",
    "softmax group (independent)",
    "acyclic inhibitor at a later depth",
    "acyclic inhibitor at an earlier depth",
    "acyclic initial marking on a non-source place",
    "unrolled cycle",
    "unrolled duration > 1",
    "guard >",
    "guard >=",
    "guard <",
    "guard <=",
    "guard value 1000",
    "guard value 0.5",
    "rate",
    "arc output value",
    "initial marking",
    "silent transition",
    "label",
    "odd id",
    "__proto__ id",
    "isolated place",
    "clamped non-source place",
    "value for a non-source place",
  ];
  for (const feature of required) {
    assert.ok(
      (seen.get(feature) ?? 0) >= 5,
      `feature '${feature}' seen ${seen.get(feature) ?? 0} times`,
    );
  }
  assert.ok(ambiguous < PROPERTY_SEEDS * 3 * 0.2, `${ambiguous} ambiguous rows`);
});

Deno.test("random nets are valid model descriptions", () => {
  for (let seed = 0; seed < PROPERTY_SEEDS; seed++) {
    const { model, rows } = randomCase(seed, { rows: 1 });
    const text = describeNet(model);
    let parsed: PetriModel;
    try {
      parsed = parseModelDescription(JSON.parse(text));
    } catch (error) {
      throw new Error(`seed ${seed}: parseModelDescription refuses the net: ${error}\n${text}`);
    }
    assert.deepEqual(parsed.net, model.net, `seed ${seed}`);
    assert.deepEqual(parsed.module, model.module, `seed ${seed}`);
    assert.deepEqual(parsed.parameters, model.parameters, `seed ${seed}`);
    assert.deepEqual(evaluate(parsed, rows[0]!), evaluate(model, rows[0]!), `seed ${seed}`);
  }
});
