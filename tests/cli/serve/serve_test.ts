/**
 * `cli.ts serve` and `adapter/deno/main.ts` as real processes on real sockets: every recorded
 * exchange of tests/fixtures/conformance replayed over HTTP against a served bundle (on the
 * WASM runtime, on the native one, and natively with two threads for the example), the embedded
 * example, draining on SIGINT, clean exits on SIGTERM, usage errors, and the Deno Deploy entry
 * with only read, env and net permissions.
 *
 * @module
 */

import assert from "node:assert/strict";
import { runDeno } from "../../run_deno.ts";
import { nativeRun, RUNTIME_RUNS, type RuntimeRun } from "../../runtimes.ts";
import {
  CONFORMANCE,
  readConformanceDescription,
  RECORDED_MODELS,
} from "../../conformance/fixtures.ts";
import { assertInputFailure, compileTo } from "../batch/helpers.ts";
import {
  exchangeContext,
  readExchanges,
  replayExchanges,
} from "../../conformance/check_exchange.ts";
import {
  type Exit,
  ROOT,
  type ServerProcess,
  startServerProcess,
  tempDir,
} from "./server_process.ts";

const SERVE = ["run", "-A", "cli.ts", "serve"];

const SERVING_LINE =
  /^serving (\S+) on (http:\/\/127\.0\.0\.1:\d+) \(docs: (http:\/\/127\.0\.0\.1:\d+)\/docs\)$/;

Deno.test("the conformance data holds the five models", () => {
  assert.deepEqual(RECORDED_MODELS, [
    "credit_approval_coloured",
    "paint_shop",
    "resource_lock",
    "rest_serving",
    "triage_softmax_ste",
  ]);
});

// Every model on each runtime, and the example natively with two intra-op threads.
const REPLAYS: [RuntimeRun, string][] = [
  ...RUNTIME_RUNS.flatMap((run) =>
    RECORDED_MODELS.map((name) => [run, name] as [RuntimeRun, string])
  ),
  [nativeRun(2), "credit_approval_coloured"],
];

for (const [run, name] of REPLAYS) {
  Deno.test(`cli.ts serve${run.label} answers every recorded exchange of ${name} over HTTP`, async (t) => {
    const description = await readConformanceDescription(name);
    const exchanges = await readExchanges(new URL(`${name}/`, CONFORMANCE));
    await using dir = await tempDir();
    const bundle = await compileTo(dir.path, name, description);
    await using server = await startServerProcess([
      "run",
      ...run.deno,
      ...SERVE.slice(1),
      bundle,
      "--port",
      "0",
      ...run.cli,
    ]);
    assert.match(server.firstLine, SERVING_LINE);

    await replayExchanges(t, exchanges, server.origin, exchangeContext(description));

    server.kill("SIGTERM");
    const exit = await server.finished();
    assert.equal(exit.code, 0, `exit code after SIGTERM; stderr: ${exit.stderr}`);
    const [first, draining, stopped, ...rest] = exit.stderr.split("\n");
    assert.equal(first, server.firstLine);
    assert.match(draining!, /^draining \(at most 10000 ms\): /);
    assert.deepEqual([stopped, ...rest], ["stopped", ""], "nothing else on stderr");
  });
}

Deno.test("cli.ts serve without BUNDLE serves the embedded example", async () => {
  await using server = await startServerProcess([...SERVE, "--port", "0"]);
  const [, name, url, docs] = SERVING_LINE.exec(server.firstLine) ?? [];
  assert.equal(name, "credit_approval_coloured", server.firstLine);
  assert.equal(url, server.origin);
  assert.equal(docs, server.origin);

  const health = await fetch(`${server.origin}/healthz`);
  assert.equal(health.status, 200);
  assert.deepEqual(await health.json(), {
    status: "ok",
    version: "0.1.0",
    n_places: 3,
    n_transitions: 2,
  });
  const page = await fetch(`${server.origin}/docs`);
  assert.equal(page.status, 200);
  assert.match(await page.text(), /<h1>credit_approval_coloured<\/h1>/);

  server.kill("SIGTERM");
  const exit = await server.finished();
  assert.equal(exit.code, 0, `exit code after SIGTERM; stderr: ${exit.stderr}`);
});

