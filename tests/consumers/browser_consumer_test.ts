/**
 * A browser app built on the core, as the README's browser section builds one: a consumer
 * project outside the repository (`deno add jsr:@petri/serve npm:onnxruntime-web@1.30.0`,
 * resolved through `links` to this checkout) bundled with `deno bundle --platform browser`,
 * served by a plain static server, and opened in Debian's Chromium. The README's `app.ts` and
 * `index.html` run as written, served with exactly the files the README lists (any other request
 * is answered 404 and fails the test), and show the server's number; a second page, bundled the same way, runs forward, anomaly, counterfactual and
 * sensitivity on the example `.onnx` bundle and a PETRA `.pt` bundle and gets exactly the
 * server's answers. The minified and gzipped sizes of both apps without onnxruntime-web are
 * held to a budget (see {@link BUDGETS}).
 *
 * @module
 */

import assert from "node:assert/strict";
import { extname } from "node:path";
import {
  bundleFiles,
  findCase,
  REFERENCE_BUNDLES,
  RUN_CASES_MODULE,
  serverCases,
} from "./cases.ts";
import { type ConsumerProject, denoConsumer, succeeded } from "./consumer_project.ts";
import { browserSiteFiles, denoAddImports, readmeCommands, readmeFile } from "./readme.ts";
import { hasChromium, launchChromium } from "../web/browser.ts";

/**
 * Bundle budgets in bytes, without onnxruntime-web: the README's app (open a bundle, run
 * forward) and the app running all four operations with request validation (zod, which is
 * most of it). Measured at 129,390 / 43,793 and 614,713 / 147,506 bytes (minified / gzipped)
 * when set, so about 15% of headroom.
 */
export const BUDGETS = {
  readmeApp: { minified: 150_000, gzipped: 50_000 },
  allOperations: { minified: 700_000, gzipped: 165_000 },
} as const;

const ALL_OPERATIONS_APP = `import * as ort from "onnxruntime-web";
import { runCases } from "./run_cases.mjs";

ort.env.wasm.wasmPaths = "/ort/";
ort.env.wasm.numThreads = 1;
const state = globalThis as { answers?: string[]; failure?: string };
try {
  const cases = await (await fetch("/cases.json")).json();
  state.answers = await runCases(ort, cases, async (name: string) => ({
    model: new Uint8Array(await (await fetch(\`/bundles/\${name}\`)).arrayBuffer()),
    sidecar: await (await fetch(\`/bundles/\${name}.meta.json\`)).text(),
  }));
} catch (error) {
  state.failure = String((error as Error).stack ?? error);
}
`;

const ALL_OPERATIONS_PAGE = `<!doctype html>
<script type="module" src="all.js"></script>
`;

const CONTENT_TYPES: Readonly<Record<string, string>> = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".mjs": "text/javascript; charset=utf-8",
  ".json": "application/json",
  ".wasm": "application/wasm",
};

/** onnxruntime-web's `dist/` directory in Deno's npm cache. */
const ORT_DIST = new URL(".", import.meta.resolve("onnxruntime-web/ort-wasm-simd-threaded.wasm"));

/** The browser asks for it by itself; no page refers to it. */
const FAVICON = "/favicon.ico";

/**
 * Serves the project's files at `/` and onnxruntime-web's `dist/` at `/ort/`, those `served`
 * allows; every other path is answered 404 and recorded in `refused`.
 */
function staticSite(
  project: ConsumerProject,
  served: (path: string) => boolean,
  refused: string[],
): Deno.HttpServer<Deno.NetAddr> {
  return Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, async (request) => {
    const path = decodeURIComponent(new URL(request.url).pathname);
    const name = path === "/" ? "/index.html" : path;
    if (path.split("/").includes("..") || !served(name)) {
      if (path !== FAVICON) refused.push(path);
      return new Response("not found", { status: 404 });
    }
    const file = name.startsWith("/ort/")
      ? new URL(name.slice("/ort/".length), ORT_DIST)
      : `${project.dir}${name}`;
    try {
      const body = await Deno.readFile(file);
      const type = CONTENT_TYPES[extname(name)] ?? "application/octet-stream";
      return new Response(body, { headers: { "content-type": type } });
    } catch {
      refused.push(path);
      return new Response("not found", { status: 404 });
    }
  });
}

/** Bundles `entry` into `out` in the project; returns the output's size, plain and gzipped. */
async function bundle(
  project: ConsumerProject,
  args: readonly string[],
  out: string,
): Promise<{ minified: number; gzipped: number }> {
  succeeded(`deno ${args.join(" ")}`, await project.deno(args));
  const bytes = await Deno.readFile(`${project.dir}/${out}`);
  const gzipped = await new Response(
    new Blob([bytes]).stream().pipeThrough(new CompressionStream("gzip")),
  ).arrayBuffer();
  return { minified: bytes.length, gzipped: gzipped.byteLength };
}

