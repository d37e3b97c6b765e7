/**
 * onnxruntime-node (~290 MB) stays out of every default run: Deno installs each package of
 * `deno.json`'s import map and of `deno.lock` as soon as a run needs any npm package, so the
 * package must be named in neither (`adapter/deno/native_ort.ts` imports it by a computed
 * specifier, only for `--runtime native`). A local `--runtime native` run adds it to
 * deno.lock; `git checkout deno.lock` before committing (the native tests use a copy).
 *
 * @module
 */

import assert from "node:assert/strict";
import { ONNXRUNTIME_NODE } from "../../adapter/deno/native_ort.ts";

const ROOT = new URL("../../", import.meta.url);

Deno.test("deno.json and deno.lock do not name onnxruntime-node, so no default run installs it", async () => {
  assert.equal(ONNXRUNTIME_NODE, "npm:onnxruntime-node@1.30.0", "pinned exactly");
  for (const file of ["deno.json", "deno.lock"]) {
    const text = await Deno.readTextFile(new URL(file, ROOT));
    const names = text.split("\n").filter((line) => line.includes("onnxruntime-node"));
    assert.deepEqual(names, [], `${file} names onnxruntime-node (git checkout ${file})`);
  }
});
