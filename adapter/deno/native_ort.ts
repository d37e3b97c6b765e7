/**
 * The native ONNX Runtime (`onnxruntime-node`, Node-API) for the CLI's `--runtime native`:
 * the same graphs as the WASM runtime of `./ort.ts`, run by ORT's C++ CPU provider with
 * `threads` intra-op threads. Imported only when asked for (a dynamic import), so a default
 * run and a JSR consumer never download the package (~290 MB unpacked). It needs
 * `--allow-ffi`, and runs on linux (x64, arm64), macOS (arm64) and Windows (x64, arm64): what
 * the package ships binaries for. {@link nativeRuntimeProblem} tells, before anything loads,
 * why it cannot run here; {@link loadNativeOrt} and {@link loadNativeWorkerOrt} throw a
 * {@link NativeRuntimeError} with one line naming the way out.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { nativeRuntimeProblem } from "./native_ort.ts";
 * // deno test -A grants --allow-ffi, and this machine is one the package supports.
 * const choice = { asked: "serve: --runtime native", fallback: "--runtime wasm" };
 * assert.equal(nativeRuntimeProblem(choice), undefined);
 * ```
 *
 * @module
 */

import type { OrtModule, OrtSessionOptions } from "../../core/runtime/mod.ts";
import { workerOrt } from "../../core/runtime/worker/mod.ts";

/** Where the runtime of `--runtime` comes from. */
export type OrtRuntime = "wasm" | "native";

/** The most intra-op threads a native session may be given (`--threads`, `PETRI_SERVE_THREADS`). */
export const MAX_ORT_THREADS = 256;

/**
 * The package, pinned, named here rather than in `deno.json`'s `imports`: Deno installs every
 * package of the import map and of `deno.lock` when a run needs any npm package, so a mapped
 * (or statically named) `onnxruntime-node` would be downloaded by every fresh clone's
 * `deno task serve`. Imported through a computed specifier, it is resolved only when a run
 * asks for it.
 */
export const ONNXRUNTIME_NODE = "npm:onnxruntime-node@1.30.0";

/** `Deno.build.os/arch` pairs `onnxruntime-node@1.30.0` ships CPU binaries for. */
const PLATFORMS: readonly string[] = [
  "linux/x86_64",
  "linux/aarch64",
  "darwin/aarch64",
  "windows/x86_64",
  "windows/aarch64",
];

/**
 * How the caller names the choice in messages: `asked` (`"serve: --runtime native"`) and the
 * way back to WASM (`"--runtime wasm"`).
 */
export interface NativeChoice {
  /** What asked for the native runtime, starting the message. */
  readonly asked: string;
  /** What to use instead, ending the message. */
  readonly fallback: string;
}

/** Why the native runtime cannot be used; its message is one line, for the CLI to print. */
export class NativeRuntimeError extends Error {
  /**
   * @example
   * ```ts
   * import assert from "node:assert/strict";
   * import { NativeRuntimeError } from "./native_ort.ts";
   * assert.equal(new NativeRuntimeError("no").name, "NativeRuntimeError");
   * ```
   */
  constructor(message: string) {
    super(message);
    this.name = "NativeRuntimeError";
  }
}

/**
 * Why `--runtime native` cannot run in this process (`choice` names what asked for it in
 * the message): no ffi permission, or a platform the package ships no binary for; undefined when
 * it can try. Checked in this thread, before any worker starts.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { nativeRuntimeProblem } from "./native_ort.ts";
 * const choice = { asked: "batch: --runtime native", fallback: "--runtime wasm" };
 * const problem = nativeRuntimeProblem(choice);
 * assert.ok(problem === undefined || problem.startsWith("batch: --runtime native"));
 * ```
 */
export function nativeRuntimeProblem(choice: NativeChoice): string | undefined {
  const { asked, fallback } = choice;
  if (Deno.permissions.querySync({ name: "ffi" }).state !== "granted") {
    return `${asked} needs --allow-ffi (run with deno run -A, or add --allow-ffi; ` +
      `or use ${fallback})`;
  }
  const platform = `${Deno.build.os}/${Deno.build.arch}`;
  if (!PLATFORMS.includes(platform)) {
    return `${asked}: onnxruntime-node has no binary for ${platform} ` +
      `(it ships ${PLATFORMS.join(", ")}); use ${fallback}`;
  }
  return undefined;
}

