/**
 * The Deno Deploy entry point: serves the bundle named by `PETRI_SERVE_BUNDLE` (a path or URL;
 * default: the embedded example) with the service and the playground. Needs only
 * `--allow-read --allow-env --allow-net`:
 *
 * ```sh
 * deno run --allow-read --allow-env --allow-net server/main.ts
 * ```
 *
 * @module
 */

import * as ort from "onnxruntime-web";
import { PACKAGE_VERSION } from "../core/version.ts";
import { EXAMPLE_BUNDLE_URL, readBundle } from "../adapter/deno/bundle_files.ts";
import { createApp } from "./mod.ts";
import { playgroundHandler } from "../adapter/deno/serve_static.ts";

ort.env.wasm.numThreads = 1;

const model = await readBundle(ort, Deno.env.get("PETRI_SERVE_BUNDLE") ?? EXAMPLE_BUNDLE_URL);
const { scenario_name: name, scenario_description: description } = model.sidecar;
const app = await createApp(model, {
  ...(name ? { title: name } : {}),
  version: PACKAGE_VERSION,
  ...(description ? { description } : {}),
});
const playground = playgroundHandler();

Deno.serve(async (request) => (await playground(request)) ?? await app.fetch(request));
