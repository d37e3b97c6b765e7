/**
 * Byte helpers several stages share: joining chunks, telling a file's kind from its first bytes.
 *
 * @module
 */

export { concatBytes } from "./concat_bytes.ts";
export { describeKind, type FileKind, SNIFF_BYTES, sniffFile } from "./file_kind.ts";