Deno.test({
  name: "a browser app bundled from the core runs in Chromium with the server's numbers",
  ignore: !hasChromium(),
  async fn(t) {
    const cases = await serverCases();
    const installs = await readmeCommands("deno add ");
    const install = installs.find((line) => line.includes("onnxruntime-web"));
    assert.ok(install, "README.md's library section shows no `deno add` with onnxruntime-web");
    const [bundleCommand] = await readmeCommands("deno bundle ");
    assert.equal(bundleCommand, "deno bundle --platform browser --minify -o app.js app.ts");

    await using project = await denoConsumer({
      "app.ts": await readmeFile("app.ts"),
      "index.html": await readmeFile("index.html"),
      "run_cases.mjs": RUN_CASES_MODULE,
      "all.ts": ALL_OPERATIONS_APP,
      "all.html": ALL_OPERATIONS_PAGE,
      "cases.json": JSON.stringify(cases),
    }, await denoAddImports(install));
    const example = REFERENCE_BUNDLES[0]!;
    for (const reference of REFERENCE_BUNDLES) {
      const { model, sidecar } = await bundleFiles(reference);
      await project.write(`bundles/${reference.name}`, model);
      await project.write(`bundles/${reference.name}.meta.json`, sidecar);
      if (reference === example) {
        await project.write("model.onnx", model);
        await project.write("model.onnx.meta.json", sidecar);
      }
    }

    const sizes = {
      readmeApp: await bundle(project, [
        ...bundleCommand.split(" ").slice(1, -3),
        "--external",
        "onnxruntime-web",
        "-o",
        "app.min.js",
        "app.ts",
      ], "app.min.js"),
      allOperations: await bundle(project, [
        ...bundleCommand.split(" ").slice(1, -3),
        "--external",
        "onnxruntime-web",
        "-o",
        "all.min.js",
        "all.ts",
      ], "all.min.js"),
    };
    console.log(`bundle sizes without onnxruntime-web: ${JSON.stringify(sizes)}`);
    for (const app of ["readmeApp", "allOperations"] as const) {
      assert.ok(sizes[app].minified <= BUDGETS[app].minified, `${app}: ${sizes[app].minified}`);
      assert.ok(sizes[app].gzipped <= BUDGETS[app].gzipped, `${app}: ${sizes[app].gzipped}`);
    }
    // The apps as served: onnxruntime-web bundled in.
    await bundle(project, bundleCommand.split(" ").slice(1), "app.js");
    await bundle(project, [
      ...bundleCommand.split(" ").slice(1, -3),
      "-o",
      "all.js",
      "all.ts",
    ], "all.js");

    // The README's page gets exactly the files the README lists; the second page its own too.
    const listed = new Set(await browserSiteFiles());
    assert.ok(
      listed.has("/app.js") && [...listed].some((p) => p.startsWith("/ort/")),
      [...listed].join(),
    );
    const own = /^\/(all\.(html|js)|cases\.json|bundles\/[^/]+)$/;
    let allPage = false;
    const refused: string[] = [];
    const site = staticSite(
      project,
      (path) => listed.has(path) || allPage && own.test(path),
      refused,
    );
    try {
      const origin = `http://127.0.0.1:${site.addr.port}`;
      await using browser = await launchChromium("wasm");
      const page = await browser.newPage();
      const errors: string[] = [];
      page.on("pageerror", (error) => errors.push(String(error)));

      await t.step("the README's app.ts and index.html, as written", async () => {
        await page.goto(`${origin}/`);
        await page.waitForFunction(
          `document.querySelector("output")?.textContent !== "running the model..."`,
          undefined,
          { timeout: 60_000 },
        );
        const shown = await page.textContent("output");
        const expected = findCase(cases, example.name, "/forward", {
          input_marking: { p_submitted: 1 },
        }).answer as { transition_activations: { t_approve: number } };
        assert.equal(shown, `approve: ${expected.transition_activations.t_approve}`);
        assert.deepEqual(errors, []);
        assert.deepEqual(refused, [], "the page asked for files the README does not list");
      });

      await t.step(
        "forward, anomaly, counterfactual, sensitivity on an .onnx and a .pt",
        async () => {
          allPage = true;
          await page.goto(`${origin}/all.html`);
          const handle = await page.waitForFunction(
            () => {
              const state = globalThis as { answers?: string[]; failure?: string };
              return state.answers ?? state.failure;
            },
            undefined,
            { timeout: 120_000 },
          );
          const answers = await handle.jsonValue();
          assert.ok(Array.isArray(answers), String(answers));
          assert.equal(answers.length, cases.length);
          cases.forEach((c, i) => {
            assert.deepEqual(
              JSON.parse(answers[i]!),
              c.answer,
              `${c.bundle} ${c.path} ${JSON.stringify(c.body)}`,
            );
          });
          assert.deepEqual(errors, []);
          assert.deepEqual(refused, []);
        },
      );
      await page.close();
    } finally {
      await site.shutdown();
    }
  },
});
