import assert from "node:assert/strict";
import { PACKAGE_LICENSE, PACKAGE_NAME, PACKAGE_VERSION } from "../../../core/bundle/version.ts";

Deno.test("PACKAGE_NAME, PACKAGE_VERSION and PACKAGE_LICENSE match deno.json and LICENSE", async () => {
  const config = JSON.parse(
    await Deno.readTextFile(new URL("../../../deno.json", import.meta.url)),
  );
  assert.equal(PACKAGE_NAME, config.name);
  assert.equal(PACKAGE_VERSION, config.version);
  assert.equal(PACKAGE_LICENSE, config.license);
  const license = await Deno.readTextFile(new URL("../../../LICENSE", import.meta.url));
  assert.ok(license.startsWith(`${PACKAGE_LICENSE} License\n`));
});