Deno.test("cli.ts serve from a fresh clone (no dist/) serves the playground, linked from /docs, opening the served model", async () => {
  // The tracked files only, as a clone has them: no dist/, no build step run.
  await using clone = await tempDir();
  const listed = await new Deno.Command("git", {
    args: ["ls-files", "-z", "--cached", "--others", "--exclude-standard"],
    cwd: ROOT,
  }).output();
  const files = new TextDecoder().decode(listed.stdout).split("\0")
    .filter((path) => path !== "" && !path.startsWith("tests/") && existsSync(new URL(path, ROOT)));
  for (const path of files) {
    const target = `${clone.path}/${path}`;
    await Deno.mkdir(target.slice(0, target.lastIndexOf("/")), { recursive: true });
    await Deno.copyFile(new URL(path, ROOT), target);
  }
  assert.equal(existsSync(new URL(`file://${clone.path}/dist/`)), false);
  // Deno's one-time notice about npm lifecycle scripts would precede the serving line.
  await new Deno.Command(Deno.execPath(), {
    args: ["cache", "--quiet", "cli.ts"],
    cwd: clone.path,
    stderr: "null",
  }).output();
  await using server = await startServerProcess(
    ["run", "-A", "cli.ts", "serve", "--port", "0", "--access-log", "off"],
    { cwd: clone.path },
  );
  const docs = await (await fetch(`${server.origin}/docs`)).text();
  assert.match(docs, /href="playground\/"/);
  const page = await fetch(`${server.origin}/playground/`);
  assert.equal(page.status, 200);
  assert.match(page.headers.get("content-type") ?? "", /^text\/html/);
  const html = await page.text();
  assert.match(html, /<script type="module" src="\.\/main\.js"><\/script>/);
  // The page opens the model being served (with no BUNDLE, the example): byte for byte.
  assert.match(
    html,
    /<meta name="petri-serve-model" content="model\/credit_approval_coloured\.onnx">/,
  );
  const served = await fetch(`${server.origin}/playground/model/credit_approval_coloured.onnx`);
  assert.deepEqual(
    new Uint8Array(await served.arrayBuffer()),
    await Deno.readFile(
      new URL("examples/credit_approval_coloured/credit_approval_coloured.onnx", ROOT),
    ),
  );
  const script = await fetch(`${server.origin}/playground/main.js`);
  assert.equal(script.status, 200);
  assert.match(script.headers.get("content-type") ?? "", /javascript/);
  // Every chunk main.js imports is served too.
  const chunks = [...(await script.text()).matchAll(/"\.\/([\w.-]+\.js)"/g)].map((m) => m[1]!);
  assert.ok(chunks.length >= 2, "the two ORT backends are chunks");
  for (const chunk of chunks) {
    const response = await fetch(`${server.origin}/playground/${chunk}`);
    assert.equal(response.status, 200, chunk);
    await response.body?.cancel();
  }
  // The scripts name the .wasm files they load by content-hashed names (in main.js or in a
  // chunk it shares with the playground's workers).
  const scripts = await Promise.all(
    ["main.js", ...chunks].map(async (name) =>
      await (await fetch(`${server.origin}/playground/${name}`)).text()
    ),
  );
  const [wasmName] = scripts.join("\n").match(/ort-wasm-simd-threaded-[A-Z2-7]{8}\.wasm/)!;
  const wasm = await fetch(`${server.origin}/playground/ort/${wasmName}`);
  assert.equal(wasm.status, 200);
  assert.equal(wasm.headers.get("content-type"), "application/wasm");
  const bytes = new Uint8Array(await wasm.arrayBuffer());
  assert.deepEqual([...bytes.subarray(0, 4)], [0, 0x61, 0x73, 0x6d], "a WebAssembly module");
  const example = await fetch(
    `${server.origin}/playground/examples/credit_approval_coloured.onnx.meta.json`,
  );
  assert.equal((await example.json()).scenario_name, "credit_approval_coloured");
  server.kill("SIGTERM");
  assert.equal((await server.finished()).code, 0);
});

