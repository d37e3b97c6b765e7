/**
 * Every example of the README's library section is one the consumer tests run: the files
 * (`deno.json` in `entry_packages_test.ts`, `service.ts` in `deno_consumer_test.ts`, `app.ts`
 * and `index.html` in `browser_consumer_test.ts`, `score.mjs` in `node_consumer_test.ts`,
 * `petri.ts`, `server.mjs` and `server_bun.mjs` in `fetch_runtimes_test.ts`) and
 * the commands (each `deno add` and `npx jsr add` emulated as the JSR tools would write it, the
 * others run).
 *
 * @module
 */

import assert from "node:assert/strict";
import { codeBlocks, denoAddImports, librarySection, packageInfo } from "./readme.ts";

Deno.test("the README's library section shows exactly the examples the consumer tests run", async () => {
  const { name } = await packageInfo();
  const blocks = codeBlocks(await librarySection());
  assert.deepEqual(blocks.filter((b) => b.lang !== "sh").map((b) => [b.lang, b.title]), [
    ["json", "deno.json"],
    ["ts", "service.ts"],
    ["ts", "app.ts"],
    ["html", "index.html"],
    ["js", "score.mjs"],
    ["ts", "petri.ts"],
    ["js", "server.mjs"],
    ["js", "server_bun.mjs"],
  ]);
  const commands = blocks.filter((b) => b.lang === "sh").flatMap((b) => b.code.trim().split("\n"));
  assert.deepEqual(commands, [
    `deno add jsr:${name}`,
    `deno add jsr:${name} npm:onnxruntime-web@1.30.0`,
    "deno bundle --platform browser --minify -o app.js app.ts",
    `npx jsr add ${name}`,
    "npm install onnxruntime-web@1.30.0",
    `deno add jsr:${name}`,
    "deno bundle --platform deno --node-modules-dir=none -o petri.mjs petri.ts",
    "npm install onnxruntime-web@1.30.0",
  ]);
});

Deno.test("denoAddImports() writes what `deno add` writes", async () => {
  const { name, version } = await packageInfo();
  assert.deepEqual(await denoAddImports(`deno add jsr:${name} npm:onnxruntime-web@1.30.0`), {
    [name]: `jsr:${name}@^${version}`,
    "onnxruntime-web": "npm:onnxruntime-web@1.30.0",
  });
  await assert.rejects(denoAddImports("deno add npm:zod"), /pinned npm: package/);
});
