/**
 * Replays tests/fixtures/conformance: every model's traces.json / traces.csv / traces.xes read
 * with our readers must give the traces PETRA's `score` gave (score.json / score_csv.json /
 * score_xes.json: the same attributes, in the same order), and resolving the model's input
 * specs must fail exactly where PETRA's output has an `error`, with the same text.
 *
 * @module
 */

import assert from "node:assert/strict";
import {
  CONFORMANCE,
  readConformanceDescription,
  RECORDED_MODELS,
  SCORE_FILES,
} from "../../conformance/fixtures.ts";
import { parseModelDescription } from "../../../core/net/parse.ts";
import { compareIds } from "../../../core/net/types.ts";
import { readTraces } from "../../../core/event_log/read.ts";
import { resolveTraceInputs, SpecError, specErrorEntry } from "../../../core/event_log/specs.ts";

interface ScoreEntry {
  trace_index: number;
  attributes: Record<string, string>;
  error?: string;
}

async function readJson(url: URL): Promise<unknown> {
  return JSON.parse(await Deno.readTextFile(url));
}

Deno.test("trace readers and spec resolution agree with PETRA's score output", async (t) => {
  assert.ok(RECORDED_MODELS.length >= 5, `found ${RECORDED_MODELS.length} conformance models`);
  for (const model of RECORDED_MODELS) {
    const dir = new URL(`${model}/`, CONFORMANCE);
    const description = parseModelDescription(await readConformanceDescription(model));
    for (const [traceFile, scoreFile] of SCORE_FILES) {
      await t.step(`${model}/${traceFile}`, async () => {
        const expected = await readJson(new URL(scoreFile, dir)) as ScoreEntry[];
        const open = () => Deno.openSync(new URL(traceFile, dir)).readable;
        let index = 0;
        for await (const trace of readTraces(open, { name: traceFile })) {
          const entry = expected[index];
          assert.ok(entry, `${traceFile}: trace ${index} is not in ${scoreFile}`);
          assert.equal(entry.trace_index, index);
          const attributes = [...trace.attributes].sort(([a], [b]) => compareIds(a, b));
          assert.deepEqual(attributes, Object.entries(entry.attributes), `trace ${index}`);
          let error: string | undefined;
          try {
            resolveTraceInputs(description.inputMarkingSpec, description.inputValuesSpec, trace);
          } catch (thrown) {
            if (!(thrown instanceof SpecError)) throw thrown;
            error = specErrorEntry(thrown, index);
          }
          assert.equal(error, entry.error, `trace ${index}`);
          index++;
        }
        assert.equal(index, expected.length, `${traceFile}: number of traces`);
      });
    }
  }
});
