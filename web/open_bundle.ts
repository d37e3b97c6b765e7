/**
 * Opening what the user picked in the browser: petri-serve's `.onnx` pair (checked by
 * `loadBundle`) or PETRA's own `.pt` pair (read without running anything from it and compiled
 * in memory by `loadPtBundle`, exactly as `cli.ts serve model.pt` does).
 *
 * @example
 * ```ts
 * import { bundleFileName } from "./open_bundle.ts";
 * bundleFileName({ pt: new Uint8Array(), sidecar: "{}", ptName: "m.pt", sidecarName: "m.pt.meta.json" });
 * // "m.pt"
 * ```
 *
 * @module
 */

import { type BundleFiles, loadBundle, type LoadOptions, type Model } from "../core/bundle.ts";
import { loadPtBundle } from "../core/pt/load_pt_bundle.ts";
import type { PtBundleFiles } from "../core/pt/read_pt_model.ts";
import type { OrtModule } from "../core/runtime.ts";

/** Either kind of bundle's files. */
export type AnyBundleFiles = BundleFiles | PtBundleFiles;

/**
 * The model file's name (`NAME.onnx` or `NAME.pt`).
 *
 * @example
 * ```ts
 * import { bundleFileName } from "./open_bundle.ts";
 * declare const files: import("./open_bundle.ts").AnyBundleFiles;
 * bundleFileName(files);
 * ```
 */
export function bundleFileName(files: AnyBundleFiles): string {
  return "pt" in files ? files.ptName : files.onnxName;
}

/**
 * Loads either kind of bundle.
 *
 * @throws {import("../core/bundle.ts").BundleError} naming the file at fault.
 *
 * @example
 * ```ts
 * import * as ort from "onnxruntime-web";
 * import { openBundle } from "./open_bundle.ts";
 * declare const files: import("./open_bundle.ts").AnyBundleFiles;
 * await using model = await openBundle(ort, files);
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
