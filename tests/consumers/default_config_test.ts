/**
 * The package in a consumer project whose `deno.json` holds nothing but what `deno add` writes:
 * every export (`deno.json`'s `exports`) type-checks under Deno's default compiler options (no
 * `exactOptionalPropertyTypes`, no `noUncheckedIndexedAccess`); the "Ignored build scripts"
 * boxes of a first run name exactly the packages the README explains; and with the README's
 * `deno.json` (their `allowScripts` denied) `deno check` prints nothing but its `Check` line.
 *
 * @module
 */

import assert from "node:assert/strict";
import { type ConsumerProject, denoConsumer, succeeded } from "./consumer_project.ts";
import { denoAddImports, packageInfo, readmeFile } from "./readme.ts";
import { ignoredScripts } from "./ignored_scripts.ts";

const ROOT = new URL("../../", import.meta.url);

/** A module importing every export of the package as a namespace, and using each. */
async function everyExport(): Promise<string> {
  const { name } = await packageInfo();
  const config = JSON.parse(await Deno.readTextFile(new URL("deno.json", ROOT)));
  const exports = Object.keys(config.exports as Record<string, string>);
  assert.ok(exports.length >= 4, exports.join());
  const specifier = (key: string) => key === "." ? name : `${name}${key.slice(1)}`;
  return exports.map((key, i) => `import * as entry${i} from "${specifier(key)}";\n`).join("") +
    `console.log(${exports.map((_, i) => `Object.keys(entry${i}).length`).join(", ")});\n`;
}

/** Runs `deno check main.ts` and returns its stderr, failing when it does not exit 0. */
async function check(project: ConsumerProject): Promise<string> {
  const output = await project.deno(["check", "main.ts"]);
  succeeded("deno check main.ts", output);
  return output.stderr;
}

/** Stderr without the lines that say which modules were checked. */
function notices(stderr: string): string {
  return stderr.split("\n").filter((line) => line !== "" && !/^Check /.test(line)).join("\n");
}

Deno.test("every export type-checks with a consumer's default deno.json; its boxes are the README's three", async (t) => {
  const { name } = await packageInfo();
  const imports = await denoAddImports(`deno add jsr:${name}`);
  const main = await everyExport();
  const readmeConfig = JSON.parse(await readmeFile("deno.json")) as {
    allowScripts: { deny: string[] };
  };
  const denied = readmeConfig.allowScripts.deny.map((spec) => spec.replace(/^npm:/, "")).sort();

  await t.step("deno check with only `deno add`'s imports", async () => {
    await using project = await denoConsumer({ "main.ts": main }, imports);
    const stderr = await check(project);
    // A new project's first run names every package with an install script, once.
    const named = ignoredScripts(stderr).map((spec) => /^npm:(@?[^@]+)@/.exec(spec)![1]!).sort();
    assert.deepEqual(named, denied, stderr);
    assert.deepEqual(ignoredScripts(await check(project)), [], "a box again on the second run");
  });

  await t.step("with the README's deno.json: nothing but the Check line", async () => {
    await using project = await denoConsumer({ "main.ts": main }, imports);
    const config = JSON.parse(await Deno.readTextFile(`${project.dir}/deno.json`));
    await project.write("deno.json", JSON.stringify({ ...config, ...readmeConfig }, null, 2));
    assert.equal(notices(await check(project)), "");
  });
});
