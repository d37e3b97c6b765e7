/**
 * Tests of {@link quoteId}, which quotes ids as Python's `repr` does.
 *
 * @module
 */

import assert from "node:assert/strict";
import { quoteId } from "../../../core/net/quote_id.ts";

Deno.test("quoteId() quotes as Python's repr does", async (t) => {
  // Expected values printed by CPython 3.12's repr().
  const cases: [string, string][] = [
    ["p_x", "'p_x'"],
    ["", "''"],
    ["it's", `"it's"`],
    [`say "hi"`, `'say "hi"'`],
    [`it's "x"`, `'it\\'s "x"'`],
    ["back\\slash", "'back\\\\slash'"],
    ["a\nb\tc\rd", "'a\\nb\\tc\\rd'"],
    ["\x00\x7f\x85", "'\\x00\\x7f\\x85'"],
    ["caf\u00e9 \u00a0", "'caf\u00e9 \\xa0'"],
    ["\u2028\u200b", "'\\u2028\\u200b'"],
    ["\u{1f600}", "'\u{1f600}'"],
    ["\u{e0001}", "'\\U000e0001'"],
  ];
  for (const [id, want] of cases) {
    await t.step(JSON.stringify(id), () => assert.equal(quoteId(id), want));
  }
});
