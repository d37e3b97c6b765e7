/**
 * The one error a bundle that cannot be written or loaded is refused with.
 *
 * @module
 */

import type { ModelDescriptionError } from "../net/model_description_error.ts";

export { messageOf } from "../runtime/mod.ts";

/** A bundle that cannot be written or loaded; `detail` names the file and the problem. */
export class BundleError extends Error {
  /** Builds the error; `detail` names the file and what is wrong with it. */
  constructor(detail: string, options?: ErrorOptions) {
    super(`Cannot load bundle: ${detail}`, options);
    this.name = "BundleError";
  }
}

/**
 * The {@link BundleError} for an invalid model description: it blames `sidecarName` when the
 * first issue is in an input spec (those come from the sidecar), else `modelName`.
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { invalidModelError } from "./bundle_error.ts";
 * import { ModelDescriptionError } from "../net/model_description_error.ts";
 * const error = new ModelDescriptionError([
 *   { path: "input_values_spec.p_x", message: "'p_x' is not a place of the net" },
 *   { path: "net", message: "expected an object, got nothing" },
 * ]);
 * assert.equal(
 *   invalidModelError(error, "m.pt.meta.json", "m.pt", "holds an invalid model").message,
 *   "Cannot load bundle: m.pt.meta.json holds an invalid model: input_values_spec.p_x: " +
 *     "'p_x' is not a place of the net (and 1 more issues)",
 * );
 * ```
 */
export function invalidModelError(
  error: ModelDescriptionError,
  sidecarName: string,
  modelName: string,
  phrase: string,
): BundleError {
  const first = error.issues[0]!;
  const where = first.path.startsWith("input_") ? sidecarName : modelName;
  const more = error.issues.length > 1 ? ` (and ${error.issues.length - 1} more issues)` : "";
  return new BundleError(`${where} ${phrase}: ${first.path}: ${first.message}${more}`, {
    cause: error,
  });
}
