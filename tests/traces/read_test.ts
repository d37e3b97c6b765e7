/**
 * Tests of {@link detectFormat} and the {@link readTraces} dispatcher.
 *
 * @module
 */

import assert from "node:assert/strict";
import { detectFormat } from "../../core/traces/format.ts";
import { readTraces } from "../../core/traces/read.ts";
import { TraceReadError } from "../../core/traces/errors.ts";
import { collect, gzip, rejection, streamOf } from "./helpers.ts";

Deno.test("detectFormat() reads the suffix case-insensitively, or takes the format given", async (t) => {
  const cases: [string, "auto" | "xes" | "csv" | "json", string, boolean][] = [
    ["traces.xes", "auto", "xes", false],
    ["BPI_2012.XES.GZ", "auto", "xes", true],
    ["dir.csv/events.Csv", "auto", "csv", false],
    ["traces.JSON", "auto", "json", false],
    ["events.txt", "csv", "csv", false],
    ["events.csv.gz", "csv", "csv", true],
    ["traces.xes", "json", "json", false],
  ];
  for (const [name, explicit, format, gz] of cases) {
    await t.step(`${name} (${explicit})`, () => {
      assert.deepEqual(detectFormat(name, explicit), { format, gzip: gz });
    });
  }
  await t.step("unknown suffix", () => {
    for (const name of ["events.txt", "traces.csv.gz", "traces.json.bak", "xes"]) {
      assert.throws(() => detectFormat(name), (error: unknown) => {
        assert.ok(error instanceof TraceReadError);
        assert.equal(
          error.message,
          `${name}: unknown trace format: the name ends in none of .xes, .xes.gz, .csv, .json ` +
            "(give the format explicitly)",
        );
        return true;
      });
    }
  });
});

Deno.test("readTraces() dispatches on the file name and gunzips .gz files", async (t) => {
  const want = [{
    attributes: [["risk_score", "0.9"]],
    events: [{ name: "approve loan", attributes: [] }],
  }];
  const json = '[{"attributes": {"risk_score": "0.9"}, "events": ["approve loan"]}]';
  const xes = '<log><trace><string key="risk_score" value="0.9"/>' +
    '<event><string key="concept:name" value="approve loan"/></event></trace></log>';
  const csv = "case_id,activity,risk_score\nc1,approve loan,0.9\n";
  await t.step("json", async () => {
    assert.deepEqual(await collect(readTraces(() => streamOf(json), { name: "t.json" })), want);
  });
  await t.step("xes.gz", async () => {
    const bytes = await gzip(xes);
    const traces = await collect(readTraces(() => streamOf(bytes), { name: "t.xes.gz" }));
    assert.deepEqual(traces, [{
      attributes: [["risk_score", "0.9"]],
      events: [{ name: "approve loan", attributes: [["concept:name", "approve loan"]] }],
    }]);
  });
  await t.step("csv with an explicit format and a stream", async () => {
    const traces = await collect(readTraces(streamOf(csv), { name: "t.txt", format: "csv" }));
    assert.deepEqual(traces.map((trace) => trace.events[0]?.name), ["approve loan"]);
  });
  await t.step("the name starts reader errors", async () => {
    const error = await rejection(() =>
      collect(readTraces(() => streamOf("{}"), { name: "x.json" }))
    );
    assert.match(error.message, /^x\.json: malformed JSON at line 1, column 1: /);
  });
});
