/**
 * The `deno serve` entry point (and Deno Deploy's): serves the bundle named by
 * `PETRI_SERVE_BUNDLE` (a path, a directory holding one bundle, or an `http(s)` URL of a `.onnx`
 * file with its `.onnx.meta.json` beside it; default: the embedded example) with the service and
 * the playground. Needs only `--allow-read --allow-env --allow-net`; `--parallel` runs one
 * instance per core:
 *
 * ```sh
 * deno serve --parallel --allow-read --allow-env --allow-net adapter/deno/main.ts
 * ```
 *
 * `PETRI_SERVE_CORS_ORIGIN` lets pages from other origins call the API (CORS): origins
 * (`scheme://host[:port]`) separated by commas or spaces, or `*` for any; default none.
 *
 * A bundle that cannot be loaded, or a CORS origin that is not one, stops the process with one
 * line on stderr and exit code 2.
 *
 * The per-request limits (`../../server/request_limits.ts`) come from `PETRI_SERVE_MAX_TRACE_EVENTS`,
 * `PETRI_SERVE_MAX_REQUEST_ROWS` and `PETRI_SERVE_MAX_RESPONSE_BYTES` (positive integers; unset
 * means the default); a value that is not one also stops it with one line and exit code 2.
 *
 * Admission control takes its bounds from `PETRI_SERVE_MAX_BODY_MEMORY_BYTES`,
 * `PETRI_SERVE_MAX_QUEUE_ROWS` and `PETRI_SERVE_QUEUE_TIMEOUT_MS` (whole numbers; the defaults of
 * `cli.ts serve`'s flags of the same names otherwise); a value that is not a positive whole
 * number stops start-up with exit code 2; `PETRI_SERVE_MAX_CONCURRENT_LOGS` bounds the logs
 * `POST /batch` scores at once (default 2), per instance, and
 * `PETRI_SERVE_MAX_LOG_READ_AHEAD_BYTES` what a log reads ahead for a client that sends it
 * whole before it reads (default 64 MiB). A model whose session cannot be
 * recreated after failed runs stops the process with exit code 1, so that the platform starts a
 * new one.
 *
 * Each instance runs the model on its own thread (in-process ORT), not in a worker as
 * `cli.ts serve` does: `--parallel` already gives one instance per core, so a worker per
 * instance would only add threads competing for the same cores, and a worker kept alive in an
 * instance that `deno serve`'s signal did not reach would keep the process from exiting on
 * SIGTERM. Calls made in the same tick still share a run.
 *
 * `PETRI_SERVE_RUNTIME=native` runs the model with onnxruntime-node (imported only then; it
 * needs `--allow-ffi` too, and cannot run on Deno Deploy) instead of onnxruntime-web's WASM
 * (`wasm`, the default), and `PETRI_SERVE_THREADS` gives its sessions that many intra-op
 * threads (default 1; more only with native). A bad value, or a native runtime that cannot
 * load, stops start-up with one line and exit code 2.
 *
 * Under `--parallel` each instance is an isolate with its own counters; `/metrics` gathers
 * every instance's series into each scrape, labelled `instance_id` (`../../server/metrics_instances.ts`).
 *
 * The access log is on stdout as with `cli.ts serve` (`../../server/access_log.ts`: one line per answered
 * request, with its request id), written by each instance in whole lines;
 * `PETRI_SERVE_ACCESS_LOG=off` turns it off (`on`, the default).
 *
 * On SIGINT or SIGTERM `deno serve` closes the server itself, at once (it has no drain):
 * `./shutdown_handler.ts` says what this entry answers meanwhile, and
 * docs/deployment.md which proxy settings retry what such a restart loses.
 *
 * @module
 */

import { PACKAGE_VERSION } from "../../core/version.ts";
import { BundleError, type Model } from "../../core/bundle.ts";
import { bundleLocation, EXAMPLE_BUNDLE_URL, readBundle } from "./bundle_files.ts";
import { loadOrt } from "./ort.ts";
import type { OrtModule } from "../../core/runtime/mod.ts";
import { loadNativeOrt, MAX_ORT_THREADS, NativeRuntimeError } from "./native_ort.ts";
import { PLAYGROUND_PREFIX, playgroundHandler } from "./serve_static.ts";
import { createApp } from "../../server/mod.ts";
import { MAX_SEARCH_ROWS } from "../../core/ops/counterfactual.ts";
import { checkOrigins } from "../../server/cors.ts";
import { processMetrics } from "./process_metrics.ts";
import { shutdownHandler } from "./shutdown_handler.ts";
import { AccessLog } from "../../server/access_log.ts";

const limits = {
  maxTraceEvents: integerEnv("PETRI_SERVE_MAX_TRACE_EVENTS", 1),
  maxRequestRows: integerEnv("PETRI_SERVE_MAX_REQUEST_ROWS", MAX_SEARCH_ROWS),
  maxResponseBytes: integerEnv("PETRI_SERVE_MAX_RESPONSE_BYTES", 1),
  maxBodyMemoryBytes: integerEnv("PETRI_SERVE_MAX_BODY_MEMORY_BYTES", 1),
  maxQueueRows: integerEnv("PETRI_SERVE_MAX_QUEUE_ROWS", 1),
  queueTimeoutMs: integerEnv("PETRI_SERVE_QUEUE_TIMEOUT_MS", 1),
  maxConcurrentLogs: integerEnv("PETRI_SERVE_MAX_CONCURRENT_LOGS", 1),
  logReadAheadBytes: integerEnv("PETRI_SERVE_MAX_LOG_READ_AHEAD_BYTES", 1),
};

