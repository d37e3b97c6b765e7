import assert from "node:assert/strict";
import { PACKAGE_NAME, PACKAGE_VERSION } from "../../core/version.ts";

Deno.test("PACKAGE_NAME and PACKAGE_VERSION match deno.json", async () => {
  const config = JSON.parse(await Deno.readTextFile(new URL("../../deno.json", import.meta.url)));
  assert.equal(PACKAGE_NAME, config.name);
  assert.equal(PACKAGE_VERSION, config.version);
});
