/**
 * One CSV cell as the playground's download writes it: RFC 4180 quoting, and text a
 * spreadsheet would run as a formula neutralised as OWASP recommends (a leading `'`), except a
 * plain number. Trace attributes and ids come from the log and the model, so they are never
 * trusted to be inert.
 *
 * @module
 */

const FORMULA_START = /^[=+\-@\t\r]/;
const PLAIN_NUMBER = /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/;

/**
 * The cell's text: neutralised when it would start a formula, then quoted when it holds a
 * comma, quote or line break.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { csvCell } from "./csv_cell.ts";
 * assert.equal(csvCell("=cmd|' /C calc'!A0"), "'=cmd|' /C calc'!A0");
 * assert.equal(csvCell("\r=1"), "\"'\r=1\"");
 * assert.equal(csvCell("-5"), "-5");
 * assert.equal(csvCell('say "hi", then go'), '"say ""hi"", then go"');
 * ```
 */
export function csvCell(text: string): string {
  const inert = FORMULA_START.test(text) && !PLAIN_NUMBER.test(text) ? `'${text}` : text;
  return /[",\r\n]/.test(inert) ? `"${inert.replaceAll('"', '""')}"` : inert;
}
