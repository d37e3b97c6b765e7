/**
 * Loading either kind of bundle from its two files: petri-serve's `.onnx` pair (checked by
 * `loadBundle`) or PETRA's own `.pt` pair (read without running anything from it and compiled
 * in memory by `loadPtBundle`). The one place that decides which loader a bundle's files go
 * to; `adapter/deno/bundle_files.ts` (files on disk or behind a URL) and the playground (files
 * the user picked) both call it.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import * as ort from "onnxruntime-web";
 * import { openBundle } from "./open_bundle.ts";
 * const dir = "tests/fixtures/conformance/rest_serving";
 * await using model = await openBundle(ort, {
 *   pt: await Deno.readFile(`${dir}/model.pt`),
 *   sidecar: await Deno.readTextFile(`${dir}/model.pt.meta.json`),
 *   ptName: "model.pt",
 *   sidecarName: "model.pt.meta.json",
 * });
 * assert.equal(model.sidecar.scenario_name, "rest_serving");
 * ```
 *
 * @module
 */

import { type BundleFiles, loadBundle, type LoadOptions, type Model } from "./bundle.ts";
import { loadPtBundle } from "./pt/load_pt_bundle.ts";
import type { PtBundleFiles } from "./pt/read_pt_model.ts";
import type { OrtModule } from "./runtime/mod.ts";

/** Either kind of bundle's files: `.onnx` ({@link BundleFiles}) or `.pt` ({@link PtBundleFiles}). */
export type AnyBundleFiles = BundleFiles | PtBundleFiles;

/**
 * Loads either kind of bundle: `.pt` files (they have `pt`) with `loadPtBundle`, `.onnx` files
 * with `loadBundle`.
 *
 * @throws {import("./bundle.ts").BundleError} naming the file at fault.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import * as ort from "onnxruntime-web";
 * import { openBundle } from "./open_bundle.ts";
 * await using model = await openBundle(ort, {
 *   onnx: await Deno.readFile("examples/rest_serving/rest_serving.onnx"),
 *   sidecar: await Deno.readTextFile("examples/rest_serving/rest_serving.onnx.meta.json"),
 *   onnxName: "rest_serving.onnx",
 *   sidecarName: "rest_serving.onnx.meta.json",
 * });
 * assert.deepEqual(model.net.transitions, ["t_approve", "t_decline"]);
 * ```
 */
export async function openBundle(
  ort: OrtModule,
  files: AnyBundleFiles,
  options: LoadOptions = {},
): Promise<Model> {
  return "pt" in files
    ? await loadPtBundle(ort, files, options)
    : await loadBundle(ort, files, options);
}
