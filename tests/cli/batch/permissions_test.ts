/**
 * The permissions `batch` documents: plain `--allow-read` (scoring in the ORT worker, which
 * inherits it), and `--allow-read` scoped to the bundle, the log and Deno's npm cache, with
 * which the worker cannot load its own modules and scoring stays on the main thread. Both
 * write the same bytes; on the WASM runtime and on the native one (`--allow-ffi` added).
 *
 * @module
 */

import assert from "node:assert/strict";
import { runDeno } from "../../run_deno.ts";
import { CONFORMANCE, CREDIT_BUNDLE } from "./helpers.ts";
import { RUNTIME_RUNS } from "../../runtimes.ts";

for (const runtime of RUNTIME_RUNS) {
  Deno.test(`batch${runtime.label} writes the same scores with --allow-read scoped to the bundle, log and npm cache`, async () => {
    const info = await runDeno(["info", "--json"]);
    const npmCache = (JSON.parse(info.stdout) as { npmCache: string }).npmCache;
    const log = new URL("credit_approval_coloured/traces.xes", CONFORMANCE).pathname;
    const run = (read: string) =>
      runDeno([
        "run",
        ...runtime.deno,
        read,
        ...runtime.permissions,
        "cli.ts",
        "batch",
        CREDIT_BUNDLE,
        "--traces",
        log,
        "-q",
        ...runtime.cli,
      ]);
    const whole = await run("--allow-read");
    assert.equal(whole.code, 0, whole.stderr);
    const scoped = await run(`--allow-read=${CREDIT_BUNDLE},${log},${npmCache}`);
    assert.equal(scoped.code, 0, scoped.stderr);
    assert.equal(scoped.stdout, whole.stdout);
    assert.match(whole.stdout, /"trace_score": /);
  });
}
