/**
 * Should rows with and without gradients share an ORT run? For a cycle of `k` forward rows and
 * `k` gradient rows, times two forward-then-gradient runs (`separate`) against one gradient run
 * over all `2k` rows (`shared`, the forward rows' gradients discarded), on a worker session as
 * `serve` uses it. The two ways alternate so that load from other processes hits both alike.
 *
 * ```sh
 * deno run -A bench/gradient_mix.ts
 * ```
 *
 * @module
 */

import { compileModel } from "../core/compile/mod.ts";
import type { PetriModel } from "../core/net/mod.ts";
import { ModelSession, type PackedInputs } from "../core/runtime/mod.ts";
import { loadWorkerOrt } from "../adapter/deno/ort.ts";
import { exampleModel } from "../tests/core/fixtures.ts";
import { layeredModel } from "./layered_net.ts";

const CYCLES = 400;
const ROWS = [1, 8, 64, 512];

function inputs(session: ModelSession, batch: number): PackedInputs {
  const P = session.places.length;
  const T = session.transitions.length;
  const fill = (n: number, v: number) => new Float32Array(batch * n).fill(v);
  return {
    batch,
    marking: fill(P, 0.5),
    markingMask: fill(P, 1),
    values: fill(P, 0.5),
    valuesMask: fill(P, 1),
    target: fill(T, 1),
  };
}

const models: [string, PetriModel][] = [
  ["credit_approval_coloured", await exampleModel("credit_approval_coloured")],
  ["layered 60 places", layeredModel(60)],
];
const ort = await loadWorkerOrt();
console.log(
  "| net | k forward + k gradient rows | separate runs µs | shared run µs | shared / separate |",
);
console.log("| --- | ---: | ---: | ---: | ---: |");
for (const [name, model] of models) {
  await using session = await ModelSession.create(ort, compileModel(model).bytes, model.net);
  for (const k of ROWS) {
    const one = inputs(session, k);
    const two = inputs(session, 2 * k);
    const separate = async () => {
      await session.runPacked(one, { withGradient: false });
      await session.runPacked(one, { withGradient: true });
    };
    const shared = () => session.runPacked(two, { withGradient: true });
    let tSeparate = 0;
    let tShared = 0;
    const cycles = k >= 512 ? CYCLES / 8 : CYCLES;
    for (let i = 0; i < 20; i++) await separate(), await shared();
    for (let i = 0; i < cycles; i++) {
      let t = performance.now();
      await separate();
      tSeparate += performance.now() - t;
      t = performance.now();
      await shared();
      tShared += performance.now() - t;
    }
    const us = (ms: number) => (ms * 1000 / cycles).toFixed(0);
    console.log(
      `| ${name} | ${k} + ${k} | ${us(tSeparate)} | ${us(tShared)} | ${
        (tShared / tSeparate).toFixed(2)
      } |`,
    );
  }
}
