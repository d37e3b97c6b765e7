/**
 * Opens a PETRA `.pt` bundle as a served {@link Model}: read, compiled in memory, then loaded,
 * so a `.pt` is checked and run exactly as the `.onnx` bundle compiled from it would be.
 *
 * @module
 */

import { loadBundle, type LoadOptions, type Model } from "../bundle/load_bundle.ts";
import { compileBundle, type CompiledBundle } from "../bundle/compile_bundle.ts";
import { BundleError } from "../bundle/bundle_error.ts";
import { ModelLimitError } from "../net/model_limits.ts";
import type { OrtModule } from "../runtime/mod.ts";
import { type PtBundleFiles, readPtModel } from "./read_pt_model.ts";

/**
 * Reads, compiles and loads a PETRA bundle. The model's sidecar is the one the compiler
 * writes (PETRA's fields, `saved_at` from PETRA's sidecar, the in-memory ONNX's hash).
 *
 * @throws {import("../bundle/bundle_error.ts").BundleError} naming the file at fault.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { loadPtBundle } from "./load_pt_bundle.ts";
 * import { loadOrt } from "../../adapter/deno/ort.ts";
 * const fixture = new URL("../../tests/fixtures/conformance/rest_serving/", import.meta.url);
 * const files = {
 *   pt: await Deno.readFile(new URL("model.pt", fixture)),
 *   sidecar: await Deno.readTextFile(new URL("model.pt.meta.json", fixture)),
 *   ptName: "model.pt",
 *   sidecarName: "model.pt.meta.json",
 * };
 * await using model = await loadPtBundle(await loadOrt(), files);
 * assert.equal(model.sidecar.scenario_name, "rest_serving");
 * // It runs as the compiled bundle would: a clear application is approved.
 * const [row] = await model.run([{ marking: new Map([["p_application", 1]]) }], {
 *   withGradient: false,
 * });
 * assert.ok(row!.transitions[0]! > 0.99);
 * ```
 */
export async function loadPtBundle(
  ort: OrtModule,
  files: PtBundleFiles,
  options: LoadOptions = {},
): Promise<Model> {
  const { model, savedAt } = readPtModel(files);
  let bundle: CompiledBundle;
  try {
    bundle = await compileBundle(model, savedAt === undefined ? {} : { savedAt });
  } catch (error) {
    if (!(error instanceof ModelLimitError)) throw error;
    throw new BundleError(`${files.ptName} is over a model limit: ${error.message}`, {
      cause: error,
    });
  }
  return await loadBundle(ort, {
    onnx: bundle.onnx,
    sidecar: bundle.sidecar,
    onnxName: `${files.ptName} (compiled in memory)`,
    sidecarName: files.sidecarName,
    modelFile: files.ptName,
  }, options);
}
