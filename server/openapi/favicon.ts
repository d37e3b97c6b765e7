/**
 * `/favicon.ico`: a Petri-net place with one token (a ring with a dot), drawn here as a 32×32
 * icon with an alpha channel, so browsers opening `/docs` or `/` find one instead of a 404.
 * The ICO holds one 32-bit BMP image (ICONDIR, ICONDIRENTRY, BITMAPINFOHEADER, the pixels
 * bottom-up in BGRA, an all-zero AND mask); edges are anti-aliased by sampling each pixel 4×4.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { faviconIco } from "./favicon.ts";
 * const ico = faviconIco();
 * assert.deepEqual([...ico.subarray(0, 6)], [0, 0, 1, 0, 1, 0]); // an icon with one image
 * assert.equal(ico.length, 6 + 16 + 40 + 32 * 32 * 4 + 32 * 4);
 * ```
 *
 * @module
 */

const SIZE = 32;
/** The ring's and the token's colour (RGB). */
const INK = [0x1d, 0x4e, 0x89] as const;

/** Whether the point (x, y), in pixels from the top left, lies on the ring or the token. */
function covered(x: number, y: number): boolean {
  const r = Math.hypot(x - SIZE / 2, y - SIZE / 2);
  return (r >= 12 && r <= 15) || r <= 5.5;
}

/** The icon's bytes. */
export function faviconIco(): Uint8Array<ArrayBuffer> {
  const pixels = SIZE * SIZE * 4;
  const mask = SIZE * 4; // one bit per pixel, rows padded to 32 bits
  const image = 40 + pixels + mask;
  const bytes = new Uint8Array(6 + 16 + image);
  const view = new DataView(bytes.buffer);
  // ICONDIR: reserved, type 1 (icon), one image.
  view.setUint16(2, 1, true);
  view.setUint16(4, 1, true);
  // ICONDIRENTRY: width, height, colours, reserved, planes, bits per pixel, size, offset.
  bytes[6] = SIZE;
  bytes[7] = SIZE;
  view.setUint16(10, 1, true);
  view.setUint16(12, 32, true);
  view.setUint32(14, image, true);
  view.setUint32(18, 22, true);
  // BITMAPINFOHEADER: the height counts the image and its AND mask.
  const header = 22;
  view.setUint32(header, 40, true);
  view.setInt32(header + 4, SIZE, true);
  view.setInt32(header + 8, SIZE * 2, true);
  view.setUint16(header + 12, 1, true);
  view.setUint16(header + 14, 32, true);
  view.setUint32(header + 20, pixels + mask, true);
  const start = header + 40;
  for (let row = 0; row < SIZE; row++) {
    const y = SIZE - 1 - row; // bottom-up
    for (let x = 0; x < SIZE; x++) {
      let hits = 0;
      for (let sy = 0; sy < 4; sy++) {
        for (let sx = 0; sx < 4; sx++) if (covered(x + (sx + 0.5) / 4, y + (sy + 0.5) / 4)) hits++;
      }
      const at = start + (row * SIZE + x) * 4;
      bytes[at] = INK[2];
      bytes[at + 1] = INK[1];
      bytes[at + 2] = INK[0];
      bytes[at + 3] = Math.round((hits / 16) * 255);
    }
  }
  return bytes;
}
