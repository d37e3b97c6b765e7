/**
 * The playground's compact result store: trace records come back as they went in (any text,
 * records larger than a chunk, many chunks), the store writes exactly the text `batch`'s entry
 * layout writes for the same entries, orders the table (errors last, non-finite scores after
 * finite ones, ties by index) and bins the scores.
 *
 * @module
 */

import assert from "node:assert/strict";
import { entryLayout } from "../../core/log_scoring/entry_layout.ts";
import { pythonFloat } from "../../core/log_scoring/python_json.ts";
import type { ScoredBatch } from "../../core/log_scoring/score_batches.ts";
import { ResultStore } from "../../web/result_store.ts";
import { TraceRecords } from "../../web/trace_records.ts";
import { mulberry32 } from "../random.ts";

Deno.test("TraceRecords gives back every text, across chunks and in oversized records", () => {
  const records = new TraceRecords();
  const texts = [
    "",
    "plain",
    'été 🚀 \u0000 "quoted" \\',
    "x".repeat(63),
    "y".repeat(64),
    "z".repeat(70_000),
    "lone \ud800 surrogate",
    "\udfff",
  ];
  const huge = "h".repeat(5 << 20); // larger than a 4 MiB chunk
  const added: { attributes: Map<string, string>; error?: string; names: string[] }[] = [];
  for (let i = 0; i < 3000; i++) {
    const attributes = new Map([["case", `c${i}`], ["note", texts[i % texts.length]!]]);
    if (i === 1500) attributes.set("huge", huge);
    const names = Array.from({ length: i % 4 }, (_, k) => texts[(i + k) % texts.length]!);
    const error = i % 7 === 0 ? `trace ${i}: ${texts[i % texts.length]}` : undefined;
    records.add(
      attributes,
      names.map((name) => ({ name, attributes: new Map([["at", String(i)]]) })),
      error,
    );
    added.push({ attributes, names, ...(error === undefined ? {} : { error }) });
  }
  assert.equal(records.count, 3000);
  added.forEach((want, i) => {
    const got = records.read(i);
    assert.deepEqual(got.attributes, want.attributes, `trace ${i}`);
    assert.deepEqual(got.events.map((e) => e.name), want.names);
    assert.ok(got.events.every((e) => e.attributes.get("at") === String(i)));
    assert.equal(got.error, want.error);
  });
  assert.deepEqual(records.attributeKeys(), ["case", "huge", "note"]);
  assert.ok(records.byteSize > huge.length);
  assert.throws(() => records.read(3000), RangeError);
});

/** A batch of `count` traces from `start`, every fifth an error, scored on `ids`. */
function batch(start: number, count: number, ids: string[], random: () => number): ScoredBatch {
  const indices: number[] = [];
  const attributes: Map<string, string>[] = [];
  const errors: (string | undefined)[] = [];
  const events: { name: string; attributes: Map<string, string> }[][] = [];
  const residuals: number[] = [];
  const scores: number[] = [];
  for (let i = start; i < start + count; i++) {
    indices.push(i);
    attributes.push(new Map([["amount", String(i * 10)], ["note", i % 3 ? "a,b" : 'say "hi"']]));
    events.push([{ name: "approve loan", attributes: new Map() }]);
    if (i % 5 === 4) {
      errors.push(`missing attribute: "trace ${i}"`);
      continue;
    }
    errors.push(undefined);
    const row = ids.map(() => Math.abs(Math.fround(random() - 0.5)));
    if (i === 6) row[0] = NaN;
    residuals.push(...row);
    scores.push(row.reduce((a, b) => a + b, 0));
  }
  return {
    indices,
    attributes,
    errors,
    events,
    scored: { ids, residuals: Float64Array.from(residuals), scores: Float64Array.from(scores) },
  };
}

