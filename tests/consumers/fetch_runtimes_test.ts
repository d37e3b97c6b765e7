/**
 * The HTTP face under runtimes other than Deno, as the README's "A server on Node or Bun"
 * builds it: in a consumer project outside the repository (`deno add jsr:@petri/serve`,
 * resolved through `links` to this checkout), the README's `petri.ts` is bundled with its
 * `deno bundle` command, onnxruntime-web is installed from npm, and the README's `server.mjs`
 * runs under Node (`node:http` with its fetch adapter) and `server_bun.mjs` under Bun
 * (`Bun.serve`, npm's `bun` package installed with `--ignore-scripts`: its platform package
 * holds the binary). Each serves the recorded conformance models one at a time and answers
 * every recorded exchange of the four operations by its `expect.compare` rule, as
 * `cli.ts serve` does, and serves `/docs`, `/openapi.json`, `/metrics` and `/v2`.
 *
 * @module
 */

import assert from "node:assert/strict";
import { compileBundle } from "../../core/bundle/mod.ts";
import { parseModelDescription } from "../../core/net/parse.ts";
import { exchangeContext, readExchanges, replayExchanges } from "../conformance/check_exchange.ts";
import { CONFORMANCE, readConformanceDescription } from "../conformance/fixtures.ts";
import {
  type ConsumerProject,
  denoConsumer,
  installed,
  npmInstall,
  succeeded,
} from "./consumer_project.ts";
import { OPERATION_PATHS } from "./cases.ts";
import { denoAddImports, readmeCommands, readmeFile } from "./readme.ts";
import { startService } from "./service_process.ts";

/** Conformance models served: a small one, and one with softmax routing and silent transitions. */
const MODELS = ["credit_approval_coloured", "triage_softmax_ste"];

/** npm's Bun, pinned; its binary comes in a package per platform. */
const BUN = "bun@1.4.4";

const hasNode = installed("node") && installed("npm");

/** The Bun binary npm installed, from the platform package (no install script ran). */
function bunBinary(project: ConsumerProject): string {
  const os = Deno.build.os === "darwin" ? "darwin" : Deno.build.os;
  const arch = Deno.build.arch === "aarch64" ? "aarch64" : "x64";
  return `${project.dir}/node_modules/@oven/bun-${os}-${arch}/bin/bun`;
}

Deno.test({
  name: "the app on Node (node:http) and on Bun (Bun.serve) answers the conformance exchanges",
  ignore: !hasNode,
  async fn(t) {
    const commands = await readmeCommands("deno bundle --platform deno");
    assert.deepEqual(commands, [
      "deno bundle --platform deno --node-modules-dir=none -o petri.mjs petri.ts",
    ]);
    await using project = await denoConsumer({
      "petri.ts": await readmeFile("petri.ts"),
      "server.mjs": await readmeFile("server.mjs"),
      "server_bun.mjs": await readmeFile("server_bun.mjs"),
      "package.json": '{ "private": true, "type": "module" }\n',
    }, await denoAddImports("deno add jsr:@petri/serve"));
    succeeded("deno bundle", await project.deno(commands[0]!.split(" ").slice(1)));
    const [installOrt] = (await readmeCommands("npm install ")).filter((c) => c.includes("web"));
    assert.equal(installOrt, "npm install onnxruntime-web@1.30.0");
    await npmInstall(project, [installOrt!.split(" ")[2]!, BUN, "--ignore-scripts"]);
    for (const name of MODELS) {
      const description = await readConformanceDescription(name);
      const bundle = await compileBundle(parseModelDescription(description), {
        savedAt: new Date(0),
      });
      await project.write(`${name}.onnx`, bundle.onnx);
      await project.write(`${name}.onnx.meta.json`, bundle.sidecar);
    }

    const runtimes: [string, string, string][] = [
      ["Node", "node", "server.mjs"],
      ["Bun", bunBinary(project), "server_bun.mjs"],
    ];
    for (const [runtime, command, script] of runtimes) {
      for (const name of MODELS) {
        await t.step(`${runtime}: ${name}`, async (t) => {
          await using service = await startService(project.dir, command, [script, `${name}.onnx`]);
          const exchanges = (await readExchanges(new URL(`${name}/`, CONFORMANCE)))
            .filter((e) => OPERATION_PATHS.includes(e.path));
          assert.ok(exchanges.length > 0);
          const context = exchangeContext(await readConformanceDescription(name));
          await replayExchanges(t, exchanges, service.url, context);
          const docs = await fetch(`${service.url}/docs`);
          assert.equal(docs.status, 200);
          assert.match(await docs.text(), /<title>Loans 1\.0\.0 - API docs<\/title>/);
          const swagger = await fetch(`${service.url}/docs/swagger-ui-bundle.js`);
          assert.equal(swagger.status, 200);
          assert.ok((await swagger.arrayBuffer()).byteLength > 100_000);
          const openapi = await (await fetch(`${service.url}/openapi.json`)).json();
          assert.equal(openapi.info.title, "Loans");
          const metrics = await (await fetch(`${service.url}/metrics`)).text();
          assert.match(metrics, /^petri_serve_requests_total\{.*route="\/forward".*\} \d+$/m);
          const ready = await fetch(`${service.url}/v2/health/ready`);
          assert.equal(ready.status, 200);
          await ready.body?.cancel();
          service.kill("SIGTERM");
          await service.finished();
        });
      }
    }
  },
});
