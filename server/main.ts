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
 * Admission control takes its bounds from `PETRI_SERVE_MAX_BODY_MEMORY_BYTES`,
 * `PETRI_SERVE_MAX_QUEUE_ROWS` and `PETRI_SERVE_QUEUE_TIMEOUT_MS` (whole numbers; the defaults of
 * `cli.ts serve`'s flags of the same names otherwise); a value that is not a positive whole
 * number stops start-up with exit code 2. A model whose session cannot be recreated after
 * failed runs stops the process with exit code 1, so that the platform starts a new one.
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

const admission = {
  maxBodyMemoryBytes: envInteger("PETRI_SERVE_MAX_BODY_MEMORY_BYTES"),
  maxQueueRows: envInteger("PETRI_SERVE_MAX_QUEUE_ROWS"),
  queueTimeoutMs: envInteger("PETRI_SERVE_QUEUE_TIMEOUT_MS"),
};
const model = await load(Deno.env.get("PETRI_SERVE_BUNDLE"));
const { scenario_name: name, scenario_description: description } = model.sidecar;
const app = await createApp(model, {
  ...(name ? { title: name } : {}),
  version: PACKAGE_VERSION,
  ...(description ? { description } : {}),
  mount: [PLAYGROUND_PREFIX, playgroundHandler()],
  ...admission,
  onModelFailed: () => Deno.exit(1),
});

/** A positive whole number from the environment; `undefined` when the variable is unset. */
function envInteger(variable: string): number | undefined {
  const text = Deno.env.get(variable);
  if (text === undefined || text === "") return undefined;
  const value = Number(text);
  if (!/^\d+$/.test(text) || !Number.isSafeInteger(value) || value < 1) {
    console.error(`${variable} must be a positive whole number, got '${text}'`);
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
