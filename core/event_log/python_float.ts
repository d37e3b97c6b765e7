/**
 * Parses text exactly as Python's `float(str)` does, as PETRA turns a trace attribute into a
 * marking or value.
 *
 * @module
 */

// Characters float() strips around its argument: str.isspace() minus U+001C..U+001F (checked
// against CPython 3.12 by trying every code point).
const SPACE = "\t\n\v\f\r \x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000";
const TRIM = new RegExp(`^[${SPACE}]+|[${SPACE}]+$`, "g");
const DIGITS = String.raw`\d(?:_?\d)*`;
const NUMBER = new RegExp(
  String.raw`^[+-]?(?:${DIGITS}(?:\.(?:${DIGITS})?)?|\.${DIGITS})(?:[eE][+-]?${DIGITS})?$`,
);
const SPECIAL = /^([+-]?)(inf|infinity|nan)$/i;
const NON_ASCII_DIGIT = /\P{ASCII}/u;
const DECIMAL_DIGIT = /\p{Nd}/u;

/**
 * Returns the number Python's `float(text)` returns, or `undefined` where Python raises
 * `ValueError`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { parsePythonFloat } from "./python_float.ts";
 * assert.equal(parsePythonFloat(" 1_000.5 "), 1000.5);
 * assert.equal(parsePythonFloat("-Infinity"), -Infinity);
 * assert.equal(parsePythonFloat("٣.٥"), 3.5);
 * assert.equal(parsePythonFloat("0x10"), undefined);
 * assert.equal(parsePythonFloat("High"), undefined);
 * ```
 */
export function parsePythonFloat(text: string): number | undefined {
  let body = text.replace(TRIM, "");
  if (NON_ASCII_DIGIT.test(body)) body = asciiDigits(body);
  const special = SPECIAL.exec(body);
  if (special) {
    const value = special[2]!.toLowerCase() === "nan" ? NaN : Infinity;
    return special[1] === "-" ? -value : value;
  }
  if (!NUMBER.test(body)) return undefined;
  return Number(body.replaceAll("_", ""));
}

/** Replaces every Unicode decimal digit by its ASCII digit, as CPython does before parsing. */
function asciiDigits(text: string): string {
  let out = "";
  for (const ch of text) {
    out += DECIMAL_DIGIT.test(ch) ? String(digitValue(ch.codePointAt(0)!)) : ch;
  }
  return out;
}

/** Unicode encodes each decimal digit set as 0..9 in a row, the sets back to back. */
function digitValue(codePoint: number): number {
  let zero = codePoint;
  while (DECIMAL_DIGIT.test(String.fromCodePoint(zero - 1))) zero--;
  return (codePoint - zero) % 10;
}
