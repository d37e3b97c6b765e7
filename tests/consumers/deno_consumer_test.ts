/**
 * The README's Deno service, as written, in a consumer project outside the repository that
 * got the package the way the README says (`deno add jsr:@petri/serve`, here resolved through
 * `links` to this checkout): run with the README's permission flags, it reads a bundle with
 * `@petri/serve/deno` (the example `.onnx`, then a PETRA `.pt`), serves it with
 * `@petri/serve/server`, answers every recorded request of the four operations exactly as the
 * real server (`cli.ts serve`) does, prints nothing on stderr with the README's `deno.json`, and
 * drains and exits 0 on SIGTERM.
 *
 * @module
 */

import assert from "node:assert/strict";
import { bundleFiles, REFERENCE_BUNDLES, serverCases } from "./cases.ts";
import { denoConsumer } from "./consumer_project.ts";
import { startService } from "./service_process.ts";
import { denoAddImports, librarySection, readmeCommands, readmeFile } from "./readme.ts";

/** The README's command that runs `service.ts`, without the bundle argument. */
async function serviceCommand(): Promise<string[]> {
  const command = /`deno (run [^`]* service\.ts) model\.onnx`/.exec(await librarySection());
  assert.ok(command, "README.md's library section shows no `deno run ... service.ts model.onnx`");
  return command[1]!.split(" ");
}

Deno.test("the README's Deno service answers as the server does, on an .onnx and a .pt bundle", async (t) => {
  const cases = await serverCases();
  const [install] = await readmeCommands("deno add ");
  assert.ok(install !== undefined, "README.md's library section shows no `deno add`");
  await using project = await denoConsumer(
    { "service.ts": await readmeFile("service.ts") },
    await denoAddImports(install),
  );
  // The README's deno.json (no "Ignored build scripts" box): then the service prints nothing.
  const config = JSON.parse(await Deno.readTextFile(`${project.dir}/deno.json`));
  const readmeConfig = JSON.parse(await readmeFile("deno.json"));
  await project.write("deno.json", JSON.stringify({ ...config, ...readmeConfig }, null, 2));
  const command = await serviceCommand();
  for (const bundle of REFERENCE_BUNDLES) {
    await t.step(bundle.name, async () => {
      const { model, sidecar } = await bundleFiles(bundle);
      await project.write(bundle.name, model);
      await project.write(`${bundle.name}.meta.json`, sidecar);
      await using service = await startService(project.dir, Deno.execPath(), [
        ...command,
        bundle.name,
      ]);
      const mine = cases.filter((c) => c.bundle === bundle.name);
      for (const { path, body, answer } of mine) {
        const response = await fetch(`${service.url}${path}`, {
          method: "POST",
          body: JSON.stringify(body),
        });
        assert.equal(response.status, 200, `${path} ${JSON.stringify(body)}`);
        assert.deepEqual(await response.json(), answer, `${path} ${JSON.stringify(body)}`);
      }
      const ready = await fetch(`${service.url}/readyz`);
      assert.equal(ready.status, 200);
      await ready.body?.cancel();
      service.kill("SIGTERM");
      const { code, stderr } = await service.finished();
      assert.equal(code, 0, stderr);
      assert.equal(stderr, "", "the service printed a notice");
    });
  }
});
