/**
 * The version a served model is known by: a prefix of its ONNX file's SHA-256, so the same bytes
 * always have the same version, with nothing to keep in step.
 *
 * @module
 */

/** How many hex digits of the hash the version keeps (48 bits: no collision in one deployment). */
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
 * assert.equal(modelVersion("3F2A9C0D1B7E" + "0".repeat(52)), "3f2a9c0d1b7e");
 * assert.throws(() => modelVersion("abc"), RangeError);
 * ```
 */
export function modelVersion(onnxSha256: string): string {
  if (!/^[0-9a-fA-F]{64}$/.test(onnxSha256)) {
    throw new RangeError(`An ONNX SHA-256 is 64 hex digits, got ${JSON.stringify(onnxSha256)}`);
  }
  return onnxSha256.slice(0, MODEL_VERSION_DIGITS).toLowerCase();
}
