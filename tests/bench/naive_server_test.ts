/**
 * The naive baseline server of `bench/naive_server.ts` answers POST /forward with the same
 * numbers as `cli.ts serve` (within 1e-5), with either ORT (`--ort node`, `--ort web`), on the
 * credit-approval example and on a 60-place layered net, and refuses an unknown place with
 * 400: a baseline that computed something else would make `bench/http_load.ts`'s ratios
 * meaningless.
 *
 * @module
 */

import assert from "node:assert/strict";
import { compileBundle } from "../../core/bundle/mod.ts";
import { EXAMPLE_BUNDLE_URL, writeBundle } from "../../adapter/deno/bundle_files.ts";
import { EXAMPLE_BODIES, layeredBodies } from "../../bench/http_load.ts";
import { layeredModel } from "../../bench/layered_net.ts";
import { nativeLockFlag } from "../../bench/native_lock.ts";
import { startServerProcess, tempDir } from "../cli/serve/server_process.ts";

type Answer = {
  transition_activations: Record<string, number>;
  place_activations: Record<string, number>;
};

async function forward(origin: string, body: string): Promise<Answer> {
  const response = await fetch(`${origin}/forward`, { method: "POST", body });
  const text = await response.text();
  assert.equal(response.status, 200, text);
  return JSON.parse(text);
}

function assertClose(actual: Record<string, number>, expected: Record<string, number>) {
  assert.deepEqual(Object.keys(actual).sort(), Object.keys(expected).sort());
  for (const [id, value] of Object.entries(expected)) {
    assert.ok(Math.abs(actual[id]! - value) <= 1e-5, `${id}: ${actual[id]} against ${value}`);
  }
}

Deno.test("the naive server's /forward equals cli.ts serve's, with both ORTs", async () => {
  await using dir = await tempDir();
  const layered = `${dir.path}/layered_60.onnx`;
  const model = layeredModel(60);
  await writeBundle(layered, await compileBundle(model, { savedAt: new Date(0) }));
  const nets = [
    { bundle: EXAMPLE_BUNDLE_URL.pathname, bodies: EXAMPLE_BODIES.forward.slice(0, 4) },
    { bundle: layered, bodies: layeredBodies(model).forward.slice(0, 3) },
  ];
  for (const { bundle, bodies } of nets) {
    await using serve = await startServerProcess([
      "run",
      "-A",
      "cli.ts",
      "serve",
      bundle,
      "--port",
      "0",
    ]);
    const expected = await Promise.all(bodies.map((body) => forward(serve.origin, body)));
    for (const ort of ["node", "web"]) {
      await using naive = await startServerProcess(
        ["run", "-A", nativeLockFlag(), "bench/naive_server.ts", "--ort", ort, bundle],
      );
      assert.match(naive.firstLine, new RegExp(`^naive \\(${ort}\\) on http`));
      for (const [i, body] of bodies.entries()) {
        const answer = await forward(naive.origin, body);
        assertClose(answer.transition_activations, expected[i]!.transition_activations);
        assertClose(answer.place_activations, expected[i]!.place_activations);
      }
      const refused = await fetch(`${naive.origin}/forward`, {
        method: "POST",
        body: JSON.stringify({ input_marking: { p_no_such_place: 1 } }),
      });
      assert.equal(refused.status, 400);
      assert.match(await refused.text(), /p_no_such_place/);
      naive.kill("SIGTERM");
      assert.equal((await naive.finished()).code, 0);
    }
  }
});
