/**
 * Opens a PETRA `.pt` bundle as a served {@link Model}: {@link readPtModel}, then the
 * compiler in memory (`compileBundle`), then `loadBundle`, so a `.pt` is checked and run
 * exactly as the `.onnx` bundle `cli.ts compile` would write from the same model.
 *
 * @example
 * ```ts
 * import * as ort from "onnxruntime-web";
 * import { loadPtBundle } from "./load_pt_bundle.ts";
 * declare const pt: Uint8Array;
 * declare const sidecar: string;
 * await using model = await loadPtBundle(ort, {
 *   pt,
 *   sidecar,
 *   ptName: "model.pt",
 *   sidecarName: "model.pt.meta.json",
 * });
 * model.net.transitions;
 * ```
 *
 * @module
 */

import { compileBundle, loadBundle, type LoadOptions, type Model } from "../bundle.ts";
import type { OrtModule } from "../runtime.ts";
import { type PtBundleFiles, readPtModel } from "./read_pt_model.ts";

/**
 * Reads, compiles and loads a PETRA bundle. The model's sidecar is the one the compiler
 * writes (PETRA's fields, `saved_at` from PETRA's sidecar, the in-memory ONNX's hash).
 *
 * @throws {import("../bundle.ts").BundleError} naming the file at fault.
 *
 * @example
 * ```ts
 * import * as ort from "onnxruntime-web";
 * import { loadPtBundle } from "./load_pt_bundle.ts";
 * declare const files: import("./read_pt_model.ts").PtBundleFiles;
 * await using model = await loadPtBundle(ort, files);
 * model.sidecar.scenario_name;
 * ```
 */
export async function loadPtBundle(
  ort: OrtModule,
  files: PtBundleFiles,
  options: LoadOptions = {},
): Promise<Model> {
  const { model, savedAt } = readPtModel(files);
  const bundle = await compileBundle(model, savedAt === undefined ? {} : { savedAt });
  return await loadBundle(ort, {
    onnx: bundle.onnx,
    sidecar: bundle.sidecar,
    onnxName: `${files.ptName} (compiled in memory)`,
    sidecarName: files.sidecarName,
  }, options);
}
