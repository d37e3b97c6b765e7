/**
 * One CSV cell as the playground's download writes it: RFC 4180 quoting, and text that a
 * spreadsheet would run as a formula neutralised as OWASP recommends (a cell starting with
 * `=`, `+`, `-`, `@`, a tab or a carriage return gets a leading `'`), except a plain number
 * such as `-5` or `+1.5e3`, which stays a number. Trace attributes and transition ids come
 * from the log and the model, so they are never trusted to be inert.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { csvCell } from "./csv_cell.ts";
 * assert.equal(csvCell("=1+2"), "'=1+2");
 * assert.equal(csvCell("-5"), "-5");
 * assert.equal(csvCell('say "hi", then go'), '"say ""hi"", then go"');
 * ```
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
 * assert.equal(csvCell("@SUM(A1)"), "'@SUM(A1)");
 * assert.equal(csvCell("\t=1"), "'\t=1");
 * assert.equal(csvCell("\r=1"), "\"'\r=1\"");
 * assert.equal(csvCell("+1.5e3"), "+1.5e3");
 * assert.equal(csvCell("plain"), "plain");
 * ```
 */
export function csvCell(text: string): string {
  const inert = FORMULA_START.test(text) && !PLAIN_NUMBER.test(text) ? `'${text}` : text;
  return /[",\r\n]/.test(inert) ? `"${inert.replaceAll('"', '""')}"` : inert;
}
