/**
 * The CRC-32 checks of a zip archive: `fflate` does not verify the checksums a zip records,
 * torch's reader does, so a `.pt` whose bytes changed after `torch.save` is refused here
 * instead of served with wrong parameters.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { zipSync } from "fflate";
 * import { crc32, zipEntryCrcs } from "./zip_crc.ts";
 * const data = new TextEncoder().encode("123456789");
 * assert.equal(crc32(data), 0xcbf43926); // the standard check value
 * const zip = zipSync({ "m/data.pkl": [data, { level: 0 }] });
 * assert.equal(zipEntryCrcs(zip).get("m/data.pkl"), 0xcbf43926);
 * ```
 *
 * @module
 */

const TABLE = (() => {
  const table = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    table[n] = c >>> 0;
  }
  return table;
})();

/** The CRC-32 (ISO-HDLC, as zip uses) of `bytes`, as an unsigned integer. */
export function crc32(bytes: Uint8Array): number {
  let c = 0xffffffff;
  for (let i = 0; i < bytes.length; i++) c = TABLE[(c ^ bytes[i]!) & 0xff]! ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

const END = 0x06054b50;
const ZIP64_LOCATOR = 0x07064b50;
const ZIP64_END = 0x06064b50;
const CENTRAL = 0x02014b50;

/**
 * Entry name → the CRC-32 the central directory records for it. Names are read as Latin-1
 * (the names a `.pt` reader looks up are ASCII). Returns an empty map when the directory cannot
 * be found or runs past the end of the bytes: the zip reader reports those archives itself.
 */
export function zipEntryCrcs(bytes: Uint8Array): Map<string, number> {
  const crcs = new Map<string, number>();
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const end = findEnd(view);
  if (end < 0) return crcs;
  let entries = view.getUint16(end + 10, true);
  let at = view.getUint32(end + 16, true);
  if ((entries === 0xffff || at === 0xffffffff) && end >= 20) {
    const locator = end - 20;
    if (view.getUint32(locator, true) === ZIP64_LOCATOR) {
      const zip64End = Number(view.getBigUint64(locator + 8, true));
      if (zip64End + 56 <= view.byteLength && view.getUint32(zip64End, true) === ZIP64_END) {
        entries = Number(view.getBigUint64(zip64End + 32, true));
        at = Number(view.getBigUint64(zip64End + 48, true));
      }
    }
  }
  for (let i = 0; i < entries; i++) {
    if (at + 46 > view.byteLength || view.getUint32(at, true) !== CENTRAL) return new Map();
    const nameLength = view.getUint16(at + 28, true);
    const extraLength = view.getUint16(at + 30, true);
    const commentLength = view.getUint16(at + 32, true);
    if (at + 46 + nameLength > view.byteLength) return new Map();
    const name = String.fromCharCode(...bytes.subarray(at + 46, at + 46 + nameLength));
    crcs.set(name, view.getUint32(at + 16, true));
    at += 46 + nameLength + extraLength + commentLength;
  }
  return crcs;
}

/** The offset of the end-of-central-directory record, searched back from the end, or -1. */
function findEnd(view: DataView): number {
  const last = view.byteLength - 22;
  for (let at = last; at >= 0 && at >= last - 0xffff; at--) {
    if (view.getUint32(at, true) === END) return at;
  }
  return -1;
}
