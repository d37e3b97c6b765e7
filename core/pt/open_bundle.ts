/**
 * Loads either kind of bundle, petri-serve's `.onnx` pair or PETRA's `.pt` pair: the one place
 * that decides which loader a bundle's files go to, on every face.
 *
 * @module
 */

import {
  type BundleFiles,
  loadBundle,
  type LoadOptions,
  type Model,
} from "../bundle/load_bundle.ts";
import { loadPtBundle } from "./load_pt_bundle.ts";
import type { PtBundleFiles } from "./read_pt_model.ts";
import type { OrtModule } from "../runtime/mod.ts";

/** Either kind of bundle's files: `.onnx` ({@link BundleFiles}) or `.pt` ({@link PtBundleFiles}). */
export type AnyBundleFiles = BundleFiles | PtBundleFiles;

/**
 * Loads either kind of bundle: `.pt` files (they have `pt`) with `loadPtBundle`, `.onnx` files
 * with `loadBundle`.
 *
 * @throws {import("../bundle/bundle_error.ts").BundleError} naming the file at fault.
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
