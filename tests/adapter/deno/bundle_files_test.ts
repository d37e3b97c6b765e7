/**
 * Tests of `server/bundle_files.ts`: resolving bundle paths, reading pairs from disk (and the
 * embedded example) and writing them, with errors that name the path at fault.
 *
 * @module
 */

import assert from "node:assert/strict";
import { BundleError, compileBundle } from "../../../core/bundle/mod.ts";
import {
  EXAMPLE_BUNDLE_URL,
  readBundle,
  resolveBundlePath,
  writeBundle,
} from "../../../adapter/deno/bundle_files.ts";
import { assertRejectsWith, exampleModel, ORT } from "../../core/fixtures.ts";

const SAVED_AT = new Date("2026-11-21T13:06:09Z");

async function withTempDir(fn: (dir: string) => Promise<void>): Promise<void> {
  const dir = await Deno.makeTempDir({ prefix: "petri_bundle_files_" });
  try {
    await fn(dir);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

async function writeExample(path: string): Promise<void> {
  await writeBundle(
    path,
    await compileBundle(await exampleModel("rest_serving"), { savedAt: SAVED_AT }),
  );
}

Deno.test("writeBundle() creates parent directories and writes both files", async () => {
  await withTempDir(async (dir) => {
    const bundle = await compileBundle(await exampleModel("rest_serving"), { savedAt: SAVED_AT });
    const written = await writeBundle(`${dir}/a/b/model.onnx`, bundle);
    assert.deepEqual(written, {
      onnxPath: `${dir}/a/b/model.onnx`,
      sidecarPath: `${dir}/a/b/model.onnx.meta.json`,
    });
    assert.deepEqual(await Deno.readFile(written.onnxPath), bundle.onnx);
    assert.equal(await Deno.readTextFile(written.sidecarPath), bundle.sidecar);
  });
});

Deno.test("resolveBundlePath() takes a .onnx file or a directory holding exactly one", async () => {
  await withTempDir(async (dir) => {
    await writeExample(`${dir}/one/model.onnx`);
    assert.equal(await resolveBundlePath(`${dir}/one/model.onnx`), `${dir}/one/model.onnx`);
    assert.equal(await resolveBundlePath(`${dir}/one`), `${dir}/one/model.onnx`);
    assert.equal(await resolveBundlePath(`${dir}/one/`), `${dir}/one/model.onnx`);

    await Deno.mkdir(`${dir}/none`);
    await assertRejectsWith(
      () => resolveBundlePath(`${dir}/none`),
      BundleError,
      `Cannot load bundle: directory ${dir}/none holds no bundle (no .onnx or .pt file; it is empty)`,
    );
    await writeExample(`${dir}/two/a.onnx`);
    await writeExample(`${dir}/two/b.onnx`);
    await assertRejectsWith(
      () => resolveBundlePath(`${dir}/two`),
      BundleError,
      `Cannot load bundle: directory ${dir}/two holds 2 bundles (a.onnx, b.onnx)`,
    );
    await assertRejectsWith(
      () => resolveBundlePath(`${dir}/nowhere.onnx`),
      BundleError,
      `Cannot load bundle: ${dir}/nowhere.onnx does not exist`,
    );
    await assertRejectsWith(
      () => resolveBundlePath(`${dir}/one/model.onnx.meta.json`),
      BundleError,
      "is a sidecar; pass the .onnx file beside it",
    );
  });
});

Deno.test("resolveBundlePath() and readBundle() take a PETRA .pt bundle the same way", async () => {
  await withTempDir(async (dir) => {
    const fixture = new URL("../../fixtures/conformance/paint_shop/", import.meta.url);
    await Deno.mkdir(`${dir}/pt`);
    await Deno.copyFile(new URL("model.pt", fixture), `${dir}/pt/paint.pt`);
    assert.equal(await resolveBundlePath(`${dir}/pt`), `${dir}/pt/paint.pt`);
    await assertRejectsWith(
      () => readBundle(ORT, `${dir}/pt`),
      BundleError,
      `Cannot load bundle: ${dir}/pt/paint.pt.meta.json is missing`,
    );
    await Deno.copyFile(new URL("model.pt.meta.json", fixture), `${dir}/pt/paint.pt.meta.json`);
    {
      await using model = await readBundle(ORT, `${dir}/pt`);
      assert.equal(model.sidecar.scenario_name, "paint_shop");
      assert.equal(model.net.durations.get("t_cure"), 3);
    }
    await assertRejectsWith(
      () => resolveBundlePath(`${dir}/pt/paint.pt.meta.json`),
      BundleError,
      "is a sidecar; pass the .pt file beside it",
    );
    await writeExample(`${dir}/pt/other.onnx`);
    await assertRejectsWith(
      () => resolveBundlePath(`${dir}/pt`),
      BundleError,
      `Cannot load bundle: directory ${dir}/pt holds 2 bundles (other.onnx, paint.pt)`,
    );
  });
});

Deno.test("readBundle() names a missing sidecar or model file", async () => {
  await withTempDir(async (dir) => {
    await writeExample(`${dir}/model.onnx`);
    await Deno.remove(`${dir}/model.onnx.meta.json`);
    await assertRejectsWith(
      () => readBundle(ORT, `${dir}/model.onnx`),
      BundleError,
      `Cannot load bundle: ${dir}/model.onnx.meta.json is missing`,
    );
    await assertRejectsWith(
      () => readBundle(ORT, dir),
      BundleError,
      `Cannot load bundle: ${dir}/model.onnx.meta.json is missing`,
    );
    await assertRejectsWith(
      () => readBundle(ORT, new URL(`file://${dir}/gone.onnx`)),
      BundleError,
      `Cannot load bundle: ${dir}/gone.onnx does not exist`,
    );
  });
});

Deno.test("readBundle() loads the embedded example bundle", async () => {
  await using model = await readBundle(ORT, EXAMPLE_BUNDLE_URL);
  assert.equal(model.sidecar.scenario_name, "credit_approval_coloured");
  assert.deepEqual(model.net.transitions, ["t_approve", "t_decline"]);
});

Deno.test("readBundle() compiles a model description in memory; Model.name is the scenario, else the stem", async () => {
  await withTempDir(async (dir) => {
    const description = JSON.parse(
      await Deno.readTextFile("examples/rest_serving/rest_serving.model.json"),
    );
    await Deno.writeTextFile(`${dir}/loans.model.json`, JSON.stringify(description));
    {
      await using model = await readBundle(ORT, `${dir}/loans.model.json`);
      assert.equal(model.name, "rest_serving");
      assert.deepEqual(model.net.transitions, ["t_approve", "t_decline"]);
    }
    delete description.scenario_name;
    await Deno.writeTextFile(`${dir}/loans.model.json`, JSON.stringify(description));
    {
      await using model = await readBundle(ORT, `${dir}/loans.model.json`);
      assert.equal(model.sidecar.scenario_name, null);
      assert.equal(model.name, "loans");
    }
    await writeExample(`${dir}/big.onnx`);
    const sidecar = JSON.parse(await Deno.readTextFile(`${dir}/big.onnx.meta.json`));
    await Deno.writeTextFile(
      `${dir}/big.onnx.meta.json`,
      JSON.stringify({ ...sidecar, scenario_name: null }),
    );
    await using model = await readBundle(ORT, new URL(`file://${dir}/big.onnx`));
    assert.equal(model.name, "big");
  });
});

Deno.test("readBundle() names what a wrong model file holds before looking for its sidecar", async () => {
  await withTempDir(async (dir) => {
    const cases: [string, string | Uint8Array, string][] = [
      ["log.onnx", "case_id,activity\nA,submit\n", "log.onnx is CSV text (an event log?)"],
      ["page.pt", "<!doctype html><html></html>", "page.pt is an HTML page, not a PETRA .pt"],
      ["model.json", Uint8Array.of(8, 8, 18, 12), "model.json is an ONNX model, not a model"],
      ["empty.onnx", "", "empty.onnx is empty"],
    ];
    for (const [name, bytes, message] of cases) {
      await Deno.writeFile(
        `${dir}/${name}`,
        typeof bytes === "string" ? new TextEncoder().encode(bytes) : bytes,
      );
      await assertRejectsWith(() => readBundle(ORT, `${dir}/${name}`), BundleError, message);
    }
  });
});
