/**
 * Tests of {@link readJsonlTraces}: the JSON list's entry shape a line, blank lines, CRLF,
 * a byte-order mark, chunks cut anywhere (inside UTF-8 sequences too), and lines that are not
 * one JSON value each, even where the lines joined would parse (the reader parses a chunk's
 * lines in one call, and must not be fooled by that).
 *
 * @module
 */

import assert from "node:assert/strict";
import { readJsonlTraces } from "../../../core/event_log/jsonl/read.ts";
import { readJsonTraces } from "../../../core/event_log/json/read.ts";
import { TraceReadError } from "../../../core/event_log/errors.ts";
import { collect, random, streamOf } from "./helpers.ts";

const ENTRIES = [
  { attributes: { amount: 5000, note: "été 🚀 \n escaped" }, events: ["approve loan"] },
  { events: [] },
  { attributes: { a: null, b: [1, { c: "}, {" }] }, events: [{ name: "x", attributes: { y: 1 } }] },
];

Deno.test("JSONL holds the JSON list's entries, one a line, cut into any chunks", async () => {
  const expected = await collect(
    readJsonTraces(streamOf(JSON.stringify(ENTRIES)), { name: "t.json" }),
  );
  const text = "\ufeff" + ENTRIES.map((e) => JSON.stringify(e)).join("\r\n\n  \t\n") + "\n\n";
  const next = random(3);
  for (let round = 0; round < 40; round++) {
    const traces = await collect(
      readJsonlTraces(streamOf(text, () => 1 + Math.floor(next() * 12)), { name: "t.jsonl" }),
    );
    assert.deepEqual(traces, expected);
  }
  // No final newline, and one chunk.
  const unterminated = ENTRIES.map((e) => JSON.stringify(e)).join("\n");
  assert.deepEqual(await collect(readJsonlTraces(streamOf(unterminated))), expected);
});

async function failure(text: string): Promise<string> {
  try {
    await collect(readJsonlTraces(streamOf(text), { name: "t.jsonl" }));
  } catch (error) {
    assert.ok(error instanceof TraceReadError, String(error));
    return error.message;
  }
  assert.fail(`no error for ${JSON.stringify(text)}`);
}

Deno.test("JSONL lines that are not one JSON value fail, naming the line", async () => {
  assert.match(await failure('{"events": []}\n{"events": [}\n'), /^t\.jsonl: line 2 is not JSON: /);
  // Joined with commas these lines would parse into three valid entries: each line alone does
  // not, and neither does a wrapper per line.
  const sneaky = [
    '{"events":[]}],[{"events":[]}',
    '{"events":["',
    '"]}',
  ].join("\n");
  assert.match(await failure(sneaky), /^t\.jsonl: line 1 is not JSON: /);
  assert.match(await failure("[1\n2]\n3,4\n"), /^t\.jsonl: line 1 is not JSON: /);
  assert.match(
    await failure('{"events": []}\n\n[1]\n'),
    /^t\.jsonl: entry 1 \(line 3\) is a list, expected an object with 'events'$/,
  );
  assert.match(
    await failure('{"attributes": {}}\n'),
    /^t\.jsonl: entry 0 \(line 1\): 'events' is missing, expected a list$/,
  );
});
