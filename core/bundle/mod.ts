/**
 * Bundles: a compiled `NAME.onnx` (self-describing: its metadata holds the model description)
 * and its sidecar `NAME.onnx.meta.json` (the hash, the input specs). PETRA's `.pt` pair is
 * read by `core/pt/`, which builds on this stage.
 *
 * @module
 */

export { type BundleFiles, loadBundle, type LoadOptions, type Model } from "./load_bundle.ts";
export { BundleError, messageOf } from "./bundle_error.ts";
export { compileBundle, type CompiledBundle, METADATA_KEYS } from "./compile_bundle.ts";
export { fileStem, modelName } from "./model_name.ts";
export { MODEL_VERSION_DIGITS, modelVersion } from "./model_version.ts";
export { PACKAGE_LICENSE, PACKAGE_NAME, PACKAGE_VERSION } from "./version.ts";
export {
  BUNDLE_FORMAT,
  type BundleOptions,
  createSidecar,
  formatSidecar,
  type Producer,
  sha256Hex,
  type Sidecar,
  type SidecarSpecEntry,
} from "./sidecar.ts";
