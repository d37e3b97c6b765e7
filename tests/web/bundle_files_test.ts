import assert from "node:assert/strict";
import { BundleError } from "../../core/bundle/mod.ts";
import {
  pairBundleFiles,
  pairPickedBundle,
  type PickedFile,
  readPickedFiles,
} from "../../web/bundle_files.ts";

const text = (name: string, content: string): PickedFile => ({
  name,
  bytes: new TextEncoder().encode(content),
});
const onnx = (name: string): PickedFile => ({ name, bytes: new Uint8Array([8, 9]) });

function pairError(files: PickedFile[]): string {
  try {
    pairBundleFiles(files);
  } catch (error) {
    assert.ok(error instanceof BundleError);
    return error.message;
  }
  assert.fail("pairBundleFiles() accepted the files");
}

Deno.test("pairBundleFiles() pairs a model with its sidecar and ignores other files", () => {
  const files = pairBundleFiles([
    text("notes.txt", "hello"),
    text("m.onnx.meta.json", '{"format": 1}'),
    onnx("m.onnx"),
  ]);
  assert.equal(files.onnxName, "m.onnx");
  assert.equal(files.sidecarName, "m.onnx.meta.json");
  assert.equal(files.sidecar, '{"format": 1}');
  assert.deepEqual([...files.onnx], [8, 9]);
});

Deno.test("pairBundleFiles() names the missing sidecar", () => {
  assert.equal(
    pairError([onnx("m.onnx")]),
    "Cannot load bundle: m.onnx.meta.json is missing (pick it together with m.onnx)",
  );
  assert.equal(
    pairError([onnx("m.onnx"), text("other.onnx.meta.json", "{}")]),
    "Cannot load bundle: m.onnx.meta.json is missing (pick it together with m.onnx); " +
      "other.onnx.meta.json belongs to another bundle",
  );
});

Deno.test("pairBundleFiles() names the missing model", () => {
  assert.equal(
    pairError([text("m.onnx.meta.json", "{}")]),
    "Cannot load bundle: m.onnx is missing (pick it together with m.onnx.meta.json)",
  );
});

Deno.test("pairBundleFiles() refuses several models and files that are no bundle", () => {
  assert.equal(
    pairError([onnx("b.onnx"), onnx("a.onnx")]),
    "Cannot load bundle: pick one bundle at a time (got a.onnx, b.onnx)",
  );
  assert.match(pairError([text("model.json", "{}")]), /no \.onnx file among model\.json/);
  assert.match(pairError([]), /no \.onnx file among the files/);
});

Deno.test("pairBundleFiles() refuses a sidecar that is not text", () => {
  assert.equal(
    pairError([onnx("m.onnx"), { name: "m.onnx.meta.json", bytes: new Uint8Array([0xff, 0xfe]) }]),
    "Cannot load bundle: m.onnx.meta.json is not a text file (expected JSON)",
  );
});

Deno.test("readPickedFiles() reads File objects", async () => {
  const [file] = await readPickedFiles([new File(["{}"], "m.onnx.meta.json")]);
  assert.equal(file?.name, "m.onnx.meta.json");
  assert.deepEqual([...file!.bytes], [123, 125]);
});

Deno.test("pairPickedBundle() pairs PETRA's .pt with its sidecar, else a .onnx pair", () => {
  const pt = pairPickedBundle([
    text("m.pt.meta.json", '{"scenario_name": "m"}'),
    onnx("m.pt"),
    text("notes.txt", "x"),
  ]);
  assert.ok("pt" in pt);
  assert.equal(pt.ptName, "m.pt");
  assert.equal(pt.sidecarName, "m.pt.meta.json");
  assert.equal(pt.sidecar, '{"scenario_name": "m"}');
  const pair = pairPickedBundle([onnx("m.onnx"), text("m.onnx.meta.json", "{}")]);
  assert.ok("onnx" in pair);
  assert.throws(
    () => pairPickedBundle([onnx("m.pt")]),
    /^BundleError: Cannot load bundle: m\.pt\.meta\.json is missing \(pick it together with m\.pt\)$/,
  );
  assert.throws(
    () => pairPickedBundle([onnx("m.pt"), onnx("m.onnx")]),
    /pick one bundle at a time \(got m\.onnx, m\.pt\)/,
  );
});