Deno.test("ResultStore writes what batch's layouts write for the same entries", () => {
  const ids = ["t_approve", "t_decline", "t_z"];
  const random = mulberry32(7);
  const batches = [batch(0, 40, ids, random), batch(40, 25, ids, random)];
  const store = new ResultStore(ids);
  for (const b of batches) store.add(b);
  for (const format of ["json", "jsonl"] as const) {
    const layout = entryLayout(format);
    const texts: string[] = [];
    for (const b of batches) {
      let row = 0;
      b.indices.forEach((index, t) => {
        const error = b.errors[t];
        if (error !== undefined) texts.push(layout.failed(index, b.attributes[t]!, error));
        else {
          const { residuals, scores } = b.scored;
          texts.push(layout.scored(index, b.attributes[t]!, {
            ids,
            residuals,
            offset: row * ids.length,
            score: scores[row++]!,
          }));
        }
      });
    }
    // Small pieces, so that the text crosses many of them.
    assert.equal([...store.entryText(layout, undefined, 100)].join(""), layout.list(texts));
  }
  const empty = new ResultStore(ids);
  assert.equal([...empty.entryText(entryLayout("json"))].join(""), "[]\n");
  assert.throws(() => store.add(batch(0, 1, ids, random)), /arrived where trace 65/);
});

Deno.test("ResultStore stops at its size limit with a message that names cli.ts batch", () => {
  const ids = ["t_a"];
  const store = new ResultStore(ids, 6 << 20);
  store.add(batch(0, 10, ids, mulberry32(1))); // one 4 MiB chunk and small arrays: fits
  const big = batch(10, 1, ids, mulberry32(2));
  (big.attributes[0] as Map<string, string>).set("blob", "x".repeat(5 << 20)); // a second chunk
  assert.throws(() => store.add(big), {
    name: "RangeError",
    message: /more than 6 MiB in the page after 11 traces \(\d+ MiB\): score it with cli\.ts batch/,
  });
});

Deno.test("ResultStore orders the table, bins the scores and writes CSV", () => {
  const ids = ["t_a", "t_b"];
  const store = new ResultStore(ids);
  store.add(batch(0, 12, ids, mulberry32(3)));
  const scores = (order: Uint32Array) => [...order].map((i) => store.trace(i).score);
  const byScore = store.order({ by: "score", descending: true, filter: "all" });
  assert.equal(byScore.length, 12);
  // Errors (4 and 9) come last; before them trace 6, whose score is NaN; finite ones first.
  assert.deepEqual([...byScore].slice(-3), [6, 4, 9]);
  const finite = scores(byScore).slice(0, 9) as number[];
  assert.deepEqual(finite, [...finite].sort((a, b) => b - a));
  const ascending = scores(store.order({ by: "score", descending: false, filter: "scored" }));
  assert.deepEqual(ascending.slice(0, 9), [...finite].reverse());
  assert.deepEqual([...store.order({ by: "index", descending: true, filter: "errors" })], [9, 4]);
  const byB = [
    ...store.order({ by: "transition", transition: 1, descending: true, filter: "scored" }),
  ];
  const b = byB.map((i) => store.trace(i).residuals[1]!);
  assert.deepEqual(b, [...b].sort((x, y) => y - x));

  const histogram = store.histogram(4);
  assert.equal(histogram.errors, 2);
  assert.equal(histogram.nonFinite, 1);
  assert.equal(histogram.counts.reduce((x, y) => x + y, 0), 9);
  assert.equal(histogram.max, finite[0]);

  const lines = [...store.csvText()].join("").split("\r\n");
  assert.equal(lines[0], "trace_index,trace_score,error,attribute:amount,attribute:note,t_a,t_b");
  assert.equal(lines[5], '4,,"missing attribute: ""trace 4""",40,"a,b",,');
  const seven = store.trace(7);
  assert.equal(
    lines[8],
    `7,${pythonFloat(seven.score!)},,70,"a,b",${seven.residuals.map(pythonFloat).join(",")}`,
  );
  assert.match(lines[7]!, /^6,,,60,"say ""hi""",,/); // NaN is an empty cell
  assert.equal(lines.length, 14);
  assert.ok(store.byteSize > 0);
});