Deno.test("cli.ts serve finishes a request in flight on SIGINT, refuses new connections, exits 0", async () => {
  await using server = await startServerProcess([...SERVE, "--port", "0"]);
  const body = new TextEncoder().encode(
    JSON.stringify({ input_marking: { p_submitted: 1 }, input_values: { p_submitted: 5000 } }),
  );
  let firstChunkSent!: () => void;
  const firstSent = new Promise<void>((resolve) => (firstChunkSent = resolve));
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  let pulls = 0;
  // The body arrives in two chunks with the signal in between.
  const stream = new ReadableStream<Uint8Array>({
    async pull(controller) {
      pulls++;
      if (pulls === 1) {
        controller.enqueue(body.subarray(0, 10));
      } else if (pulls === 2) {
        firstChunkSent();
        await released;
        controller.enqueue(body.subarray(10));
      } else {
        controller.close();
      }
    },
  });
  const pending = fetch(`${server.origin}/forward`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: stream,
  });
  pending.catch(() => {}); // awaited below; keeps an early failure from also being unhandled
  try {
    await firstSent;
    await delay(200);
    // Answered after the slow request's head was sent: the server has taken that request.
    const before = await fetch(`${server.origin}/healthz`);
    assert.equal(before.status, 200);
    await before.body?.cancel();
    server.kill("SIGINT");
    // A new connection is refused once the signal has been handled.
    let refused = false;
    for (let i = 0; !refused && i < 100; i++) {
      try {
        (await Deno.connect({ hostname: "127.0.0.1", port: Number(new URL(server.origin).port) }))
          .close();
        await delay(50);
      } catch (error) {
        assert.ok(
          error instanceof Deno.errors.ConnectionRefused ||
            error instanceof Deno.errors.ConnectionReset,
          String(error),
        );
        refused = true;
      }
    }
    assert.ok(refused, "a new connection while draining");
    await delay(200);
    assert.equal(server.exited, false, "the process waits for the request in flight");
  } finally {
    release();
  }
  const response = await pending;
  assert.equal(response.status, 200);
  const answer = await response.json();
  assert.deepEqual(Object.keys(answer.transition_activations).sort(), ["t_approve", "t_decline"]);
  assert.deepEqual(Object.keys(answer.place_activations).sort(), [
    "p_approved",
    "p_declined",
    "p_submitted",
  ]);

  const exit = await server.finished();
  assert.equal(exit.code, 0, `exit code after SIGINT; stderr: ${exit.stderr}`);
  assert.equal(exit.signal, null);
});

Deno.test("cli.ts serve --port with a bad value exits 2 with one line", async (t) => {
  for (const port of ["abc", "70000", "8.5", ""]) {
    await t.step(`--port '${port}'`, async () => {
      assertInputFailure(await run([...SERVE, "--port", port]), "--port", `'${port}'`);
    });
  }
  await t.step("--port -1 (read as an option)", async () => {
    assertInputFailure(await run([...SERVE, "--port", "-1"]), "--port needs a value");
  });
});

Deno.test("cli.ts serve --max-batch-rows and --max-queue-delay-ms with bad values exit 2 with one line", async (t) => {
  const cases = [["--max-batch-rows", "0"], ["--max-batch-rows", "x"], [
    "--max-queue-delay-ms",
    "60001",
  ], ["--max-queue-delay-ms", "1.5"]];
  for (const [flag, value] of cases) {
    await t.step(`${flag} '${value}'`, async () => {
      assertInputFailure(await run([...SERVE, flag!, value!]), flag!, `'${value}'`);
    });
  }
});

