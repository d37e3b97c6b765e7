/**
 * Joins byte chunks read from a stream into one array.
 *
 * @module
 */

/** The chunks one after another (a single one as it is); `size` is their length if counted. */
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
