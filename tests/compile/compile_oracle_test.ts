/**
 * Property test of the ONNX compiler: ≥ 300 random nets across every feature combination,
 * compiled and run by onnxruntime-web, against the float64 oracle in `tests/oracle/` —
 * activations within 1e-5 absolute, gradients (the `target` vector-Jacobian product) and the
 * `place_values` output within 1e-4 relative (values only where their division a + 1e-6 is
 * well conditioned). Even seeds use the default (gather) linear maps, odd seeds the dense form.
 * A failing case prints its seed and its net.
 *
 * @module
 */

import * as ort from "onnxruntime-web";
import "../ort.ts"; // initialises ORT outside any test (resource sanitizer)
import { compileModel } from "../../core/compile/mod.ts";
import type { PetriModel } from "../../core/net/types.ts";
import { gradient } from "../oracle/gradient.ts";
import { describeNet, describeRow, randomCase } from "../oracle/random_net.ts";
import { evaluate, type RequestRow } from "../oracle/evaluate.ts";

const SEEDS = Number(Deno.env.get("COMPILE_SEEDS") ?? 320);

type Row = RequestRow & { target: Map<string, number> };

function feeds(model: PetriModel, rows: readonly Row[]) {
  const { places, transitions } = model.net;
  const B = rows.length;
  const packed = (ids: readonly string[], pick: (r: Row) => ReadonlyMap<string, number>) => {
    const data = new Float32Array(B * ids.length);
    const mask = new Float32Array(B * ids.length);
    rows.forEach((r, b) =>
      ids.forEach((id, i) => {
        const v = pick(r).get(id);
        if (v !== undefined) [data[b * ids.length + i], mask[b * ids.length + i]] = [v, 1];
      })
    );
    const t = (d: Float32Array) => new ort.Tensor("float32", d, [B, ids.length]);
    return [t(data), t(mask)] as const;
  };
  const [marking, markingMask] = packed(places, (r) => r.marking);
  const [values, valuesMask] = packed(places, (r) => r.values);
  const [target] = packed(transitions, (r) => r.target);
  return {
    marking,
    marking_mask: markingMask,
    values,
    values_mask: valuesMask,
    target,
    with_gradient: new ort.Tensor("bool", [true], []),
  };
}

function mismatches(
  label: string,
  ids: readonly string[],
  got: ArrayLike<number>,
  offset: number,
  want: ReadonlyMap<string, number>,
  atol: number,
  rtol: number,
  skip: ReadonlySet<string> = new Set(),
): string[] {
  const out: string[] = [];
  ids.forEach((id, i) => {
    if (skip.has(id)) return;
    const g = got[offset + i]!;
    const w = want.get(id) ?? 0;
    if (!(Math.abs(g - w) <= atol + rtol * Math.abs(w))) out.push(`${label}[${id}]: ${g} vs ${w}`);
  });
  return out;
}

Deno.test("compileModel() matches the float64 oracle on random nets", async (t) => {
  let checkedRows = 0;
  let checkedValues = 0;
  let placeCount = 0;
  for (let seed = 1; seed <= SEEDS; seed++) {
    const { model, rows } = randomCase(seed, { rows: 3, redrawAmbiguous: true });
    if (rows.length === 0) continue;
    const { places, transitions } = model.net;
    const compiled = compileModel(model, seed % 2 ? { denseLimit: 16384 } : {});
    const session = await ort.InferenceSession.create(compiled.bytes);
    try {
      const out = await session.run(feeds(model, rows));
      const problems: string[] = [];
      rows.forEach((row, b) => {
        const want = gradient(model, row, row.target);
        const values = conditionedValues(model, row);
        checkedValues += places.length - values.unstable.size;
        placeCount += places.length;
        const P = places.length;
        const T = transitions.length;
        const found = [
          ...mismatches(
            "transition",
            transitions,
            out.transitions!.data as Float32Array,
            b * T,
            want.transitions,
            1e-5,
            0,
          ),
          ...mismatches(
            "place",
            places,
            out.places!.data as Float32Array,
            b * P,
            want.places,
            1e-5,
            0,
          ),
          ...mismatches(
            "place_value",
            places,
            out.place_values!.data as Float32Array,
            b * P,
            values.oracle,
            1e-5,
            1e-4,
            values.unstable,
          ),
          ...mismatches(
            "grad_marking",
            places,
            out.grad_marking!.data as Float32Array,
            b * P,
            want.gradMarking,
            1e-5,
            1e-4,
          ),
          ...mismatches(
            "grad_values",
            places,
            out.grad_values!.data as Float32Array,
            b * P,
            want.gradValues,
            1e-5,
            1e-4,
          ),
        ];
        if (found.length > 0) problems.push(`row ${describeRow(row)}\n  ${found.join("\n  ")}`);
        checkedRows++;
      });
      if (problems.length > 0) {
        await t.step(`seed ${seed}`, () => {
          throw new Error(
            `seed ${seed} disagrees with the oracle:\n${problems.join("\n")}\nnet:\n${
              describeNet(model)
            }`,
          );
        });
      }
    } finally {
      await session.release();
    }
  }
  if (checkedRows < 3 * 300 * 0.9) throw new Error(`only ${checkedRows} rows were checked`);
  if (checkedValues < placeCount * 0.9) {
    throw new Error(`only ${checkedValues} of ${placeCount} place values were compared`);
  }
});

/**
 * The oracle's value channel of the places whose value is not an ill-conditioned division
 * (|a + 1e-6| < 1e-3, or cancellation: Σ |w·a(t)| > 100·|a + 1e-6|), where float32 and
 * float64 may rightly disagree.
 */
function conditionedValues(model: PetriModel, row: RequestRow) {
  const unstable = new Set<string>();
  const out = evaluate(model, row, {
    valueDivision(p, den, terms) {
      if (terms !== 0 && (Math.abs(den) < 1e-3 || terms > 100 * Math.abs(den))) unstable.add(p);
    },
  });
  return { oracle: out.values, unstable };
}
