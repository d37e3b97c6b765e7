/**
 * The servers the HTTP benchmarks compare, each started in a process of its own on 127.0.0.1,
 * port 0, through the command line only (`cli.ts serve`, `deno serve adapter/deno/main.ts`), so a
 * benchmark can run them from another checkout of the repository (`checkout`) with that
 * checkout's own code; and the two baselines, run from this checkout: the bare `Deno.serve`
 * JSON echo (`http_echo.ts`) and the naive model server (`naive_server.ts`). Native processes
 * take their checkout's lock copy (`native_lock.ts`), so no deno.lock is written.
 *
 * @example
 * ```ts
 * import { startFace } from "./serve_faces.ts";
 * await using server = await startFace("serve", { bundle: "examples/rest_serving" });
 * await fetch(`${server.origin}/healthz`);
 * ```
 *
 * @module
 */

import { type ServerProcess, startServerProcess } from "../tests/cli/serve/server_process.ts";
import { nativeLockFlag } from "./native_lock.ts";

/** The faces of the served model, from any checkout. */
export const SERVE_FACES = ["serve", "native", "inProcess", "inProcessNative", "parallel"] as const;
/**
 * One of {@link SERVE_FACES}: `cli.ts serve` (WASM, ORT in its worker); with `--runtime native`;
 * with `--ort-in-process` (WASM, then native); `deno serve --parallel adapter/deno/main.ts` (WASM).
 */
export type ServeFace = typeof SERVE_FACES[number];

/** The baselines, from this checkout. */
export const BASELINES = ["echo", "naiveNode", "naiveWeb"] as const;
/**
 * The naive server with `cli.ts serve`'s batching on an ORT worker (`naive_batching_server.ts`):
 * the least a server built that way spends on its serving thread. A baseline too.
 */
export const FLOOR = "naiveBatching";
/**
 * One of {@link BASELINES} (the JSON echo; the naive server on onnxruntime-node, then -web) or
 * the {@link FLOOR}.
 */
export type Baseline = typeof BASELINES[number] | typeof FLOOR;

/** A face or a baseline. */
export type Face = ServeFace | Baseline;

/** Short names of faces and baselines for tables. */
export const FACE_TITLES: Readonly<Record<Face, string>> = {
  serve: "serve",
  native: "serve native",
  inProcess: "--ort-in-process",
  inProcessNative: "--ort-in-process native",
  parallel: "--parallel",
  echo: "echo",
  naiveNode: "naive node",
  naiveWeb: "naive web",
  naiveBatching: "naive batching",
};

/** The naive server on the same ONNX Runtime as each face (the one it is compared with). */
export const NAIVE_PEER: Readonly<Record<ServeFace, Baseline>> = {
  serve: "naiveWeb",
  native: "naiveNode",
  inProcess: "naiveWeb",
  inProcessNative: "naiveNode",
  parallel: "naiveWeb",
};

/** Where and what a face serves. */
export interface FaceOptions {
  /** The bundle (`.onnx` path; the echo ignores it). */
  readonly bundle: string;
  /** The checkout whose code serves (default: this one; baselines always run from this one). */
  readonly checkout?: string | undefined;
  /** `--threads` of the native faces (default 1). */
  readonly threads?: number | undefined;
}

/**
 * The `deno` arguments and environment that start `face`.
 *
 * @example
 * ```ts
 * import { faceCommand } from "./serve_faces.ts";
 * faceCommand("inProcess", { bundle: "b.onnx" }).args.includes("--ort-in-process"); // true
 * ```
 */
export function faceCommand(
  face: Face,
  options: FaceOptions,
): { readonly args: string[]; readonly env?: Record<string, string> } {
  const serve = ["cli.ts", "serve", options.bundle, "--port", "0"];
  const lock = () => nativeLockFlag(options.checkout);
  const native = () => [
    "run",
    "-A",
    lock(),
    ...serve,
    "--runtime",
    "native",
    "--threads",
    String(options.threads ?? 1),
  ];
  const naive = (ort: string) => [
    "run",
    "-A",
    nativeLockFlag(),
    "bench/naive_server.ts",
    options.bundle,
    "--ort",
    ort,
  ];
  switch (face) {
    case "serve":
      return { args: ["run", "-A", ...serve] };
    case "native":
      return { args: native() };
    case "inProcess":
      return { args: ["run", "-A", ...serve, "--ort-in-process"] };
    case "inProcessNative":
      return { args: [...native(), "--ort-in-process"] };
    case "parallel":
      return {
        args: [
          "serve",
          "--parallel",
          "--allow-read",
          "--allow-env",
          "--allow-net",
          denoServeEntry(options.checkout),
        ],
        env: { DENO_SERVE_ADDRESS: "tcp:127.0.0.1:0", PETRI_SERVE_BUNDLE: options.bundle },
      };
    case "echo":
      return { args: ["run", "--allow-net=127.0.0.1", "bench/http_echo.ts"] };
    case "naiveNode":
      return { args: naive("node") };
    case "naiveWeb":
      return { args: naive("web") };
    case "naiveBatching":
      return { args: ["run", "-A", "bench/naive_batching_server.ts", options.bundle] };
  }
}

/** The `deno serve` entry of `checkout`: `server/main.ts` before the layout of issue 29. */
function denoServeEntry(checkout = "."): string {
  try {
    Deno.statSync(`${checkout}/adapter/deno/main.ts`);
    return "adapter/deno/main.ts";
  } catch {
    return "server/main.ts";
  }
}

/** Starts `face` and waits for its address (the first line it writes on stderr). */
export function startFace(face: Face, options: FaceOptions): Promise<ServerProcess> {
  const { args, env } = faceCommand(face, options);
  const own = face === FLOOR || (BASELINES as readonly string[]).includes(face);
  return startServerProcess(args, {
    ...(env ? { env } : {}),
    ...(!own && options.checkout !== undefined ? { cwd: options.checkout } : {}),
  });
}
