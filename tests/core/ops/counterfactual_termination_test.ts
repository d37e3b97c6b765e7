/**
 * `counterfactual()` ends for every input, with a bounded number of model rows: ranges
 * narrower than float32 spacing around the triage model's straight-through jump (which were
 * refined forever before the float32 stop), and seeded random narrow ranges around the
 * crossings of every conformance model, with tolerances down to far below float32 resolution.
 * Each answer is checked for what D3 promises: a found answer's input lies in the range and its
 * activation, which the model reproduces at that input, is within tolerance of 0.5 or across 0.5
 * from the original activation.
 *
 * @module
 */

import assert from "node:assert/strict";
import {
  counterfactual,
  type CounterfactualRequest,
  type CounterfactualResponse,
  MAX_REFINE_ROUNDS,
  MAX_SEARCH_ROWS,
} from "../../../core/ops/counterfactual.ts";
import { type OpsModel, runRows } from "../../../core/ops/model.ts";
import type { InputRow, PackedInputs } from "../../../core/runtime/mod.ts";
import { RECORDED_MODELS } from "../../conformance/fixtures.ts";
import { mulberry32 } from "../../random.ts";
import { loadConformanceModel } from "../../server/models.ts";

/**
 * `model` with a count of the rows and runs the operation asked for; a run past
 * {@link MAX_SEARCH_ROWS} rows throws, so a search that does not end fails instead of hanging.
 */
function counting(model: OpsModel): OpsModel & { rows: number; runs: number } {
  const counted = {
    net: model.net,
    module: model.module,
    parameters: model.parameters,
    structure: model.structure,
    placeIndex: model.placeIndex,
    transitionIndex: model.transitionIndex,
    label: (transition: string) => model.label(transition),
    rows: 0,
    runs: 0,
    run(rows: readonly InputRow[], options: { withGradient: boolean }) {
      return runRows(counted, counted, rows, options);
    },
    runPacked(inputs: PackedInputs, options: { withGradient: boolean }) {
      counted.rows += inputs.batch;
      counted.runs += 1;
      if (counted.rows > MAX_SEARCH_ROWS) {
        throw new Error(`the search asked for ${counted.rows} rows, more than ${MAX_SEARCH_ROWS}`);
      }
      return model.runPacked(inputs, options);
    },
  };
  return counted;
}

/** The target's activation with `flip_place` set to `x` on the request's channel. */
async function activationAt(
  model: OpsModel,
  request: CounterfactualRequest,
  x: number,
): Promise<number> {
  const marking = new Map(request.input_marking);
  const values = new Map(request.input_values ?? []);
  (request.flip_channel === "value" ? values : marking).set(request.flip_place, x);
  const [row] = await model.run([{ marking, values }], { withGradient: false });
  return row!.transitions[model.net.transitions.indexOf(request.target_transition)]!;
}

/** Runs the search on a counting model; checks the row bound and D3's promise; the answer. */
async function searchAndCheck(
  model: OpsModel,
  request: CounterfactualRequest,
): Promise<CounterfactualResponse> {
  const counted = counting(model);
  const answer = await counterfactual(counted, request);
  const what = JSON.stringify({ ...request, input_marking: [...request.input_marking] });
  assert.ok(counted.rows <= MAX_SEARCH_ROWS, `${counted.rows} rows for ${what}`);
  assert.ok(counted.runs <= 3 + MAX_REFINE_ROUNDS, `${counted.runs} runs for ${what}`);
  if (!answer.found) return answer;
  const [lo, hi] = request.search_range ?? [0, 1];
  const x = answer.counterfactual_input;
  assert.ok(lo <= x && x <= hi, `${x} outside [${lo}, ${hi}] for ${what}`);
  assert.equal(await activationAt(model, request, x), answer.counterfactual_activation, what);
  const tolerance = request.tolerance ?? 1e-3;
  const act = answer.counterfactual_activation;
  const onBoundary = Math.abs(act - 0.5) < tolerance;
  const flipped = Math.sign(act - 0.5) !== Math.sign(answer.original_activation - 0.5);
  assert.ok(onBoundary || flipped, `activation ${act} is neither on the boundary nor a flip`);
  return answer;
}

/**
 * Where the target's activation crosses 0.5 between `a` and `b` (on opposite sides of it),
 * narrowed by bisection until float64 cannot split it: the float64 just below the flip.
 */
async function flipPoint(
  model: OpsModel,
  request: CounterfactualRequest,
  a: number,
  b: number,
): Promise<number> {
  const side = async (x: number) => Math.sign(await activationAt(model, request, x) - 0.5);
  const sideOfA = await side(a);
  assert.notEqual(sideOfA, await side(b));
  for (;;) {
    const middle = (a + b) / 2;
    if (middle === a || middle === b) return a;
    if (await side(middle) === sideOfA) a = middle;
    else b = middle;
  }
}

