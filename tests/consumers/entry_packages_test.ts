/**
 * What each entry point costs a consumer: the npm packages a project importing it resolves
 * (`deno info --json` in a consumer project linking this checkout, so only what that entry's
 * module graph reaches counts), and whether Deno greets it with an "Ignored build scripts" box.
 * The core (`.`) must stay free of the server's docs UIs (redoc and its React, swagger-ui-dist)
 * and of any package with an install script.
 *
 * @module
 */

import assert from "node:assert/strict";
import { denoConsumer, succeeded } from "./consumer_project.ts";
import { denoAddImports, packageInfo } from "./readme.ts";
import { ignoredScripts } from "./ignored_scripts.ts";

const ORT = "npm:onnxruntime-web@1.30.0";

/** The names of the npm packages `deno info` resolves for `main.ts` of a consumer project. */
async function npmPackages(exportName: string): Promise<Set<string>> {
  const { name } = await packageInfo();
  await using project = await denoConsumer(
    { "main.ts": `export * from "${name}${exportName.slice(1)}";\n` },
    await denoAddImports(`deno add jsr:${name}`),
  );
  const info = JSON.parse(
    succeeded("deno info", await project.deno(["info", "--json", "main.ts"])),
  );
  const packages = Object.values(info.npmPackages as Record<string, { name: string }>);
  return new Set(packages.map((p) => p.name));
}

Deno.test("ignoredScripts() reads the package lines of Deno's box", () => {
  const stderr = [
    "╭ Warning",
    "│",
    "│  Ignored build scripts for packages:",
    "│  npm:protobufjs@7.6.6",
    "│  npm:core-js@3.51.0",
    "│",
    "│  Lifecycle scripts are only supported when using a `node_modules` directory.",
  ].join("\n");
  assert.deepEqual(ignoredScripts(stderr), ["npm:core-js@3.51.0", "npm:protobufjs@7.6.6"]);
  assert.deepEqual(ignoredScripts("Download https://registry.npmjs.org/zod\n"), []);
});

Deno.test("the core (.) reaches five small npm packages, none of the server's docs UIs", async () => {
  const core = await npmPackages(".");
  assert.deepEqual([...core].sort(), ["fflate", "papaparse", "saxes", "xmlchars", "zod"]);
});

Deno.test("./deno reaches onnxruntime-web but no docs UI; ./server and ./cli carry the docs pages", async () => {
  const docsUi = ["redoc", "react", "core-js", "swagger-ui-dist"];
  const deno = await npmPackages("./deno");
  assert.ok(deno.has("onnxruntime-web"));
  assert.deepEqual(docsUi.filter((name) => deno.has(name)), []);
  for (const exportName of ["./server", "./cli"]) {
    const packages = await npmPackages(exportName);
    assert.deepEqual(docsUi.filter((name) => packages.has(name)), docsUi, exportName);
  }
});

Deno.test("a fresh consumer of the core sees no 'Ignored build scripts' box; with ORT only ORT's own", async (t) => {
  const { name } = await packageInfo();
  const description = await Deno.readTextFile(
    new URL("../../examples/rest_serving/rest_serving.model.json", import.meta.url),
  );
  const compile = `import { compileBundle, parseModelDescription } from "${name}";
const description = parseModelDescription(JSON.parse(await Deno.readTextFile("model.json")));
const { onnx } = await compileBundle(description);
console.log(onnx.length > 0 ? "compiled" : "empty");
`;
  await t.step("the core alone", async () => {
    await using project = await denoConsumer(
      { "main.ts": compile, "model.json": description },
      await denoAddImports(`deno add jsr:${name}`),
    );
    const output = await project.deno(["run", "--allow-read", "main.ts"]);
    assert.equal(succeeded("main.ts", output), "compiled\n");
    assert.doesNotMatch(output.stderr, /Ignored build scripts/);
  });
  await t.step(
    "the core with onnxruntime-web adds nothing to onnxruntime-web's own box",
    async () => {
      const useOrt = `import * as ort from "onnxruntime-web";\nconsole.log(typeof ort.Tensor);\n`;
      await using ortOnly = await denoConsumer(
        { "main.ts": useOrt },
        await denoAddImports(`deno add ${ORT}`),
      );
      const alone = await ortOnly.deno(["run", "--allow-read", "main.ts"]);
      assert.equal(succeeded("onnxruntime-web alone", alone), "function\n");
      // onnxruntime-web's own dependency protobufjs has an install script: the box is ORT's.
      assert.match(ignoredScripts(alone.stderr).join(" "), /^npm:protobufjs@7\.\S+$/);
      await using both = await denoConsumer(
        { "main.ts": useOrt + compile, "model.json": description },
        await denoAddImports(`deno add jsr:${name} ${ORT}`),
      );
      const together = await both.deno(["run", "--allow-read", "main.ts"]);
      assert.equal(succeeded("the core with onnxruntime-web", together), "function\ncompiled\n");
      assert.deepEqual(ignoredScripts(together.stderr), ignoredScripts(alone.stderr));
    },
  );
});