Deno.test("cli.ts serve --help prints the usage and exits 0", async () => {
  const result = await run([...SERVE, "--help"]);
  assert.equal(result.code, 0, result.stderr);
  assert.equal(result.stderr, "");
  assert.match(result.stdout, /^Usage: cli\.ts serve \[BUNDLE\] \[--host /);
  for (
    const option of [
      "--host",
      "--port",
      "--max-body-bytes",
      "--max-batch-rows",
      "--max-queue-delay-ms",
      "--ort-in-process",
    ]
  ) {
    assert.ok(result.stdout.includes(option), `the help lacks ${option}`);
  }
});

Deno.test("deno serve --parallel adapter/deno/main.ts serves with --allow-read --allow-env --allow-net only", async (t) => {
  const MAIN = [
    "serve",
    "--parallel",
    "--allow-read",
    "--allow-env",
    "--allow-net",
    "adapter/deno/main.ts",
  ];
  // DENO_SERVE_ADDRESS is Deno's own override of the address, read by the runtime (no
  // --allow-env needed); every parallel instance binds the same port.
  const ADDRESS = { DENO_SERVE_ADDRESS: "tcp:127.0.0.1:0" };

  const cases = [
    {
      name: "without PETRI_SERVE_BUNDLE: the embedded example",
      env: ADDRESS,
      places: ["p_approved", "p_declined", "p_submitted"],
      transitions: 2,
    },
    {
      name: "PETRI_SERVE_BUNDLE selects another bundle",
      env: { ...ADDRESS, PETRI_SERVE_BUNDLE: "examples/rest_serving/rest_serving.onnx" },
      places: ["p_application", "p_approved", "p_declined"],
      transitions: 2,
    },
    {
      name: "PETRI_SERVE_BUNDLE may name a directory",
      env: { ...ADDRESS, PETRI_SERVE_BUNDLE: "examples/rest_serving" },
      places: ["p_application", "p_approved", "p_declined"],
      transitions: 2,
    },
  ];
  for (const { name, env, places, transitions } of cases) {
    await t.step(name, async () => {
      await using server = await startServerProcess(MAIN, { env });
      assert.match(
        server.firstLine,
        /^deno serve: Listening on http:\/\/127\.0\.0\.1:\d+\/ with \d+ threads$/,
      );
      const health = await fetch(`${server.origin}/healthz`);
      assert.equal(health.status, 200);
      const body = await health.json();
      assert.equal(body.status, "ok");
      assert.equal(body.n_places, places.length);
      assert.equal(body.n_transitions, transitions);
      const schema = await (await fetch(`${server.origin}/schema`)).json();
      assert.deepEqual(schema.places, places);
      const forward = await fetch(`${server.origin}/forward`, {
        method: "POST",
        body: JSON.stringify({ input_marking: {} }),
      });
      assert.equal(forward.status, 200);
      await forward.body?.cancel();
      const exit = await stopParallel(server);
      assert.equal(exit.code, 0, `exit code after SIGTERM; stderr: ${exit.stderr}`);
    });
  }
});

/**
 * Stops a `deno serve --parallel` process with SIGTERM, bounded. `deno serve` (not our code)
 * handles the signal: it registers a listener in every instance and aborts each one's server.
 * With Deno 2.9.6, now and then one instance misses that signal and keeps serving, so the
 * process never exits (seen twice in fresh-clone CI runs: the instance's listening socket stayed
 * open, with no connection left); a second SIGTERM stopped it. So: SIGTERM, up to 15 s, one
 * more SIGTERM (with a warning), up to 15 s, then SIGKILL and a failure.
 */
async function stopParallel(server: ServerProcess): Promise<Exit> {
  const within = async (ms: number): Promise<Exit | undefined> => {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const late = new Promise<undefined>((resolve) => {
      timer = setTimeout(() => resolve(undefined), ms);
    });
    try {
      return await Promise.race([server.finished(), late]);
    } finally {
      clearTimeout(timer);
    }
  };
  server.kill("SIGTERM");
  const first = await within(15_000);
  if (first) return first;
  console.warn("deno serve --parallel missed a SIGTERM (a Deno issue); sending another");
  server.kill("SIGTERM");
  const second = await within(15_000);
  if (second) return second;
  server.kill("SIGKILL");
  await server.finished();
  throw new Error("deno serve --parallel did not exit after two SIGTERMs 15 s apart");
}

const run = runDeno;

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

function existsSync(url: URL): boolean {
  try {
    return Deno.statSync(url).isFile;
  } catch {
    return false;
  }
}
