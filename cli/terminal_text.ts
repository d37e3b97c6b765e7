/**
 * Text from a model or a log made safe to print on a terminal: control characters (which
 * start escape sequences that retitle, recolour or forge lines) and bidirectional controls
 * are written as escapes, so the text stays on its one line and shows as written.
 *
 * @module
 */

const SHORT: Readonly<Record<string, string>> = { "\t": "\\t", "\n": "\\n", "\r": "\\r" };
const UNSAFE = /[\p{Cc}\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/gu;

/**
 * `text` with every control character written as an escape.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { terminalText } from "./terminal_text.ts";
 * assert.equal(terminalText("\x1b]0;PWNED\x07"), "\\x1b]0;PWNED\\x07");
 * assert.equal(terminalText("loans\r\nFAKE LINE"), "loans\\r\\nFAKE LINE");
 * assert.equal(terminalText("abc\u202edef"), "abc\\u202edef");
 * ```
 */
export function terminalText(text: string): string {
  return text.replace(UNSAFE, (c) => {
    const short = SHORT[c];
    if (short !== undefined) return short;
    const code = c.charCodeAt(0);
    return code <= 0xff
      ? `\\x${code.toString(16).padStart(2, "0")}`
      : `\\u${code.toString(16).padStart(4, "0")}`;
  });
}
