/**
 * Every npm package in `deno.lock` that has a lifecycle script is decided in the `allowScripts`
 * of `deno.json` and of the browser configs that `check:core` and `check:web` use (today: all
 * denied), so a first run prints no "Ignored build scripts" box and a new dependency with an
 * install script cannot slip in unnoticed.
 *
 * @module
 */

import assert from "node:assert/strict";

const ROOT = new URL("../../", import.meta.url);
const readJson = async (path: string) =>
  JSON.parse(await Deno.readTextFile(new URL(path, ROOT))) as Record<string, unknown>;

for (const configPath of ["deno.json", "core/deno.browser.json", "web/deno.browser.json"]) {
  Deno.test(`${configPath}: every npm package with a lifecycle script is in allowScripts`, async () => {
    const lock = await readJson("deno.lock") as {
      npm: Record<string, { scripts?: boolean }>;
    };
    const withScripts = Object.entries(lock.npm)
      .filter(([, entry]) => entry.scripts === true)
      .map(([key]) => key.slice(0, key.indexOf("@", 1)));
    assert.ok(withScripts.length > 0, "deno.lock records no package with scripts");
    const config = await readJson(configPath) as {
      allowScripts?: { allow?: string[]; deny?: string[] };
    };
    const decided = new Set(
      [...config.allowScripts?.allow ?? [], ...config.allowScripts?.deny ?? []]
        .map((specifier) => specifier.replace(/^npm:/, "")),
    );
    const undecided = [...new Set(withScripts)].filter((name) => !decided.has(name)).sort();
    assert.deepEqual(undecided, []);
  });
}
