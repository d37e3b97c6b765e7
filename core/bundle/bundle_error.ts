/**
 * The one error a bundle that cannot be written or loaded is refused with; its message names
 * the file at fault and what is wrong.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { BundleError } from "./bundle_error.ts";
 * const error = new BundleError("model.onnx.meta.json is missing");
 * assert.equal(error.message, "Cannot load bundle: model.onnx.meta.json is missing");
 * ```
 *
 * @module
 */

/**
 * A bundle that cannot be written or loaded; the message names the file and the problem.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { BundleError } from "./bundle_error.ts";
 * assert.equal(
 *   new BundleError("model.onnx.meta.json is missing").message,
 *   "Cannot load bundle: model.onnx.meta.json is missing",
 * );
 * ```
 */
export class BundleError extends Error {
  /**
   * Builds the error; `detail` names the file and what is wrong with it.
   *
   * @example
   * ```ts
   * import assert from "node:assert/strict";
   * import { BundleError } from "./bundle_error.ts";
   * const cause = new SyntaxError("Unexpected end of JSON input");
   * const error = new BundleError("model.onnx.meta.json is not valid JSON", { cause });
   * assert.equal(error.name, "BundleError");
   * assert.equal(error.cause, cause);
   * ```
   */
  constructor(detail: string, options?: ErrorOptions) {
    super(`Cannot load bundle: ${detail}`, options);
    this.name = "BundleError";
  }
}

/** The message of anything thrown. */
export function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
