/**
 * What a file holds, told from its first bytes, so a file given in the wrong place is refused.
 *
 * @module
 */

/** What the first bytes of a file look like; `binary` when none of the others. */
export type FileKind =
  | "onnx"
  | "zip"
  | "gzip"
  | "utf16"
  | "html"
  | "xml"
  | "json"
  | "csv"
  | "text"
  | "binary";

/** How many leading bytes {@link sniffFile} looks at. */
export const SNIFF_BYTES = 512;

/**
 * Tells what `bytes` (a file's start; {@link SNIFF_BYTES} are enough) hold.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { sniffFile } from "./file_kind.ts";
 * const text = (s: string) => new TextEncoder().encode(s);
 * assert.equal(sniffFile(text('{"format": "petri-net-model/1"}')), "json");
 * assert.equal(sniffFile(text("<!DOCTYPE html><html>")), "html");
 * assert.equal(sniffFile(new Uint8Array([0x08, 0x08, 0x12, 0x0c])), "onnx");
 * ```
 */
export function sniffFile(bytes: Uint8Array): FileKind {
  const [a, b, c, d] = bytes;
  if (a === 0x1f && b === 0x8b) return "gzip";
  if (a === 0x50 && b === 0x4b && c === 0x03 && d === 0x04) return "zip";
  if ((a === 0xff && b === 0xfe) || (a === 0xfe && b === 0xff)) return "utf16";
  if ((a === 0x3c && b === 0 && d === 0) || (a === 0 && b === 0x3c && c === 0)) return "utf16";
  // ONNX's ModelProto starts with ir_version (field 1, a varint: tag 0x08) and a small value.
  if (a === 0x08 && b !== undefined && b > 0 && b < 0x20) return "onnx";
  const head = textHead(bytes);
  if (head === undefined) return "binary";
  const start = head.replace(/^\uFEFF/, "").trimStart();
  if (/^<(!doctype\s+html|html[\s>]|head[\s>]|body[\s>])/i.test(start)) return "html";
  if (start.startsWith("<")) return /<html[\s>]/i.test(start) ? "html" : "xml";
  if (start.startsWith("{") || start.startsWith("[")) return "json";
  const firstLine = start.split(/\r?\n/, 1)[0] ?? "";
  if (/[,;\t]/.test(firstLine)) return "csv";
  return "text";
}

/** A few words saying what a file of `kind` is, for messages (`an HTML page`). */
export function describeKind(kind: FileKind): string {
  return DESCRIPTIONS[kind];
}

const DESCRIPTIONS: Readonly<Record<FileKind, string>> = {
  onnx: "an ONNX model",
  zip: "a zip archive (a PETRA .pt file is one)",
  gzip: "gzip-compressed",
  utf16: "UTF-16 text",
  html: "an HTML page",
  xml: "XML (an XES event log?)",
  json: "JSON",
  csv: "CSV text (an event log?)",
  text: "plain text",
  binary: "binary data",
};

/** The bytes as text when they decode as UTF-8 without control characters, else undefined. */
function textHead(bytes: Uint8Array): string | undefined {
  const slice = bytes.subarray(0, SNIFF_BYTES);
  let text: string;
  try {
    // A multi-byte character cut at the slice's end is not an error.
    text = new TextDecoder("utf-8", { fatal: true }).decode(slice, { stream: true });
  } catch {
    return undefined;
  }
  return /(?![\t\n\v\f\r])\p{Cc}/u.test(text) ? undefined : text;
}