const NATIVE_CHOICE = { asked: "PETRI_SERVE_RUNTIME=native", fallback: "PETRI_SERVE_RUNTIME=wasm" };

const corsOrigins = origins(Deno.env.get("PETRI_SERVE_CORS_ORIGIN"));
const accessLog = accessLogEnv(Deno.env.get("PETRI_SERVE_ACCESS_LOG"));
const stopped = stopping();
// From the signal on, lines are written as they come: the process may end any moment.
stopped.addEventListener("abort", () => accessLog?.close());
const runtime = await ortRuntime(
  Deno.env.get("PETRI_SERVE_RUNTIME"),
  integerEnv("PETRI_SERVE_THREADS", 1) ?? 1,
);
const model = await load(Deno.env.get("PETRI_SERVE_BUNDLE"));
const { name } = model;
const description = model.sidecar.scenario_description;
const app = await createApp(model, {
  title: name,
  version: PACKAGE_VERSION,
  ...(description ? { description } : {}),
  mount: [PLAYGROUND_PREFIX, playgroundHandler()],
  ...limits,
  corsOrigins,
  extraMetrics: processMetrics,
  // Under --parallel each instance counts alone; every scrape gathers them all.
  metricsInstances: { signal: stopped },
  onModelFailed: () => Deno.exit(1),
  ...(accessLog ? { onRequest: (record) => accessLog.record(record) } : {}),
});

/** The access log on stdout, unless `PETRI_SERVE_ACCESS_LOG` is `off`. */
function accessLogEnv(text: string | undefined): AccessLog | undefined {
  if (text === "off") return undefined;
  if (text !== undefined && text !== "" && text !== "on") {
    console.error(`PETRI_SERVE_ACCESS_LOG must be on or off, got '${text}'`);
    Deno.exit(2);
  }
  const encoder = new TextEncoder();
  return new AccessLog((text) => {
    const bytes = encoder.encode(text);
    for (let written = 0; written < bytes.length;) {
      written += Deno.stdout.writeSync(bytes.subarray(written));
    }
  });
}

/** The integer in environment variable `name` (at least `min`), or undefined when unset. */
function integerEnv(name: string, min: number): number | undefined {
  const text = Deno.env.get(name);
  if (text === undefined || text === "") return undefined;
  const value = Number(text);
  if (!/^\d+$/.test(text) || !Number.isSafeInteger(value) || value < min) {
    console.error(`${name} must be an integer of at least ${min}, got '${text}'`);
    Deno.exit(2);
  }
  return value;
}

/**
 * Aborts on SIGINT or SIGTERM (`deno serve` stops the server itself on them). Where signals
 * cannot be listened to (a platform without them), it never aborts: the isolate ends with the
 * process.
 */
function stopping(): AbortSignal {
  const controller = new AbortController();
  const signals: Deno.Signal[] = Deno.build.os === "windows" ? ["SIGINT"] : ["SIGINT", "SIGTERM"];
  const stop = () => {
    for (const signal of signals) Deno.removeSignalListener(signal, stop);
    controller.abort();
  };
  try {
    for (const signal of signals) Deno.addSignalListener(signal, stop);
  } catch {
    // No signals here.
  }
  return controller.signal;
}

function origins(text: string | undefined): string[] {
  const list = (text ?? "").split(/[\s,]+/).filter((origin) => origin !== "");
  try {
    return checkOrigins(list);
  } catch (error) {
    console.error(`PETRI_SERVE_CORS_ORIGIN: ${(error as Error).message}`);
    Deno.exit(2);
  }
}

/** The ORT module of `PETRI_SERVE_RUNTIME` (wasm or native) with `threads` intra-op threads. */
async function ortRuntime(name: string | undefined, threads: number): Promise<OrtModule> {
  if (threads > MAX_ORT_THREADS) {
    console.error(`PETRI_SERVE_THREADS must be at most ${MAX_ORT_THREADS}, got '${threads}'`);
    Deno.exit(2);
  }
  if (name === "native") {
    try {
      return await loadNativeOrt(NATIVE_CHOICE, threads);
    } catch (error) {
      if (!(error instanceof NativeRuntimeError)) throw error;
      console.error(error.message);
      Deno.exit(2);
    }
  }
  if (name !== undefined && name !== "" && name !== "wasm") {
    console.error(`PETRI_SERVE_RUNTIME must be wasm or native, got '${name}'`);
    Deno.exit(2);
  }
  if (threads > 1) {
    console.error(
      `PETRI_SERVE_THREADS=${threads} needs PETRI_SERVE_RUNTIME=native (wasm runs on one thread)`,
    );
    Deno.exit(2);
  }
  return await loadOrt();
}

async function load(location: string | undefined): Promise<Model> {
  try {
    const source = location ? bundleLocation(location) : EXAMPLE_BUNDLE_URL;
    return await readBundle(runtime, source);
  } catch (error) {
    if (!(error instanceof BundleError)) throw error;
    console.error(error.message);
    Deno.exit(2);
  }
}

/** The handler `deno serve` runs. */
export default {
  fetch: shutdownHandler(app.fetch, stopped),
} satisfies Deno.ServeDefaultExport;