/** Whether the activations at the range's ends lie on opposite sides of 0.5. */
async function endsStraddle(
  model: OpsModel,
  request: CounterfactualRequest,
  [lo, hi]: readonly [number, number],
): Promise<boolean> {
  const [a, b] = [await activationAt(model, request, lo), await activationAt(model, request, hi)];
  return Math.sign(a - 0.5) * Math.sign(b - 0.5) < 0;
}

Deno.test("counterfactual() answers ranges narrower than float32 spacing around a jump", async () => {
  await using model = await loadConformanceModel("triage_softmax_ste");
  const base = {
    input_marking: new Map([["p_escalate_req", 0], ["p_ticket", 1], ["p_triaged", 0.92]]),
    flip_place: "p_escalate_req",
    target_transition: "t_escalate",
  } as const;
  // t_escalate is a straight-through step from 0 to 1.
  assert.equal(await activationAt(model, base, 0), 0);
  assert.equal(await activationAt(model, base, 1), 1);
  const jump = await flipPoint(model, base, 0, 1);
  assert.ok(jump > 0.79 && jump < 0.8, `jump at ${jump}`);

  let found = 0;
  for (const start of [0, 0.95]) {
    for (let i = -10; i <= 10; i++) {
      const centre = jump + i * 1e-12;
      const request = {
        ...base,
        input_marking: new Map([...base.input_marking, ["p_escalate_req", start]]),
        search_range: [centre - 1e-11, centre + 1e-11] as const,
      };
      for (const tolerance of [1e-3, 1e-12]) {
        const answer = await searchAndCheck(model, { ...request, tolerance });
        // The range holds at most two float32 inputs, both on the grid: found exactly when
        // its ends are on opposite sides of the jump.
        const straddles = await endsStraddle(model, request, request.search_range);
        assert.equal(answer.found, straddles, `range around ${centre}`);
        if (answer.found) {
          found++;
          assert.equal(answer.original_activation, start > 0.5 ? 1 : 0);
          assert.equal(answer.counterfactual_activation, start > 0.5 ? 0 : 1);
        }
      }
    }
  }
  // Most of the ranges straddle the jump (they were refined forever before the float32 stop).
  assert.ok(found >= 60, `${found} found`);
});

Deno.test("counterfactual() ends on random narrow ranges of every conformance model", async (t) => {
  for (const name of RECORDED_MODELS) {
    await t.step(name, async () => {
      await using model = await loadConformanceModel(name);
      const random = mulberry32(16 + name.length);
      const { places, transitions } = model.net;
      const pick = <T>(items: readonly T[]) => items[Math.floor(random() * items.length)]!;
      let searches = 0;
      let narrowFound = 0;
      for (let trial = 0; trial < 24; trial++) {
        const input_marking = new Map(
          model.structure.sourcePlaces.map((p) => [p, Math.round(random() * 100) / 100]),
        );
        const wideRange = pick([[0, 1], [-10, 10], [0, 10000]] as const);
        // Mostly a place in the target's preset, which moves its activation.
        const target_transition = pick(transitions);
        const preset = model.structure.preset.get(target_transition) ?? [];
        const request: CounterfactualRequest = {
          input_marking,
          flip_place: preset.length > 0 && random() < 0.75 ? pick(preset) : pick(places),
          target_transition,
          flip_channel: random() < 0.25 ? "value" : "marking",
          search_range: wideRange,
        };
        await searchAndCheck(model, request);
        searches++;
        // A crossing of 0.5 in the wide range, found apart from the search, narrowed to
        // float64; else a random point. Ranges around it from 1e-3 down to far below float32
        // spacing, with tolerances from the default to far below float32 resolution.
        const grid = Array.from(
          { length: 33 },
          (_, i) => wideRange[0] + (wideRange[1] - wideRange[0]) * i / 32,
        );
        let centre = wideRange[0] + random() * (wideRange[1] - wideRange[0]);
        for (let i = 0; i + 1 < grid.length; i++) {
          if (await endsStraddle(model, request, [grid[i]!, grid[i + 1]!])) {
            centre = await flipPoint(model, request, grid[i]!, grid[i + 1]!);
            break;
          }
        }
        for (const exponent of [3, 7, 9, 11, 12, 13, 14]) {
          const width = 10 ** -exponent * (0.5 + random()) * Math.max(1, Math.abs(centre));
          const offset = (random() - 0.5) * width;
          const range = [centre + offset - width / 2, centre + offset + width / 2] as const;
          const straddles = await endsStraddle(model, request, range);
          for (const tolerance of [pick([1e-3, 1e-7]), 1e-12]) {
            const answer = await searchAndCheck(model, {
              ...request,
              search_range: range,
              tolerance,
            });
            searches++;
            // Both ends are grid probes: opposite sides of 0.5 there always make a bracket.
            if (straddles) assert.ok(answer.found, `range ${range} straddles 0.5`);
            if (answer.found && exponent >= 11) narrowFound++;
          }
        }
      }
      assert.equal(searches, 24 * 15);
      // The narrow ranges do reach crossings (the cases that were refined forever before).
      assert.ok(narrowFound > 0, `${name}: no range narrower than 1e-11 found a crossing`);
    });
  }
});
