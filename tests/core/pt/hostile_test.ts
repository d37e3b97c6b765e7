/**
 * The hostile table, in process: every file of tests/fixtures/conformance/hostile_pt and every
 * case of ./hostile_cases.ts is refused by `readPtModel` with a `BundleError` naming the file
 * and the reason, no marker file appears, and no prototype gains a key. The real CLI on the
 * same files is ./hostile_cli_test.ts.
 *
 * @module
 */

import assert from "node:assert/strict";
import { BundleError } from "../../../core/bundle/mod.ts";
import { PT_LIMITS } from "../../../core/pt/pt_limits.ts";
import { readPtModel } from "../../../core/pt/read_pt_model.ts";
import { readTorchZip } from "../../../core/pt/read_torch_zip.ts";
import { unpickle } from "../../../core/pt/unpickle.ts";
import { hostileCases, MARKER, RECORDED_HOSTILE } from "./hostile_cases.ts";
import { CONFORMANCE } from "../../conformance/fixtures.ts";
import { fixtureSidecar, Pickle, torchZip } from "./pickles.ts";

function refuse(pt: Uint8Array, ptName: string, sidecar: string): Error {
  try {
    readPtModel({ pt, sidecar, ptName, sidecarName: `${ptName}.meta.json` });
  } catch (error) {
    assert.ok(error instanceof BundleError, String(error));
    return error;
  }
  assert.fail(`${ptName} was accepted`);
}

function prototypesUntouched(): void {
  for (const proto of [Object.prototype, Map.prototype, Array.prototype, Function.prototype]) {
    for (const key of ["polluted", "net", "system"]) {
      assert.equal(Object.hasOwn(proto, key), false, `a prototype gained ${key}`);
    }
  }
}

Deno.test("readPtModel() refuses every file of hostile_pt/ naming the file and the reason", async (t) => {
  await Deno.remove(MARKER).catch(() => {});
  for (const { file, inProcess: reason } of RECORDED_HOSTILE) {
    await t.step(file, async () => {
      const url = new URL(`hostile_pt/${file}`, CONFORMANCE);
      const error = refuse(
        await Deno.readFile(url),
        file,
        await Deno.readTextFile(new URL(`${url.href}.meta.json`)),
      );
      assert.match(error.message, new RegExp(`^Cannot load bundle: ${file.replace(".", "\\.")} `));
      assert.match(error.message, reason);
      assert.ok(!error.message.includes("\n"));
    });
  }
  await assert.rejects(Deno.stat(MARKER), Deno.errors.NotFound);
  prototypesUntouched();
});

Deno.test("readPtModel() refuses every built hostile file", async (t) => {
  const dir = await Deno.makeTempDir();
  try {
    const marker = `${dir}/marker`;
    const sidecar = await fixtureSidecar("rest_serving");
    for (const { name, pt, reason } of await hostileCases(marker)) {
      await t.step(name, () => {
        const error = refuse(pt, "hostile.pt", sidecar);
        assert.match(error.message, /^Cannot load bundle: hostile\.pt /);
        assert.match(error.message, reason);
      });
    }
    await assert.rejects(Deno.stat(marker), Deno.errors.NotFound);
    prototypesUntouched();
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("unpickle() keeps a __proto__ key as a Map key", () => {
  const value = unpickle(
    new Pickle().proto().emptyDict().unicode("__proto__").emptyDict().unicode("polluted")
      .raw(0x88).setitem().setitem().stop().bytes(),
  );
  assert.ok(value instanceof Map);
  assert.equal(Object.getPrototypeOf(value), Map.prototype);
  const inner = value.get("__proto__");
  assert.ok(inner instanceof Map && inner.get("polluted") === true);
  prototypesUntouched();
});

Deno.test("readTorchZip() bounds the entry count and the pickle length", () => {
  const entries: Record<string, Uint8Array> = { "data.pkl": new Uint8Array([0x80, 2, 0x2e]) };
  for (let i = 0; i < 20; i++) entries[`extra/${i}`] = new Uint8Array(1);
  const zip = torchZip("model", entries);
  assert.throws(
    () => readTorchZip(zip, "many.pt", { ...PT_LIMITS, maxEntries: 10 }),
    /^BundleError: Cannot load bundle: many\.pt has more than 10 zip entries$|many\.pt has more than 10 zip entries/,
  );
  assert.throws(
    () => unpickle(new Uint8Array(100), { ...PT_LIMITS, maxPickleBytes: 99 }),
    /the pickle is 100 bytes, over the 99 limit/,
  );
  assert.throws(
    () => readTorchZip(zip, "big.pt", { ...PT_LIMITS, maxFileBytes: 100 }),
    /big\.pt is \d+ bytes, over the 100 limit/,
  );
});