/**
 * Imports `onnxruntime-node` in this thread; its sessions get `threads` intra-op threads.
 *
 * @throws {NativeRuntimeError} when {@link nativeRuntimeProblem} finds one, or the package
 * fails to import.
 *
 * @example
 * ```ts ignore
 * // Not run as a doc test: it would add the package to deno.lock (see ONNXRUNTIME_NODE);
 * // tests/serve/native_runtime_test.ts runs it in subprocesses.
 * import assert from "node:assert/strict";
 * import { loadNativeOrt } from "./native_ort.ts";
 * import { readBundle } from "./bundle_files.ts";
 * const choice = { asked: "serve: --runtime native", fallback: "--runtime wasm" };
 * await using model = await readBundle(await loadNativeOrt(choice, 1), "examples/rest_serving");
 * const [row] = await model.run([{ marking: new Map([["p_application", 1]]) }], {
 *   withGradient: false,
 * });
 * assert.ok(row!.transitions[0]! > 0.99);
 * ```
 */
export async function loadNativeOrt(choice: NativeChoice, threads: number): Promise<OrtModule> {
  return withSessionOptions(await importNative(choice), sessionOptions(threads));
}

/**
 * Like {@link loadNativeOrt}, with each session in its own module worker
 * (`ort_native_worker.ts`), as `./ort.ts`'s `loadWorkerOrt` runs WASM. The package is
 * imported once in this thread first, so that a failing import is reported here, in one line.
 *
 * @throws {NativeRuntimeError} as {@link loadNativeOrt} does.
 *
 * @example
 * ```ts ignore
 * // Not run as a doc test: it would add the package to deno.lock (see ONNXRUNTIME_NODE).
 * import assert from "node:assert/strict";
 * import { loadNativeWorkerOrt } from "./native_ort.ts";
 * import { readBundle } from "./bundle_files.ts";
 * const choice = { asked: "serve: --runtime native", fallback: "--runtime wasm" };
 * const ort = await loadNativeWorkerOrt(choice, 2);
 * await using model = await readBundle(ort, "examples/rest_serving");
 * const [row] = await model.run([{ marking: new Map([["p_application", 1]]) }], {
 *   withGradient: false,
 * });
 * assert.ok(row!.transitions[0]! > 0.99); // computed in the session's worker
 * ```
 */
export async function loadNativeWorkerOrt(
  choice: NativeChoice,
  threads: number,
): Promise<OrtModule> {
  await importNative(choice);
  const entry = new URL("./ort_native_worker.ts", import.meta.url);
  const ort = workerOrt(() => new Worker(entry, { type: "module" }));
  return withSessionOptions(ort, sessionOptions(threads));
}

/** ORT's session options for `threads` intra-op threads (and one inter-op thread). */
function sessionOptions(threads: number): OrtSessionOptions {
  return { intraOpNumThreads: threads, interOpNumThreads: 1 };
}

async function importNative(choice: NativeChoice): Promise<OrtModule> {
  const problem = nativeRuntimeProblem(choice);
  if (problem) throw new NativeRuntimeError(problem);
  try {
    return await importOnnxruntimeNode();
  } catch (error) {
    const why = (error instanceof Error ? error.message : String(error)).split("\n")[0];
    throw new NativeRuntimeError(
      `${choice.asked}: onnxruntime-node failed to load (${why}); use ${choice.fallback}`,
    );
  }
}

/**
 * Imports {@link ONNXRUNTIME_NODE} through a specifier Deno's module graph cannot see (see its
 * doc); no checks.
 *
 * @example
 * ```ts ignore
 * // Not run as a doc test: it would add the package to deno.lock (see ONNXRUNTIME_NODE).
 * import { importOnnxruntimeNode } from "./native_ort.ts";
 * const ort = await importOnnxruntimeNode();
 * ```
 */
export async function importOnnxruntimeNode(): Promise<OrtModule> {
  const specifier: string = ONNXRUNTIME_NODE;
  return await import(specifier) as OrtModule;
}

/** `ort` whose sessions are created with `defaults` under any options the caller gives. */
function withSessionOptions(ort: OrtModule, defaults: OrtSessionOptions): OrtModule {
  return {
    InferenceSession: {
      create: (bytes, options) => ort.InferenceSession.create(bytes, { ...defaults, ...options }),
    },
    Tensor: ort.Tensor,
  };
}
