/**
 * `--runtime` and `--threads` as real subprocesses: without `--allow-ffi`, `serve`, `batch`
 * and `adapter/deno/main.ts` refuse the native runtime with one line naming the flag, exit 2, before
 * anything loads, and when the package fails to load (here: a frozen lock file without it)
 * with one line naming `--runtime wasm`; bad values and `--threads` > 1 on WASM are usage errors; and
 * `adapter/deno/main.ts` with `PETRI_SERVE_RUNTIME=native` answers as the WASM one does.
 *
 * @module
 */

import assert from "node:assert/strict";
import { runDeno } from "../run_deno.ts";
import { assertInputFailure } from "./batch/helpers.ts";
import { startServerProcess } from "./serve/server_process.ts";
import { nativeRun } from "../runtimes.ts";

const NO_FFI = ["run", "--allow-read", "--allow-net", "--allow-env", "cli.ts"];
const LOG = ["examples/rest_serving", "--traces", "examples/rest_serving/applications.json"];

Deno.test("serve and batch --runtime native without --allow-ffi exit 2 naming the flag", async (t) => {
  for (const [command, args] of [["serve", ["--port", "0"]], ["batch", LOG]] as const) {
    await t.step(command, async () => {
      const result = await runDeno([...NO_FFI, command, ...args, "--runtime", "native"]);
      assertInputFailure(result);
      assert.equal(
        result.stderr,
        `error: ${command}: --runtime native needs --allow-ffi (run with deno run -A, or add ` +
          "--allow-ffi; or use --runtime wasm)\n",
      );
    });
  }
});

Deno.test("serve and batch --runtime native exit 2 with one line when onnxruntime-node cannot load", async (t) => {
  // --frozen: the repository's deno.lock does not hold the package, so resolving it fails.
  for (const [command, args] of [["serve", ["--port", "0"]], ["batch", LOG]] as const) {
    await t.step(command, async () => {
      const result = await runDeno([
        "run",
        "-A",
        "--frozen",
        "cli.ts",
        command,
        ...args,
        "--runtime",
        "native",
      ]);
      assertInputFailure(result, `${command}: --runtime native: onnxruntime-node failed to load (`);
      assert.match(result.stderr, /\); use --runtime wasm\n$/);
    });
  }
});

Deno.test("adapter/deno/main.ts with PETRI_SERVE_RUNTIME=native without --allow-ffi exits 2 with one line", async () => {
  const result = await runDeno([
    "run",
    "--allow-read",
    "--allow-net",
    "--allow-env",
    "adapter/deno/main.ts",
  ], {
    env: { PETRI_SERVE_RUNTIME: "native", DENO_SERVE_ADDRESS: "tcp:127.0.0.1:0" },
  });
  assert.equal(result.code, 2, result.stderr);
  assert.equal(
    result.stderr,
    "PETRI_SERVE_RUNTIME=native needs --allow-ffi (run with deno run -A, or add --allow-ffi; " +
      "or use PETRI_SERVE_RUNTIME=wasm)\n",
  );
});

Deno.test("bad --runtime and --threads values, and --threads 2 on wasm, are usage errors", async (t) => {
  const cases = [
    [["--runtime", "gpu"], "--runtime must be one of wasm, native, got 'gpu'"],
    [["--runtime", "native", "--threads", "0"], "--threads must be an integer from 1 to 256"],
    [["--threads", "x"], "--threads must be an integer from 1 to 256, got 'x'"],
    [
      ["--threads", "2"],
      "--threads 2 needs --runtime native (the wasm runtime runs on one thread)",
    ],
  ] as const;
  for (const command of ["serve", "batch"]) {
    for (const [flags, message] of cases) {
      await t.step(`${command} ${flags.join(" ")}`, async () => {
        const args = command === "serve" ? ["--port", "0"] : LOG;
        const result = await runDeno(["run", "-A", "cli.ts", command, ...args, ...flags]);
        assertInputFailure(result, message, `run 'cli.ts ${command} --help' for usage`);
      });
    }
  }
  for (
    const [env, message] of [
      [{ PETRI_SERVE_RUNTIME: "gpu" }, "PETRI_SERVE_RUNTIME must be wasm or native, got 'gpu'"],
      [{ PETRI_SERVE_THREADS: "2" }, "PETRI_SERVE_THREADS=2 needs PETRI_SERVE_RUNTIME=native"],
      [
        { PETRI_SERVE_RUNTIME: "native", PETRI_SERVE_THREADS: "257" },
        "PETRI_SERVE_THREADS must be at most 256, got '257'",
      ],
    ] as const
  ) {
    await t.step(`adapter/deno/main.ts ${JSON.stringify(env)}`, async () => {
      const result = await runDeno(["run", "-A", "adapter/deno/main.ts"], { env });
      assert.equal(result.code, 2, result.stderr);
      assert.match(result.stderr, new RegExp(`^${message.replace(/[()]/g, "\\$&")}[^\n]*\n$`));
    });
  }
});

Deno.test("adapter/deno/main.ts with PETRI_SERVE_RUNTIME=native and 2 threads answers as with wasm", async () => {
  const body = JSON.stringify({
    input_marking: { p_submitted: 1 },
    input_values: { p_submitted: 7 },
  });
  const answers: Record<string, Record<string, number>>[] = [];
  for (const env of [{}, { PETRI_SERVE_RUNTIME: "native", PETRI_SERVE_THREADS: "2" }]) {
    const native = "PETRI_SERVE_RUNTIME" in env;
    await using server = await startServerProcess(
      ["serve", ...(native ? nativeRun().deno : []), "-A", "adapter/deno/main.ts"],
      { env: { ...env, DENO_SERVE_ADDRESS: "tcp:127.0.0.1:0" } },
    );
    const response = await fetch(`${server.origin}/forward`, { method: "POST", body });
    assert.equal(response.status, 200);
    answers.push(await response.json());
    server.kill("SIGTERM");
    await server.finished();
  }
  const [wasm, native] = answers;
  for (const key of ["transition_activations", "place_activations"]) {
    assert.deepEqual(Object.keys(native![key]!), Object.keys(wasm![key]!));
    for (const [id, value] of Object.entries(wasm![key]!)) {
      assert.ok(Math.abs(native![key]![id]! - value) <= 1e-5, `${key}.${id}`);
    }
  }
});
