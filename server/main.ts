/**
 * The `deno serve` entry point (and Deno Deploy's): serves the bundle named by
 * `PETRI_SERVE_BUNDLE` (a path, a directory holding one bundle, or an `http(s)` URL of a `.onnx`
 * file with its `.onnx.meta.json` beside it; default: the embedded example) with the service and
 * the playground. Needs only `--allow-read --allow-env --allow-net`; `--parallel` runs one
 * instance per core:
 *
 * ```sh
 * deno serve --parallel --allow-read --allow-env --allow-net server/main.ts
 * ```
 *
 * A bundle that cannot be loaded stops the process with one line on stderr and exit code 2.
 *
 * The per-request limits (`./request_limits.ts`) come from `PETRI_SERVE_MAX_TRACE_EVENTS`,
 * `PETRI_SERVE_MAX_REQUEST_ROWS` and `PETRI_SERVE_MAX_RESPONSE_BYTES` (positive integers; unset
 * means the default); a value that is not one also stops it with one line and exit code 2.
 *
 * Each instance runs the model on its own thread (in-process ORT), not in a worker as
 * `cli.ts serve` does: `--parallel` already gives one instance per core, so a worker per
 * instance would only add threads competing for the same cores, and a worker kept alive in an
 * instance that `deno serve`'s signal did not reach would keep the process from exiting on
 * SIGTERM. Calls made in the same tick still share a run.
 *
 * @module
 */

import { PACKAGE_VERSION } from "../core/version.ts";
import { BundleError, type Model } from "../core/bundle.ts";
import { bundleLocation, EXAMPLE_BUNDLE_URL, readBundle } from "../adapter/deno/bundle_files.ts";
import { loadOrt } from "../adapter/deno/ort.ts";
import { PLAYGROUND_PREFIX, playgroundHandler } from "../adapter/deno/serve_static.ts";
import { createApp } from "./mod.ts";
import { MAX_SEARCH_ROWS } from "../core/ops/counterfactual.ts";

const limits = {
  maxTraceEvents: integerEnv("PETRI_SERVE_MAX_TRACE_EVENTS", 1),
  maxRequestRows: integerEnv("PETRI_SERVE_MAX_REQUEST_ROWS", MAX_SEARCH_ROWS),
  maxResponseBytes: integerEnv("PETRI_SERVE_MAX_RESPONSE_BYTES", 1),
};
const model = await load(Deno.env.get("PETRI_SERVE_BUNDLE"));
const { scenario_name: name, scenario_description: description } = model.sidecar;
const app = await createApp(model, {
  ...(name ? { title: name } : {}),
  version: PACKAGE_VERSION,
  ...(description ? { description } : {}),
  mount: [PLAYGROUND_PREFIX, playgroundHandler()],
  ...limits,
});

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

async function load(location: string | undefined): Promise<Model> {
  try {
    const source = location ? bundleLocation(location) : EXAMPLE_BUNDLE_URL;
    return await readBundle(await loadOrt(), source);
  } catch (error) {
    if (!(error instanceof BundleError)) throw error;
    console.error(error.message);
    Deno.exit(2);
  }
}

/** The handler `deno serve` runs. */
export default { fetch: app.fetch } satisfies Deno.ServeDefaultExport;
