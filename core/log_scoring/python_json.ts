/**
 * The scalars of Python's `json.dump`, written as Python writes them, so scored logs match
 * PETRA's score files byte for byte.
 *
 * @module
 */

/**
 * A number as Python's `json.dump` writes a float: `repr` (shortest round-trip digits, `1.0`
 * for integral values, exponent form below 1e-4 and from 1e16), and `null` for a non-finite
 * number (petri-serve's deliberate difference: PETRA would write `NaN`).
 *
 * @example
 * ```ts
 * import { pythonFloat } from "./python_json.ts";
 * import assert from "node:assert/strict";
 * assert.equal(pythonFloat(1), "1.0");
 * assert.equal(pythonFloat(3.62396240234375e-5), "3.62396240234375e-05");
 * assert.equal(pythonFloat(NaN), "null");
 * ```
 */
export function pythonFloat(x: number): string {
  // Between 1e-4 and 1e16 both languages write plain decimals; Python adds ".0" to integers.
  if (x >= 1e-4 ? x < 1e16 : x <= -1e-4 && x > -1e16) {
    const text = String(x);
    return text.includes(".") ? text : `${text}.0`;
  }
  if (!Number.isFinite(x)) return "null";
  if (x === 0) return Object.is(x, -0) ? "-0.0" : "0.0";
  const sign = x < 0 ? "-" : "";
  const { digits, point } = shortestDigits(Math.abs(x));
  // Python's float repr switches to exponent form when the point is this far out.
  if (point <= -4 || point > 16) {
    const exponent = point - 1;
    const mantissa = digits.length === 1 ? digits : `${digits[0]}.${digits.slice(1)}`;
    const e = String(Math.abs(exponent)).padStart(2, "0");
    return `${sign}${mantissa}e${exponent < 0 ? "-" : "+"}${e}`;
  }
  if (point <= 0) return `${sign}0.${"0".repeat(-point)}${digits}`;
  if (point >= digits.length) return `${sign}${digits}${"0".repeat(point - digits.length)}.0`;
  return `${sign}${digits.slice(0, point)}.${digits.slice(point)}`;
}

/** The shortest round-trip digits of x > 0 (as Python's repr): x = 0.DIGITS × 10^point. */
function shortestDigits(x: number): { digits: string; point: number } {
  const text = String(x);
  const e = text.indexOf("e");
  if (e !== -1) {
    const mantissa = text.slice(0, e).replace(".", "");
    return { digits: mantissa, point: Number(text.slice(e + 1)) + 1 };
  }
  const dot = text.indexOf(".");
  let digits = dot === -1 ? text : text.slice(0, dot) + text.slice(dot + 1);
  let point = dot === -1 ? text.length : dot;
  const lead = digits.length - digits.replace(/^0+/, "").length;
  digits = digits.slice(lead).replace(/0+$/, "");
  point -= lead;
  return { digits, point };
}

// Python's json escapes `"`, `\` and everything outside printable ASCII (ensure_ascii=True,
// the default): whatever is not a space, `!`, `#`..`[` or `]`..`~`.
const ESCAPED = /[^ !#-[\]-~]/g;
const PLAIN = /^[ !#-[\]-~]*$/;
const SHORT_ESCAPES: Readonly<Record<string, string>> = {
  "\\": "\\\\",
  '"': '\\"',
  "\b": "\\b",
  "\f": "\\f",
  "\n": "\\n",
  "\r": "\\r",
  "\t": "\\t",
};

/**
 * A string as Python's `json.dump` writes it by default: double quotes, and every character
 * outside printable ASCII escaped as `\uXXXX` (UTF-16 units, lower-case hex).
 *
 * @example
 * ```ts
 * import { pythonString } from "./python_json.ts";
 * import assert from "node:assert/strict";
 * assert.equal(pythonString('say "été"'), '"say \\"\\u00e9t\\u00e9\\""');
 * ```
 */
export function pythonString(text: string): string {
  // Most strings need no escape: testing first is cheaper than a replace that finds nothing.
  if (PLAIN.test(text)) return `"${text}"`;
  return `"${
    text.replace(
      ESCAPED,
      (ch) => SHORT_ESCAPES[ch] ?? `\\u${ch.charCodeAt(0).toString(16).padStart(4, "0")}`,
    )
  }"`;
}
