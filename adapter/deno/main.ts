/**
 * The `deno serve` and Deno Deploy entry: serves the bundle named by `PETRI_SERVE_BUNDLE` (a
 * path, a directory holding one bundle, or an `http(s)` URL; default the embedded example) with
 * the service and the playground, configured by environment variables (docs/deployment.md):
 *
 * ```sh
 * deno serve --parallel --allow-read --allow-env --allow-net adapter/deno/main.ts
 * ```
 *
 * `PETRI_SERVE_CORS_ORIGIN`, the request limits (`PETRI_SERVE_MAX_*`), the admission bounds
 * (`PETRI_SERVE_QUEUE_TIMEOUT_MS` and others), `PETRI_SERVE_RUNTIME` and `PETRI_SERVE_THREADS`,
 * and `PETRI_SERVE_ACCESS_LOG` mirror `cli.ts serve`'s flags. A bad value or a bundle that
 * cannot load stops start-up with one line and exit code 2; a model whose session cannot be
 * recreated exits 1, so that the platform starts a new instance.
 *
 * Each instance runs ORT on its own thread, not in a worker: `--parallel` already gives one
 * instance per core, and a worker in an instance the signal did not reach would keep the process
 * from exiting on SIGTERM. `deno serve` closes the server itself on a signal, with no drain
 * (`shutdown_handler.ts` says what this entry responds meanwhile).
 *
 * @module
 */

import { BundleError, type Model, PACKAGE_VERSION } from "../../core/bundle/mod.ts";
import { bundleLocation, EXAMPLE_BUNDLE_URL, readBundle } from "./bundle_files.ts";
import { loadOrt } from "./ort.ts";
import type { OrtModule } from "../../core/runtime/mod.ts";
import { loadNativeOrt, MAX_ORT_THREADS, NativeRuntimeError } from "./native_ort.ts";
import { PLAYGROUND_PREFIX, playgroundHandler } from "./serve_static.ts";
import { createApp } from "../../server/mod.ts";
import { MAX_SEARCH_ROWS } from "../../core/ops/mod.ts";
import { checkOrigins } from "../../server/http/mod.ts";
import { processMetrics } from "./process_metrics.ts";
import { shutdownHandler } from "./shutdown_handler.ts";
import { AccessLog } from "../../server/metrics/mod.ts";

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

/** Aborts on SIGINT or SIGTERM; never where signals cannot be listened to. */
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
