/**
 * The version a served model is known by (`/v2/models/{name}`'s `versions`, OIP's
 * `model_version`, the `inspect` summary): the first {@link MODEL_VERSION_DIGITS} hex digits
 * of its ONNX file's SHA-256 (the sidecar's `onnx_sha256`), so the same bytes always have the
 * same version and any retrained or recompiled model a new one, with nothing to keep in step.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { modelVersion } from "./model_version.ts";
 * assert.equal(modelVersion("3f2a9c0d1b7e" + "0".repeat(52)), "3f2a9c0d1b7e");
 * ```
 *
 * @module
 */

/**
 * How many hex digits of the hash the version keeps (48 bits: a collision between two models
 * of one deployment is out of reach).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { MODEL_VERSION_DIGITS } from "./model_version.ts";
 * assert.equal(MODEL_VERSION_DIGITS, 12);
 * ```
 */
export const MODEL_VERSION_DIGITS = 12;

/**
 * The version of the model whose ONNX file has the SHA-256 `onnxSha256` (hex).
 *
 * @throws {RangeError} when `onnxSha256` is not 64 hex digits.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { modelVersion } from "./model_version.ts";
 * assert.throws(() => modelVersion("abc"), RangeError);
 * ```
 */
export function modelVersion(onnxSha256: string): string {
  if (!/^[0-9a-fA-F]{64}$/.test(onnxSha256)) {
    throw new RangeError(`An ONNX SHA-256 is 64 hex digits, got ${JSON.stringify(onnxSha256)}`);
  }
  return onnxSha256.slice(0, MODEL_VERSION_DIGITS).toLowerCase();
}
