/**
 * The native ONNX Runtime (`onnxruntime-node`, ORT's C++ CPU provider) for `--runtime native`.
 * Imported only when asked for, so a default run and a JSR consumer never download the large
 * package; it needs `--allow-ffi` and a supported platform.
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
 * The package, pinned, named here rather than in `deno.json`'s imports: Deno installs every
 * mapped package when a run needs any, so a fresh clone's `serve` would download it.
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

/** How the caller names the choice in messages: what asked for it, and the way back to WASM. */
export interface NativeChoice {
  /** What asked for the native runtime, starting the message. */
  readonly asked: string;
  /** What to use instead, ending the message. */
  readonly fallback: string;
}

/** Why the native runtime cannot be used; its message is one line, for the CLI to print. */
export class NativeRuntimeError extends Error {
  /** An error with a one-line `message`. */
  constructor(message: string) {
    super(message);
    this.name = "NativeRuntimeError";
  }
}

/**
 * Why `--runtime native` cannot run here (no ffi permission, an unsupported platform), checked
 * before any worker starts; undefined when it can try.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { nativeRuntimeProblem } from "./native_ort.ts";
 * // deno test -A grants --allow-ffi, and this machine is one the package supports.
 * const choice = { asked: "serve: --runtime native", fallback: "--runtime wasm" };
 * assert.equal(nativeRuntimeProblem(choice), undefined);
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
 * @throws {NativeRuntimeError} when {@link nativeRuntimeProblem} finds one, or the import fails.
 */
export async function loadNativeOrt(choice: NativeChoice, threads: number): Promise<OrtModule> {
  return withSessionOptions(await importNative(choice), sessionOptions(threads));
}

/**
 * Like {@link loadNativeOrt}, with each session in its own module worker. The package is imported
 * once in this thread first, so a failing import is reported here in one line.
 *
 * @throws {NativeRuntimeError} as {@link loadNativeOrt} does.
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

/** Imports {@link ONNXRUNTIME_NODE} through a specifier Deno's module graph cannot see; no checks. */
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
