/**
 * The core in Node, as a Node user gets it from JSR: `npx jsr add @petri/serve` is emulated by
 * installing the tarball `npm_package.ts` builds (what npm.jsr.io serves: transpiled modules,
 * npm dependencies in `package.json`) under the name `@petri/serve`, as `jsr add` aliases it,
 * beside `onnxruntime-web@1.30.0` from npm. In that project, outside the repository, Node runs
 * the README's `score.mjs` as written and the four operations on both reference bundles, and
 * the numbers equal the server's. `onnxruntime-node@1.30.0` runs the same cases through the
 * same injected module (installed with `ONNXRUNTIME_NODE_INSTALL=skip`, its documented way to
 * skip the CUDA download from NuGet); native kernels round differently from the WASM ones, so
 * its numbers are compared within 1e-5.
 *
 * @module
 */

import assert from "node:assert/strict";
import {
  bundleFiles,
  type Case,
  findCase,
  REFERENCE_BUNDLES,
  RUN_CASES_MODULE,
  serverCases,
} from "./cases.ts";
import { emptyProject, installed, npmInstall, succeeded } from "./consumer_project.ts";
import { packCoreForNpm } from "./npm_package.ts";
import { packageInfo, readmeCommands, readmeFile } from "./readme.ts";

const RUN_ALL = `import { readFile } from "node:fs/promises";
import { runCases } from "./run_cases.mjs";

const [runtime, casesFile] = process.argv.slice(2);
const loaded = await import(runtime);
const ort = loaded.InferenceSession ? loaded : loaded.default;
if (ort.env.wasm) ort.env.wasm.numThreads = 1;
const cases = JSON.parse(await readFile(casesFile, "utf8"));
const answers = await runCases(ort, cases, async (name) => ({
  model: await readFile(name),
  sidecar: await readFile(name + ".meta.json", "utf8"),
}));
process.stdout.write(JSON.stringify(answers));
`;

const hasNode = installed("node") && installed("npm");

/** Parses each answer text and compares it with the server's answer, numbers within `atol`. */
function assertAnswers(cases: readonly Case[], answers: readonly string[], atol = 0): void {
  assert.equal(answers.length, cases.length);
  cases.forEach((c, i) => {
    const where = `${c.bundle} ${c.path} ${JSON.stringify(c.body)}`;
    if (atol === 0) assert.deepEqual(JSON.parse(answers[i]!), c.answer, where);
    else assertClose(JSON.parse(answers[i]!), c.answer, atol, where);
  });
}

function assertClose(actual: unknown, expected: unknown, atol: number, where: string): void {
  if (typeof expected === "number") {
    assert.equal(typeof actual, "number", where);
    assert.ok(
      Math.abs((actual as number) - expected) <= atol,
      `${where}: ${actual} vs ${expected}`,
    );
  } else if (Array.isArray(expected)) {
    assert.ok(Array.isArray(actual) && actual.length === expected.length, where);
    expected.forEach((e, i) => assertClose(actual[i], e, atol, `${where}[${i}]`));
  } else if (typeof expected === "object" && expected !== null) {
    assert.ok(typeof actual === "object" && actual !== null, where);
    assert.deepEqual(Object.keys(actual).sort(), Object.keys(expected).sort(), where);
    for (const [key, value] of Object.entries(expected)) {
      assertClose((actual as Record<string, unknown>)[key], value, atol, `${where}.${key}`);
    }
  } else {
    assert.equal(actual, expected, where);
  }
}

Deno.test({
  name:
    "Node runs the core from its npm tarball: the README's score.mjs and all four operations equal the server's",
  ignore: !hasNode,
  async fn(t) {
    const cases = await serverCases();
    const { name } = await packageInfo();
    // The README's install lines, as a Node user types them.
    assert.deepEqual(await readmeCommands("npx "), [`npx jsr add ${name}`]);
    const [installOrt] = await readmeCommands("npm install ");
    assert.equal(installOrt, "npm install onnxruntime-web@1.30.0");

    await using tarball = await packCoreForNpm();
    assert.deepEqual(Object.keys(tarball.manifest.dependencies).sort(), [
      "fflate",
      "papaparse",
      "saxes",
      "zod",
    ]);
    await using project = await emptyProject();
    await project.write("package.json", '{ "private": true, "type": "module" }\n');
    // `npx jsr add` installs npm:@jsr/petri__serve under the package's own name.
    await npmInstall(project, [`${name}@file:${tarball.path}`, "onnxruntime-web@1.30.0"]);
    for (const bundle of REFERENCE_BUNDLES) {
      const { model, sidecar } = await bundleFiles(bundle);
      await project.write(bundle.name, model);
      await project.write(`${bundle.name}.meta.json`, sidecar);
    }
    await project.write("cases.json", JSON.stringify(cases));
    await project.write("run_cases.mjs", RUN_CASES_MODULE);
    await project.write("run_all.mjs", RUN_ALL);

    await t.step("the README's score.mjs, as written", async () => {
      const example = REFERENCE_BUNDLES[0]!;
      const { model, sidecar } = await bundleFiles(example);
      await project.write("model.onnx", model);
      await project.write("model.onnx.meta.json", sidecar);
      await project.write("score.mjs", await readmeFile("score.mjs"));
      const printed = succeeded("node score.mjs", await project.run("node", ["score.mjs"]));
      const expected = findCase(cases, example.name, "/forward", {
        input_marking: { p_submitted: 1 },
      });
      assert.deepEqual(
        JSON.parse(printed),
        (expected.answer as { transition_activations: unknown }).transition_activations,
      );
    });

    await t.step("forward, anomaly, counterfactual, sensitivity with onnxruntime-web", async () => {
      const output = await project.run("node", ["run_all.mjs", "onnxruntime-web", "cases.json"]);
      assertAnswers(cases, JSON.parse(succeeded("node run_all.mjs onnxruntime-web", output)));
    });

    await t.step("the same cases with onnxruntime-node", async () => {
      await npmInstall(project, ["onnxruntime-node@1.30.0"], { ONNXRUNTIME_NODE_INSTALL: "skip" });
      const output = await project.run("node", ["run_all.mjs", "onnxruntime-node", "cases.json"]);
      assertAnswers(
        cases,
        JSON.parse(succeeded("node run_all.mjs onnxruntime-node", output)),
        1e-5,
      );
    });
  },
});
