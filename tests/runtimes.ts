/**
 * The ONNX runtimes the CLI tests run `serve` and `batch` with: WASM (the default, no extra
 * flags) and native (`--runtime native`, which needs `--allow-ffi`), so that one test body
 * replays the recorded answers with each. A native subprocess runs with `--lock` on a copy
 * of deno.lock: resolving onnxruntime-node adds it to the lock file, and the repository's must
 * not name it (tests/layout/native_package_test.ts); the first native run also fetches the
 * package into Deno's cache, so that no server prints download lines before its address
 * (`bench/native_lock.ts`).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { RUNTIME_RUNS } from "./runtimes.ts";
 * assert.deepEqual(RUNTIME_RUNS.map((run) => run.name), ["wasm", "native"]);
 * assert.deepEqual(RUNTIME_RUNS[0]!.cli, []);
 * ```
 *
 * @module
 */

import { nativeLockFlag } from "../bench/native_lock.ts";

/** How to run a CLI command on one runtime. */
export interface RuntimeRun {
  /** `wasm` or `native`. */
  readonly name: string;
  /** Appended to a test's name: empty for WASM, so its tests keep their names. */
  readonly label: string;
  /** `deno run` flags it needs besides permissions. */
  readonly deno: readonly string[];
  /** Permissions it needs beyond the command's own (none under `-A`). */
  readonly permissions: readonly string[];
  /** The command's flags selecting the runtime. */
  readonly cli: readonly string[];
}

/**
 * The native runtime with `threads` intra-op threads (default: `--threads` not given).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { nativeRun } from "./runtimes.ts";
 * assert.deepEqual(nativeRun(2).cli, ["--runtime", "native", "--threads", "2"]);
 * ```
 */
export function nativeRun(threads?: number): RuntimeRun {
  return {
    name: "native",
    permissions: ["--allow-ffi"],
    label: ` with --runtime native${threads ? ` --threads ${threads}` : ""}`,
    get deno() {
      return [nativeLockFlag()];
    },
    cli: ["--runtime", "native", ...(threads ? ["--threads", String(threads)] : [])],
  };
}

/** WASM, the default. */
export const WASM_RUN: RuntimeRun = { name: "wasm", label: "", deno: [], permissions: [], cli: [] };

/** Both runtimes, WASM first. */
export const RUNTIME_RUNS: readonly RuntimeRun[] = [WASM_RUN, nativeRun()];
