/**
 * The `deno serve` entry point (and Deno Deploy's): serves the bundle named by
 * `PETRI_SERVE_BUNDLE` (a path, a directory holding one bundle, or an `http(s)` URL of a `.onnx`
 * file with its `.onnx.meta.json` beside it; default: the embedded example) with the service and
 * the playground. The model runs in an ORT worker, so concurrent requests share runs. Needs only
 * `--allow-read --allow-env --allow-net`; `--parallel` runs one instance per core:
 *
 * ```sh
 * deno serve --parallel --allow-read --allow-env --allow-net server/main.ts
 * ```
 *
 * A bundle that cannot be loaded stops the process with one line on stderr and exit code 2.
 *
 * @module
 */

import { PACKAGE_VERSION } from "../core/version.ts";
import { BundleError, type Model } from "../core/bundle.ts";
import { bundleLocation, EXAMPLE_BUNDLE_URL, readBundle } from "../adapter/deno/bundle_files.ts";
import { loadWorkerOrt } from "../adapter/deno/ort.ts";
import { playgroundHandler } from "../adapter/deno/serve_static.ts";
import { createApp } from "./mod.ts";

const model = await load(Deno.env.get("PETRI_SERVE_BUNDLE"));
const { scenario_name: name, scenario_description: description } = model.sidecar;
const app = await createApp(model, {
  ...(name ? { title: name } : {}),
  version: PACKAGE_VERSION,
  ...(description ? { description } : {}),
});
const playground = playgroundHandler();

async function load(location: string | undefined): Promise<Model> {
  try {
    const source = location ? bundleLocation(location) : EXAMPLE_BUNDLE_URL;
    return await readBundle(await loadWorkerOrt(), source);
  } catch (error) {
    if (!(error instanceof BundleError)) throw error;
    console.error(error.message);
    Deno.exit(2);
  }
}

// `deno serve` stops listening on SIGINT / SIGTERM, but the ORT worker would keep the process
// alive: release the model once the requests in flight are answered.
let inFlight = 0;
let stopping = false;
const releaseWhenIdle = () => {
  if (stopping && inFlight === 0) void model[Symbol.asyncDispose]();
};
for (const signal of ["SIGINT", "SIGTERM"] as const) {
  try {
    Deno.addSignalListener(signal, () => {
      stopping = true;
      releaseWhenIdle();
    });
  } catch {
    // SIGTERM cannot be listened to on Windows; SIGINT still releases the model.
  }
}

/** The handler `deno serve` runs. */
export default {
  async fetch(request: Request): Promise<Response> {
    inFlight++;
    try {
      return (await playground(request)) ?? await app.fetch(request);
    } finally {
      inFlight--;
      releaseWhenIdle();
    }
  },
} satisfies Deno.ServeDefaultExport;
