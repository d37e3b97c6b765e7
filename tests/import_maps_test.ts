/**
 * The browser-only configs (`core/deno.browser.json` for `check:core`, `web/deno.browser.json`
 * for the playground) repeat `deno.json`'s import map; this keeps every copy pinned to the same
 * versions.
 *
 * @module
 */

import assert from "node:assert/strict";

const read = async (path: string) =>
  JSON.parse(await Deno.readTextFile(new URL(`../${path}`, import.meta.url))) as {
    imports: Record<string, string>;
  };

Deno.test("browser configs pin the same npm versions as deno.json", async () => {
  const { imports } = await read("deno.json");
  for (const path of ["core/deno.browser.json", "web/deno.browser.json"]) {
    const copy = (await read(path)).imports;
    assert.ok(Object.keys(copy).length > 0, `${path} has no imports`);
    for (const [name, specifier] of Object.entries(copy)) {
      assert.equal(specifier, imports[name], `${path}: ${name}`);
    }
  }
});
