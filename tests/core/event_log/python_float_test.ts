/**
 * Tests of {@link parsePythonFloat} against results recorded from CPython's `float()`
 * (fixtures/python_float.json).
 *
 * @module
 */

import assert from "node:assert/strict";
import { parsePythonFloat } from "../../../core/event_log/python_float.ts";

interface Case {
  text: string;
  value: string | null;
}

const fixture: { cases: Case[] } = JSON.parse(
  await Deno.readTextFile(new URL("./fixtures/python_float.json", import.meta.url)),
);

function expected(value: string | null): number | undefined {
  if (value === null) return undefined;
  if (value === "nan") return NaN;
  if (value === "inf") return Infinity;
  if (value === "-inf") return -Infinity;
  return Number(value);
}

Deno.test("parsePythonFloat() agrees with CPython's float()", async (t) => {
  for (const { text, value } of fixture.cases) {
    await t.step(JSON.stringify(text), () => {
      const got = parsePythonFloat(text);
      const want = expected(value);
      if (want !== undefined && Number.isNaN(want)) assert.ok(Number.isNaN(got), `got ${got}`);
      else assert.equal(got, want);
    });
  }
});
