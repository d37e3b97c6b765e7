/**
 * Opening what the user picked in the browser: petri-serve's `.onnx` pair (checked by
 * `loadBundle`) or PETRA's own `.pt` pair (read without running anything from it and compiled
 * in memory by `loadPtBundle`, exactly as `cli.ts serve model.pt` does). Loading is
 * `core/open_bundle.ts`'s {@link openBundle}, re-exported here.
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

import type { AnyBundleFiles } from "../core/open_bundle.ts";

export { type AnyBundleFiles, openBundle } from "../core/open_bundle.ts";

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
