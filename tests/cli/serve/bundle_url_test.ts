/**
 * `PETRI_SERVE_BUNDLE` as an `http(s)` URL: `deno serve adapter/deno/main.ts` (read, env and net
 * permissions only) loads a bundle from a local HTTP server, and an unreachable or missing
 * bundle stops it with one line on stderr and exit code 2.
 *
 * @module
 */

import assert from "node:assert/strict";
import { runDeno } from "../../run_deno.ts";
import { ROOT, startServerProcess } from "./server_process.ts";

const MAIN = ["serve", "--allow-read", "--allow-env", "--allow-net", "adapter/deno/main.ts"];
const ADDRESS = { DENO_SERVE_ADDRESS: "tcp:127.0.0.1:0" };
const EXAMPLE = new URL("examples/rest_serving/", ROOT);

/** Serves examples/rest_serving/ under /models/ (and 404 elsewhere); counts requests. */
function fileServer() {
  const requested: string[] = [];
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, async (request) => {
    const { pathname } = new URL(request.url);
    requested.push(pathname);
    const name = pathname.match(/^\/models\/(rest_serving\.onnx(?:\.meta\.json)?)$/)?.[1];
    if (name === undefined) return new Response("not here", { status: 404 });
    return new Response(await Deno.readFile(new URL(name, EXAMPLE)));
  });
  return {
    origin: `http://127.0.0.1:${server.addr.port}`,
    requested,
    [Symbol.asyncDispose]: () => server.shutdown(),
  };
}

/** Runs `deno serve adapter/deno/main.ts` expecting it to fail at start-up. */
function failedStart(bundle: string) {
  return runDeno(MAIN, { env: { ...ADDRESS, PETRI_SERVE_BUNDLE: bundle } });
}

Deno.test("deno serve adapter/deno/main.ts loads PETRI_SERVE_BUNDLE from an http URL", async () => {
  await using files = fileServer();
  const bundle = `${files.origin}/models/rest_serving.onnx`;
  await using server = await startServerProcess(MAIN, {
    env: { ...ADDRESS, PETRI_SERVE_BUNDLE: bundle },
  });
  assert.deepEqual(files.requested, [
    "/models/rest_serving.onnx",
    "/models/rest_serving.onnx.meta.json",
  ]);
  const schema = await (await fetch(`${server.origin}/schema`)).json();
  assert.deepEqual(schema.places, ["p_application", "p_approved", "p_declined"]);
  const forward = await fetch(`${server.origin}/forward`, {
    method: "POST",
    body: JSON.stringify({ input_marking: { p_application: 1 } }),
  });
  assert.equal(forward.status, 200);
  const body = await forward.json();
  assert.deepEqual(Object.keys(body.transition_activations).sort(), ["t_approve", "t_decline"]);
  server.kill("SIGTERM");
  assert.equal((await server.finished()).code, 0);
});

Deno.test("deno serve adapter/deno/main.ts stops with one line when the bundle URL fails", async (t) => {
  await using files = fileServer();
  const closed = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const closedPort = closed.addr.port;
  closed.close();
  const cases = [
    {
      name: "a missing .onnx",
      bundle: `${files.origin}/models/nope.onnx`,
      line: `Cannot load bundle: ${files.origin}/models/nope.onnx is missing`,
    },
    {
      name: "an unreachable host",
      bundle: `http://127.0.0.1:${closedPort}/m.onnx`,
      line: `Cannot load bundle: cannot fetch http://127.0.0.1:${closedPort}/m.onnx (`,
    },
    {
      name: "a URL that does not parse",
      bundle: "http://exa mple.com/m.onnx",
      line: "Cannot load bundle: 'http://exa mple.com/m.onnx' is not a valid URL",
    },
  ];
  for (const { name, bundle, line } of cases) {
    await t.step(name, async () => {
      const { code, stderr } = await failedStart(bundle);
      assert.equal(code, 2, stderr);
      assert.equal(stderr.split("\n").length, 2, `one line, got: ${stderr}`);
      assert.ok(stderr.startsWith(line), `stderr: ${stderr}`);
      assert.ok(!stderr.includes("    at "), "no stack trace");
    });
  }
});

Deno.test("cli.ts serve takes a bundle URL", async () => {
  await using files = fileServer();
  await using server = await startServerProcess([
    "run",
    "-A",
    "cli.ts",
    "serve",
    `${files.origin}/models/rest_serving.onnx`,
    "--port",
    "0",
  ]);
  const health = await (await fetch(`${server.origin}/healthz`)).json();
  assert.deepEqual([health.n_places, health.n_transitions], [3, 2]);
  server.kill("SIGTERM");
  assert.equal((await server.finished()).code, 0);
});
