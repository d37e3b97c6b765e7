/**
 * Byte helpers that several stages and the edges share: joining chunks, and telling what a
 * file holds from its first bytes.
 *
 * @module
 */

export { concatBytes } from "./concat_bytes.ts";
export { describeKind, type FileKind, SNIFF_BYTES, sniffFile } from "./file_kind.ts";
