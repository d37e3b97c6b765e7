/**
 * `deno task check` lints the documentation of every entry point of `deno.json`'s `exports`
 * alone (`deno doc --lint` on one file at a time), so a type that one entry point names but
 * does not export cannot hide behind another entry point that exports it.
 *
 * @module
 */

import assert from "node:assert/strict";

const ROOT = new URL("../../", import.meta.url);

Deno.test("the check task runs `deno doc --lint` on each export alone", async () => {
  const config = JSON.parse(await Deno.readTextFile(new URL("deno.json", ROOT))) as {
    exports: Record<string, string>;
    tasks: Record<string, string>;
  };
  assert.match(config.tasks.check ?? "", /&& deno task check:doc &&/);
  const commands = (config.tasks["check:doc"] ?? "").split("&&").map((c) => c.trim());
  const linted = commands.map((command) => /^deno doc --lint (\S+)$/.exec(command)?.[1]);
  assert.ok(linted.every((path) => path !== undefined), `not one file per command: ${commands}`);
  const exported = Object.values(config.exports).map((path) => path.replace(/^\.\//, ""));
  assert.deepEqual([...linted].sort(), [...exported].sort());
});
