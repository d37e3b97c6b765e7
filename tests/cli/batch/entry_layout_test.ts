/**
 * The two entry layouts: `json` is PETRA's `json.dump(indent=2, sort_keys=True)`, `jsonl` is
 * `json.dumps(entry, sort_keys=True, separators=(",", ":"))`, keys sorted by code point in both.
 *
 * @module
 */

import assert from "node:assert/strict";
import { entryLayout } from "../../../core/batch/entry_layout.ts";

const attributes = new Map([["zeta", "é"], ["amount", "200"], ["Z", "x"]]);
const score = { ids: ["t_b", "t_a"], residuals: [0, 0.25, 1e-5, 1.5], offset: 2, score: 1.50001 };

Deno.test("entryLayout('json') writes an entry as Python's json.dump with indent=2", () => {
  const json = entryLayout("json");
  assert.equal(
    json.scored(7, attributes, score),
    `  {
    "attributes": {
      "Z": "x",
      "amount": "200",
      "zeta": "\\u00e9"
    },
    "per_transition_residuals": {
      "t_a": 1.5,
      "t_b": 1e-05
    },
    "trace_index": 7,
    "trace_score": 1.50001
  }`,
  );
  assert.equal(
    json.failed(3, new Map(), "missing"),
    '  {\n    "attributes": {},\n    "error": "missing",\n    "trace_index": 3\n  }',
  );
  assert.equal(json.list(["A", "B"]), "[\nA,\nB\n]\n");
});

Deno.test("entryLayout('jsonl') writes one compact entry a line", () => {
  const jsonl = entryLayout("jsonl");
  assert.equal(
    jsonl.scored(7, attributes, score),
    '{"attributes":{"Z":"x","amount":"200","zeta":"\\u00e9"},' +
      '"per_transition_residuals":{"t_a":1.5,"t_b":1e-05},"trace_index":7,"trace_score":1.50001}',
  );
  assert.equal(jsonl.list(["A", "B"]), "A\nB\n");
  assert.equal(jsonl.list([]), "");
  assert.equal(jsonl.start(true) + "A" + jsonl.start(false) + "B" + jsonl.end(false), "A\nB\n");
});
