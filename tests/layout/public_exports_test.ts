/**
 * The public names of each `deno.json` export stay what `public_exports.json` records: a move
 * inside the package must not rename, add or drop what a user imports.
 *
 * @module
 */

import assert from "node:assert/strict";

const ROOT = new URL("../../", import.meta.url);

/** The names `deno doc` lists for the module at `path` (relative to the repository). */
async function exportedNames(path: string): Promise<string[]> {
  const output = await new Deno.Command(Deno.execPath(), {
    args: ["doc", "--json", path],
    cwd: ROOT,
    stdout: "piped",
    stderr: "piped",
  }).output();
  assert.ok(output.success, new TextDecoder().decode(output.stderr));
  const doc = JSON.parse(new TextDecoder().decode(output.stdout)) as {
    nodes: Record<string, { symbols?: { name: string }[] }>;
  };
  const names = Object.values(doc.nodes).flatMap((node) => node.symbols ?? []);
  return [...new Set(names.map((symbol) => symbol.name))].sort();
}

Deno.test("each deno.json export keeps the public names recorded in public_exports.json", async () => {
  const config = JSON.parse(await Deno.readTextFile(new URL("deno.json", ROOT))) as {
    exports: Record<string, string>;
  };
  const recorded = JSON.parse(
    await Deno.readTextFile(new URL("public_exports.json", import.meta.url)),
  ) as Record<string, string[]>;
  assert.deepEqual(Object.keys(config.exports).sort(), Object.keys(recorded).sort());
  for (const [entry, path] of Object.entries(config.exports)) {
    assert.deepEqual(await exportedNames(path), recorded[entry], `export ${entry} (${path})`);
  }
});
