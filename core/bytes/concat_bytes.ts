/**
 * Joins byte chunks read from a stream into one array.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { concatBytes } from "./concat_bytes.ts";
 * const joined = concatBytes([new Uint8Array([1, 2]), new Uint8Array([3])]);
 * assert.deepEqual([...joined], [1, 2, 3]);
 * ```
 *
 * @module
 */

/**
 * The chunks one after another; a single chunk is returned as it is, not copied.
 *
 * @param size the chunks' total length, when the caller has counted it already
 */
export function concatBytes(
  chunks: readonly Uint8Array[],
  size: number = chunks.reduce((n, chunk) => n + chunk.byteLength, 0),
): Uint8Array {
  if (chunks.length === 1) return chunks[0]!;
  const out = new Uint8Array(size);
  let at = 0;
  for (const chunk of chunks) {
    out.set(chunk, at);
    at += chunk.byteLength;
  }
  return out;
}
