import assert from "node:assert/strict";
import { scoreBatches } from "../../../core/log_scoring/score_batches.ts";
import type { PackedInputs } from "../../../core/runtime/mod.ts";
import type { Trace } from "../../../core/event_log/mod.ts";
import { readBundle } from "../../../adapter/deno/bundle_files.ts";
import { ORT } from "../fixtures.ts";

const BUNDLE = new URL("../../../examples/rest_serving", import.meta.url);

/** A scorable trace of the rest_serving example. */
function trace(i: number): Trace {
  return {
    attributes: new Map([["risk_score", String((i % 10) / 10)]]),
    events: [{ name: "receive application", attributes: new Map() }],
  };
}

Deno.test("scoreBatches asks for its depth after each batch and keeps that many in flight", async () => {
  await using model = await readBundle(ORT, BUNDLE);
  let started = 0;
  const run = (inputs: PackedInputs) => {
    started++;
    return model.session.runPacked(inputs, { withGradient: false });
  };
  // Depth 1 for the first five batches submitted, then 2 (as a log that goes from busy to alone).
  const depth = () => (started <= 5 ? 1 : 2);
  const inFlightWhenHanded: number[] = [];
  let handed = 0;
  const traces = Array.from({ length: 40 }, (_, i) => trace(i));
  const tally = await scoreBatches(model, traces, (batch) => {
    assert.deepEqual(
      batch.indices,
      traces.slice(handed * 4, handed * 4 + 4).map((_, i) => handed * 4 + i),
    );
    // Runs started beyond this batch: the batches still in flight when it is handed on.
    inFlightWhenHanded.push(started - handed - 1);
    handed++;
  }, { batchSize: 4, depth, run });
  assert.equal(tally.traces, 40);
  // Batches 0–3 under depth 1, then 2 each; the end drains the rest (and an empty last batch).
  assert.deepEqual(inFlightWhenHanded, [1, 1, 1, 1, 2, 2, 2, 2, 2, 1, 0]);
});
