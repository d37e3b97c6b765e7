/**
 * Opening what the user picked in the browser, either kind of bundle, with the same loader as
 * the server (`core/pt/open_bundle.ts`), re-exported here.
 *
 * @module
 */

import type { AnyBundleFiles } from "../core/pt/mod.ts";

export { type AnyBundleFiles, openBundle } from "../core/pt/mod.ts";

/**
 * The model file's name (`NAME.onnx` or `NAME.pt`).
 *
 * @example
 * ```ts
 * import { bundleFileName } from "./open_bundle.ts";
 * bundleFileName({ pt: new Uint8Array(), sidecar: "{}", ptName: "m.pt", sidecarName: "m.pt.meta.json" });
 * // "m.pt"
 * ```
 */
export function bundleFileName(files: AnyBundleFiles): string {
  return "pt" in files ? files.ptName : files.onnxName;
}
