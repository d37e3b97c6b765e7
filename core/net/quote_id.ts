/**
 * Quotes an id the way Python's `repr` quotes a string, so messages name ids exactly as PETRA
 * does.
 *
 * @module
 */

// Python's str.isprintable() is false for these categories; the ASCII space is the exception.
const NON_PRINTABLE = /^[\p{Cc}\p{Cf}\p{Cs}\p{Co}\p{Cn}\p{Zl}\p{Zp}\p{Zs}]$/u;

/**
 * Returns `id` quoted as Python's `repr(id)` would print it: single quotes, unless the id holds
 * a single quote and no double quote; backslashes, the chosen quote and non-printable
 * characters escaped.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { quoteId } from "./quote_id.ts";
 * assert.equal(quoteId("p_x"), "'p_x'");
 * assert.equal(quoteId("it's"), "\"it's\"");
 * assert.equal(quoteId("a\nb"), "'a\\nb'");
 * ```
 */
export function quoteId(id: string): string {
  const quote = id.includes("'") && !id.includes('"') ? '"' : "'";
  let body = "";
  for (const ch of id) body += escapeChar(ch, quote);
  return quote + body + quote;
}

function escapeChar(ch: string, quote: string): string {
  if (ch === "\\" || ch === quote) return "\\" + ch;
  if (ch === "\n") return "\\n";
  if (ch === "\r") return "\\r";
  if (ch === "\t") return "\\t";
  if (ch === " " || !NON_PRINTABLE.test(ch)) return ch;
  const code = ch.codePointAt(0)!;
  if (code < 0x100) return "\\x" + hex(code, 2);
  if (code < 0x10000) return "\\u" + hex(code, 4);
  return "\\U" + hex(code, 8);
}

function hex(code: number, width: number): string {
  return code.toString(16).padStart(width, "0");
}
