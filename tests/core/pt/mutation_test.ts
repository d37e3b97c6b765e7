/**
 * The general rule, checked on files nobody wrote by hand: seeded random corruptions of real
 * PETRA bundles (bytes of `data.pkl` flipped, inserted or dropped, then re-zipped; bytes of the
 * whole `.pt` flipped; the `.pt` cut at random lengths). Every outcome must be a model or a
 * `BundleError` (one line, naming the file): never another exception, never a hang.
 *
 * @module
 */

import assert from "node:assert/strict";
import { BundleError } from "../../../core/bundle/mod.ts";
import { readPtModel } from "../../../core/pt/read_pt_model.ts";
import { mulberry32 } from "../../random.ts";
import { CONFORMANCE, RECORDED_MODELS } from "../../conformance/fixtures.ts";
import { fixtureEntries, fixtureSidecar, torchZip } from "./pickles.ts";

const ROUNDS = 300;

function outcome(pt: Uint8Array, sidecar: string): "loaded" | "refused" {
  try {
    readPtModel({ pt, sidecar, ptName: "mutant.pt", sidecarName: "mutant.pt.meta.json" });
    return "loaded";
  } catch (error) {
    if (!(error instanceof BundleError)) throw error;
    assert.match(error.message, /^Cannot load bundle: mutant\.pt[ .:]/);
    assert.ok(!error.message.includes("\n"), error.message);
    return "refused";
  }
}

for (const name of RECORDED_MODELS) {
  Deno.test(`corrupted copies of ${name}/model.pt load or are refused with a BundleError`, async () => {
    const random = mulberry32(0x5eed + name.length);
    const pick = (n: number) => Math.floor(random() * n);
    const entries = await fixtureEntries(name);
    const pickle = entries["data.pkl"]!;
    const whole = await Deno.readFile(new URL(`${name}/model.pt`, CONFORMANCE));
    const sidecar = await fixtureSidecar(name);
    const counts = { loaded: 0, refused: 0 };
    for (let round = 0; round < ROUNDS; round++) {
      const bytes = [...pickle];
      for (let edits = 1 + pick(4); edits > 0; edits--) {
        const at = pick(bytes.length);
        const kind = pick(3);
        if (kind === 0) bytes[at] = pick(256);
        else if (kind === 1) bytes.splice(at, 0, pick(256));
        else bytes.splice(at, 1);
      }
      const mutant = torchZip("model", { ...entries, "data.pkl": new Uint8Array(bytes) });
      counts[outcome(mutant, sidecar)]++;

      const flipped = whole.slice();
      const at = pick(flipped.length);
      flipped[at] = flipped[at]! ^ (1 << pick(8));
      counts[outcome(flipped, sidecar)]++;
      counts[outcome(whole.subarray(0, pick(whole.length)), sidecar)]++;
    }
    // Most corruptions break the file; a flip inside a float or a label may leave it valid.
    assert.ok(counts.refused > ROUNDS, JSON.stringify(counts));
  });
}
