/**
 * `--runtime wasm|native` and `--threads N`, shared by `serve` and `batch`: onnxruntime-web's
 * WASM (the portable default) or onnxruntime-node's native build (loaded only when asked for),
 * and a native session's intra-op threads. A native runtime that cannot load is one line on
 * stderr (exit 2), not a stack trace.
 *
 * @module
 */

import { fileURLToPath } from "node:url";
import { loadOrt, loadWorkerOrt } from "../adapter/deno/ort.ts";
import type { OrtModule } from "../core/runtime/mod.ts";
import { MAX_ORT_THREADS, type OrtRuntime } from "../adapter/deno/native_ort.ts";
import { UsageError } from "./args.ts";
import { InputError } from "./command.ts";

/** The values of `--runtime`, the default first. */
export const ORT_RUNTIMES: readonly OrtRuntime[] = ["wasm", "native"];

export { MAX_ORT_THREADS };

/** The option specs of the two flags, for a command's `parseArgs` table. */
export const RUNTIME_OPTIONS = {
  runtime: { type: "string" },
  threads: { type: "string" },
} as const;

/**
 * The help lines of the two flags, their descriptions starting at `column`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { runtimeHelp } from "./runtime_flags.ts";
 * assert.match(runtimeHelp(24), /^ {2}--threads N {11}intra-op threads/m);
 * ```
 */
export function runtimeHelp(column: number): string {
  const pad = " ".repeat(column);
  const option = (name: string, lines: string[]) => {
    const head = `  ${name}`;
    const first = head.length + 1 < column
      ? head.padEnd(column) + lines[0]
      : `${head}\n${pad}${lines[0]}`;
    return [first, ...lines.slice(1).map((line) => pad + line)].join("\n");
  };
  return [
    option("--runtime wasm|native", [
      "the ONNX Runtime that runs the model: wasm (default), onnxruntime-web,",
      "portable, one thread; native, onnxruntime-node's CPU build: faster on",
      "large nets; needs --allow-ffi (deno run -A grants it) and downloads",
      "~290 MB on first use (linux x64/arm64, macOS arm64, Windows x64/arm64)",
    ]),
    option("--threads N", [
      "intra-op threads of each native session (default 1; more only with",
      "--runtime native: the wasm runtime runs on one thread)",
    ]),
  ].join("\n");
}

/** What the two flags chose. */
export interface RuntimeChoice {
  /** `--runtime`. */
  readonly runtime: OrtRuntime;
  /** `--threads`: intra-op threads of a native session. */
  readonly threads: number;
}

/**
 * Reads `--runtime` and `--threads` from parsed flags.
 *
 * @throws {UsageError} for an unknown runtime, a thread count not from 1 to
 * {@link MAX_ORT_THREADS}, or more than one thread with the wasm runtime.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { readRuntime } from "./runtime_flags.ts";
 * assert.deepEqual(readRuntime({}), { runtime: "wasm", threads: 1 });
 * assert.deepEqual(readRuntime({ runtime: "native", threads: "2" }), { runtime: "native", threads: 2 });
 * assert.throws(() => readRuntime({ threads: "2" }), /--threads 2 needs --runtime native/);
 * ```
 */
export function readRuntime(
  flags: { readonly runtime?: string; readonly threads?: string },
): RuntimeChoice {
  const text = flags.runtime ?? "wasm";
  const runtime = ORT_RUNTIMES.find((r) => r === text);
  if (runtime === undefined) {
    throw new UsageError(`--runtime must be one of ${ORT_RUNTIMES.join(", ")}, got '${text}'`);
  }
  const threadsText = flags.threads ?? "1";
  const threads = /^\d+$/.test(threadsText) ? Number(threadsText) : NaN;
  if (!(threads >= 1 && threads <= MAX_ORT_THREADS)) {
    throw new UsageError(
      `--threads must be an integer from 1 to ${MAX_ORT_THREADS}, got '${threadsText}'`,
    );
  }
  if (runtime === "wasm" && threads > 1) {
    throw new UsageError(
      `--threads ${threads} needs --runtime native (the wasm runtime runs on one thread)`,
    );
  }
  return { runtime, threads };
}

/** How a command gets its ORT module: in this thread, or with each session in a worker. */
export interface RuntimeLoaders {
  /** ORT in this thread. */
  readonly loadOrt: () => Promise<OrtModule>;
  /** Each session in its own worker. */
  readonly loadWorkerOrt: () => Promise<OrtModule>;
}

/**
 * The loaders of `choice` for `command` (named in error messages). The native ones import
 * `onnxruntime-node` only when called and reject with a one-line {@link InputError} when it
 * cannot load.
 */
export function runtimeLoaders(command: string, choice: RuntimeChoice): RuntimeLoaders {
  if (choice.runtime === "wasm") {
    return {
      loadOrt: () => (requireWasmRead(command), loadOrt()),
      loadWorkerOrt: () => (requireWasmRead(command), loadWorkerOrt()),
    };
  }
  const native = async (inWorker: boolean): Promise<OrtModule> => {
    // A dynamic import: a wasm run never loads (nor downloads) onnxruntime-node.
    const { loadNativeOrt, loadNativeWorkerOrt, NativeRuntimeError } = await import(
      "../adapter/deno/native_ort.ts"
    );
    try {
      const asked = { asked: `${command}: --runtime native`, fallback: "--runtime wasm" };
      return await (inWorker ? loadNativeWorkerOrt : loadNativeOrt)(asked, choice.threads);
    } catch (error) {
      if (error instanceof NativeRuntimeError) throw new InputError(error.message);
      throw error;
    }
  };
  return { loadOrt: () => native(false), loadWorkerOrt: () => native(true) };
}

/**
 * Refuses, in one line, to start onnxruntime-web when Deno may not read its `.wasm` file:
 * Emscripten's own failure names neither the flag nor the file.
 */
function requireWasmRead(command: string): void {
  let wasm: string;
  try {
    wasm = fileURLToPath(new URL(WASM_FILE, import.meta.resolve("onnxruntime-web")));
  } catch {
    return; // Not a file in Deno's npm cache: nothing to ask for.
  }
  const { state } = Deno.permissions.querySync({ name: "read", path: wasm });
  const asked = state === "prompt" && Deno.stdin.isTerminal() && Deno.stderr.isTerminal();
  if (state === "granted" || asked) return;
  const dir = wasm.slice(0, wasm.lastIndexOf(SEP) + 1);
  throw new InputError(
    `${command}: no read permission for onnxruntime-web's WASM file ${wasm}: run deno with ` +
      `--allow-read, or add ${dir} to its list`,
  );
}

/** The file onnxruntime-web's WASM backend reads beside its module. */
const WASM_FILE = "ort-wasm-simd-threaded.wasm";

const SEP = Deno.build.os === "windows" ? "\\" : "/";
