/**
 * PETRA's `.pt` bundles, read safely: the zip, a restricted pickle reader that builds no object
 * it was not asked for, and the net they hold, compiled and loaded like any bundle.
 * {@link openBundle} opens either kind, petri-serve's `.onnx` pair or a `.pt` pair: it is here,
 * above `core/bundle/`, because it knows both.
 *
 * @module
 */

export { loadPtBundle } from "./load_pt_bundle.ts";
export { type AnyBundleFiles, openBundle } from "./open_bundle.ts";
export { type PtBundleFiles, type PtModel, readPtModel } from "./read_pt_model.ts";
export { PT_LIMITS, type PtLimits } from "./pt_limits.ts";
