/**
 * Tests of {@link readJsonTraces}: entry and event shapes, attribute conversion (D14), chunk
 * boundaries, gzip and malformed input.
 *
 * @module
 */

import assert from "node:assert/strict";
import { readJsonTraces } from "../../../core/event_log/json/read.ts";
import { TraceReadError } from "../../../core/event_log/errors.ts";
import { collect, gzip, type PlainTrace, random, rejection, streamOf } from "./helpers.ts";

const DOC = `[
  {"attributes": {"amount": "5000", "n": 5000, "f": 0.5, "yes": true, "none": null,
                  "list": [1, "a"], "obj": {"k": "v"}, "__proto__": "p", "s": "\\"q\\" \\u00e9"},
   "events": ["approve loan", {"name": "decline loan", "attributes": {"cost": 12}},
              {"name": "no such activity", "attributes": null}]},
  {"events": []},
  {"attributes": null, "events": ["\u{1f600} \u53d7\u7406"]}
]`;

const EXPECTED: PlainTrace[] = [
  {
    attributes: [
      ["amount", "5000"],
      ["n", "5000"],
      ["f", "0.5"],
      ["yes", "true"],
      ["none", "null"],
      ["list", '[1,"a"]'],
      ["obj", '{"k":"v"}'],
      ["__proto__", "p"],
      ["s", '"q" \u00e9'],
    ],
    events: [
      { name: "approve loan", attributes: [] },
      { name: "decline loan", attributes: [["cost", "12"]] },
      { name: "no such activity", attributes: [] },
    ],
  },
  { attributes: [], events: [] },
  { attributes: [], events: [{ name: "\u{1f600} \u53d7\u7406", attributes: [] }] },
];

Deno.test("readJsonTraces() reads entries, converting non-string values to JSON text", async () => {
  assert.deepEqual(await collect(readJsonTraces(streamOf(DOC))), EXPECTED);
});

Deno.test("readJsonTraces() gives the same traces however the bytes are chunked", async (t) => {
  for (const size of [1, 2, 3, 5, 16]) {
    await t.step(`chunks of ${size} bytes`, async () => {
      assert.deepEqual(await collect(readJsonTraces(streamOf(DOC, size))), EXPECTED);
    });
  }
  await t.step("random chunks over many entries", async () => {
    const next = random(5);
    const entries = Array.from({ length: 2000 }, (_, i) => ({
      attributes: { id: `c${i}`, tricky: 'a "[{,}]" \\ b', n: i },
      events: [`e${i}`, { name: "x]", attributes: { "}": "{" } }],
    }));
    const text = JSON.stringify(entries, null, i(next));
    const traces = await collect(readJsonTraces(streamOf(text, () => Math.floor(next() * 300))));
    assert.equal(traces.length, 2000);
    assert.deepEqual(traces[1999], {
      attributes: [["id", "c1999"], ["tricky", 'a "[{,}]" \\ b'], ["n", "1999"]],
      events: [{ name: "e1999", attributes: [] }, { name: "x]", attributes: [["}", "{"]] }],
    });
  });
});

function i(next: () => number): number {
  return Math.floor(next() * 3);
}

Deno.test("readJsonTraces() reads a gzipped file and an empty list", async () => {
  const bytes = await gzip(DOC);
  assert.deepEqual(await collect(readJsonTraces(streamOf(bytes, 7), { gzip: true })), EXPECTED);
  assert.deepEqual(await collect(readJsonTraces(streamOf(" [ ] \n"))), []);
});

Deno.test("readJsonTraces() rejects malformed JSON with its line and column", async (t) => {
  const cases: [string, string, string][] = [
    ["empty", "", "t.json: malformed JSON at line 1, column 1: no JSON value (the input is empty)"],
    [
      "object at the top",
      '{"events": []}',
      "t.json: malformed JSON at line 1, column 1: the top level is not a list (expected '[')",
    ],
    [
      "unclosed list",
      '[\n  {"events": []}',
      "t.json: malformed JSON at line 2, column 17: the input ends before the top-level list is closed",
    ],
    [
      "trailing comma",
      '[{"events": []},\n]',
      "t.json: malformed JSON at line 2, column 1: a ',' before the closing ']'",
    ],
    [
      "missing comma",
      '[{"events": []}\n {"events": []}]',
      "t.json: malformed JSON at line 2, column 2: expected ',' or ']' after entry 0",
    ],
    [
      "text after",
      "[]\nx",
      "t.json: malformed JSON at line 2, column 1: text after the end of the top-level list",
    ],
    [
      "bad entry",
      '[\n {"events": [],\n  "a" 1}]',
      "t.json: malformed JSON at line 3, column 7: Expected ':' after property name",
    ],
    [
      "bad token",
      '[\n {"events": [],\n  "a": }]',
      "t.json: malformed JSON in entry 0 (which starts at line 2, column 2): Unexpected token '}'",
    ],
  ];
  for (const [label, text, message] of cases) {
    await t.step(label, async () => {
      const error = await rejection(() =>
        collect(readJsonTraces(streamOf(text, 3), { name: "t.json" }))
      );
      assert.ok(error instanceof TraceReadError, String(error));
      assert.equal(error.message, message);
    });
  }
});

Deno.test("readJsonTraces() rejects entries and events of the wrong shape", async (t) => {
  const cases: [string, string, string][] = [
    [
      "entry not an object",
      '[{"events": []}, "x"]',
      `t.json: entry 1 (line 1) is a string ("x"), expected an object with 'events'`,
    ],
    [
      "entry a list",
      "[[]]",
      "t.json: entry 0 (line 1) is a list, expected an object with 'events'",
    ],
    [
      "no events",
      '[\n{"attributes": {}}]',
      "t.json: entry 0 (line 2): 'events' is missing, expected a list",
    ],
    [
      "events not a list",
      '[{"events": {}}]',
      "t.json: entry 0 (line 1): 'events' is an object ({}), expected a list",
    ],
    [
      "attributes a list",
      '[{"attributes": [], "events": []}]',
      "t.json: entry 0 (line 1): 'attributes' is a list, expected an object",
    ],
    [
      "event without name",
      '[{"events": ["a", {"attributes": {"x": 1}}]}]',
      `t.json: entry 0 (line 1), event 1: JSON event object missing 'name': {"attributes":{"x":1}}`,
    ],
    [
      "event with empty name",
      '[{"events": [{"name": ""}]}]',
      `t.json: entry 0 (line 1), event 0: JSON event object missing 'name': {"name":""}`,
    ],
    [
      "event name not a string",
      '[{"events": [{"name": 7}]}]',
      `t.json: entry 0 (line 1), event 0: the event's 'name' is not a string: {"name":7}`,
    ],
    [
      "event a number",
      '[{"events": [7]}]',
      "t.json: entry 0 (line 1), event 0 is a number (7), expected a name or an object with 'name'",
    ],
    [
      "event null",
      '[{"events": [null]}]',
      "t.json: entry 0 (line 1), event 0 is null, expected a name or an object with 'name'",
    ],
  ];
  for (const [label, text, message] of cases) {
    await t.step(label, async () => {
      const error = await rejection(() =>
        collect(readJsonTraces(streamOf(text), { name: "t.json" }))
      );
      assert.ok(error instanceof TraceReadError, String(error));
      assert.equal(error.message, message);
    });
  }
});
