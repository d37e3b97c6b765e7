/**
 * Property test of the ONNX compiler: ≥ 300 random nets across every feature combination,
 * compiled and run by onnxruntime-web, against the float64 oracle in `tests/oracle/` —
 * activations within 1e-5 absolute, gradients (the `target` vector-Jacobian product) and the
 * `place_values` output within 1e-4 relative (values only where their division a + 1e-6 is
 * well conditioned). Even seeds use the default (gather) linear maps, odd seeds the dense form.
 * A failing case prints its seed and its net.
 *
 * The same property holds with onnxruntime-node (`--runtime native`): the last test runs this
 * file again in a `deno test` of its own with `PETRI_ORACLE_ORT=native`, where the graphs run
 * natively (one intra-op thread, as `serve` and `batch` run them by default), with `--lock` on a
 * copy of deno.lock (loading the package adds it to the lock file; `bench/native_lock.ts`).
 *
 * @module
 */

import assert from "node:assert/strict";
import * as web from "onnxruntime-web";
import "../../ort.ts"; // initialises ORT outside any test (resource sanitizer)
import { importOnnxruntimeNode } from "../../../adapter/deno/native_ort.ts";
import { nativeLockFlag } from "../../../bench/native_lock.ts";
import { compileModel } from "../../../core/compile/mod.ts";
import type { PetriModel } from "../../../core/net/types.ts";
import { gradient } from "../../oracle/gradient.ts";
import { describeNet, describeRow, randomCase } from "../../oracle/random_net.ts";
import { evaluate, type RequestRow } from "../../oracle/evaluate.ts";

const SEEDS = Number(Deno.env.get("COMPILE_SEEDS") ?? 320);

/** Whether this run is the native one the last test starts. */
const NATIVE = Deno.env.get("PETRI_ORACLE_ORT") === "native";

/** The ORT that runs the graphs (both packages have onnxruntime-common's API). */
const ort: typeof web = NATIVE ? (await importOnnxruntimeNode()) as unknown as typeof web : web;

/** Session options: one intra-op thread natively, as `--runtime native` has by default. */
const SESSION_OPTIONS = NATIVE ? { intraOpNumThreads: 1, interOpNumThreads: 1 } : {};

const ORACLE_TEST = "compileModel() matches the float64 oracle on random nets";

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

Deno.test(ORACLE_TEST, async (t) => {
  let checkedRows = 0;
  let checkedValues = 0;
  let placeCount = 0;
  for (let seed = 1; seed <= SEEDS; seed++) {
    const { model, rows } = randomCase(seed, { rows: 3, redrawAmbiguous: true });
    if (rows.length === 0) continue;
    const { places, transitions } = model.net;
    const compiled = compileModel(model, seed % 2 ? { denseLimit: 16384 } : {});
    const session = await ort.InferenceSession.create(compiled.bytes, SESSION_OPTIONS);
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

Deno.test({
  name: `${ORACLE_TEST}, run by onnxruntime-node too`,
  ignore: NATIVE,
  async fn() {
    const { code, stdout, stderr } = await new Deno.Command(Deno.execPath(), {
      // This file was type-checked by the run that starts this one.
      args: [
        "test",
        "-A",
        "--no-check",
        nativeLockFlag(),
        "--filter",
        ORACLE_TEST,
        import.meta.filename!,
      ],
      env: { PETRI_ORACLE_ORT: "native", NO_COLOR: "1" },
      cwd: new URL("../../../", import.meta.url),
      stdin: "null",
      stdout: "piped",
      stderr: "piped",
    }).output();
    const text = new TextDecoder().decode(stdout) + new TextDecoder().decode(stderr);
    assert.equal(code, 0, `the native run failed:\n${text}`);
    assert.match(text, /ok \| 1 passed/, `the native run checked nothing:\n${text}`);
  },
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
