/**
 * Bundles: a compiled `NAME.onnx` and its JSON sidecar `NAME.onnx.meta.json`. The ONNX file is
 * self-describing (its metadata holds the model description's `net`, `module` and
 * `parameters`); the sidecar holds its hash and the input specs. {@link openBundle} opens either
 * kind of bundle, petri-serve's or PETRA's `.pt` pair.
 *
 * @module
 */

export { type BundleFiles, loadBundle, type LoadOptions, type Model } from "./load_bundle.ts";
export { type AnyBundleFiles, openBundle } from "./open_bundle.ts";
export { BundleError } from "./bundle_error.ts";
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
  type Sidecar,
  type SidecarSpecEntry,
} from "./sidecar.ts";
