/**
 * The number and string writers behind `batch`'s output: `pythonFloat` writes what Python's
 * `repr(float)` (and so `json.dump`) writes, checked against every number in PETRA's score
 * files and a table of edge cases; `pythonString` escapes as `json.dump` with
 * `ensure_ascii=True`.
 *
 * @module
 */

import assert from "node:assert/strict";
import { pythonFloat, pythonString } from "../../../core/log_scoring/python_json.ts";
import { CONFORMANCE } from "../../cli/batch/helpers.ts";

Deno.test("pythonFloat() writes every number of PETRA's score files as PETRA did", async () => {
  let checked = 0;
  for (const model of Deno.readDirSync(CONFORMANCE)) {
    if (!model.isDirectory) continue;
    for (const file of Deno.readDirSync(new URL(`${model.name}/`, CONFORMANCE))) {
      if (!/^score.*\.json$/.test(file.name)) continue;
      const text = await Deno.readTextFile(new URL(`${model.name}/${file.name}`, CONFORMANCE));
      // Values of every key but trace_index (an int) are floats.
      for (const [, key, number] of text.matchAll(/"([^"]+)": (-?\d[\d.eE+-]*)/g)) {
        if (key === "trace_index") continue;
        assert.equal(pythonFloat(Number(number)), number, `${file.name}: ${key}`);
        checked++;
      }
    }
  }
  assert.ok(checked > 1000, `checked ${checked} numbers`);
});

Deno.test("pythonFloat() follows repr's switch to exponent form and its integral '.0'", () => {
  // Expected texts printed by CPython 3.12's repr().
  const cases: [number, string][] = [
    [0, "0.0"],
    [-0, "-0.0"],
    [1, "1.0"],
    [2, "2.0"],
    [100, "100.0"],
    [0.1, "0.1"],
    [1 / 3, "0.3333333333333333"],
    [0.0001, "0.0001"],
    [0.00001, "1e-05"],
    [9.999999999999999e-5, "9.999999999999999e-05"],
    [1.5e-7, "1.5e-07"],
    [1e15, "1000000000000000.0"],
    [1e16, "1e+16"],
    [1.2345678901234567e16, "1.2345678901234568e+16"],
    [123456789012345678, "1.2345678901234568e+17"],
    [1e22, "1e+22"],
    [5e-324, "5e-324"],
    [1.7976931348623157e308, "1.7976931348623157e+308"],
    [-3.62396240234375e-5, "-3.62396240234375e-05"],
    [0.33596324920654297, "0.33596324920654297"],
  ];
  for (const [x, text] of cases) assert.equal(pythonFloat(x), text, String(x));
});

Deno.test("pythonFloat() writes non-finite numbers as null (D12)", () => {
  assert.deepEqual([NaN, Infinity, -Infinity].map(pythonFloat), ["null", "null", "null"]);
});

Deno.test("pythonString() escapes as json.dump with ensure_ascii", () => {
  const cases: [string, string][] = [
    ["plain text ~!#[]", '"plain text ~!#[]"'],
    ['"quoted" \\ back', '"\\"quoted\\" \\\\ back"'],
    ["\b\f\n\r\t", '"\\b\\f\\n\\r\\t"'],
    ["\u0000\u001f\u007f", '"\\u0000\\u001f\\u007f"'],
    ["été €", '"\\u00e9t\\u00e9 \\u20ac"'],
    ["😀", '"\\ud83d\\ude00"'],
    ["__proto__", '"__proto__"'],
  ];
  for (const [text, json] of cases) {
    assert.equal(pythonString(text), json);
    assert.equal(JSON.parse(json), text);
  }
});
