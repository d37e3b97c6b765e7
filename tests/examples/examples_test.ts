/**
 * The committed example bundles are what `deno task examples` would write today: recompiling
 * each `examples/NAME/NAME.model.json` (with the sidecar's recorded `saved_at`) gives the same
 * bytes and sidecar text. Run `deno task examples` after changing the compiler.
 *
 * @module
 */

import assert from "node:assert/strict";
import { compileBundle } from "../../core/bundle/mod.ts";
import { exampleFile, exampleModel, EXAMPLES } from "../core/fixtures.ts";

Deno.test("examples/ bundles are up to date with their model descriptions", async (t) => {
  for (const name of EXAMPLES) {
    await t.step(name, async () => {
      const onnx = await Deno.readFile(exampleFile(name, ".onnx"));
      const sidecar = await Deno.readTextFile(exampleFile(name, ".onnx.meta.json"));
      const savedAt = new Date(JSON.parse(sidecar).saved_at);
      const fresh = await compileBundle(await exampleModel(name), { savedAt });
      const hint = `examples/${name} is stale: run 'deno task examples'`;
      assert.ok(equalBytes(fresh.onnx, onnx), hint);
      assert.equal(fresh.sidecar, sidecar, hint);
    });
  }
});

function equalBytes(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && a.every((x, i) => x === b[i]);
}
