/**
 * Tests of {@link detectFormat} and the {@link readTraces} dispatcher.
 *
 * @module
 */

import assert from "node:assert/strict";
import { detectFormat } from "../../../core/event_log/format.ts";
import { readTraces } from "../../../core/event_log/read.ts";
import { TraceReadError } from "../../../core/event_log/errors.ts";
import { collect, gzip, rejection, streamOf } from "./helpers.ts";

Deno.test("detectFormat() reads the suffix case-insensitively, or takes the format given", async (t) => {
  const cases: [string, "auto" | "xes" | "csv" | "json" | "jsonl", string, boolean][] = [
    ["traces.xes", "auto", "xes", false],
    ["BPI_2012.XES.GZ", "auto", "xes", true],
    ["dir.csv/events.Csv", "auto", "csv", false],
    ["traces.JSON", "auto", "json", false],
    ["traces.jsonl", "auto", "jsonl", false],
    ["traces.json.gz", "auto", "json", true],
    ["traces.JSONL.gz", "auto", "jsonl", true],
    ["events.csv.gz", "auto", "csv", true],
    ["stdin", "jsonl", "jsonl", false],
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
    for (const name of ["events.txt", "traces.txt.gz", "traces.json.bak", "xes", "log.gz"]) {
      assert.throws(() => detectFormat(name), (error: unknown) => {
        assert.ok(error instanceof TraceReadError);
        assert.equal(
          error.message,
          `${name}: unknown trace format: the name ends in none of .xes, .csv, .json, .jsonl ` +
            "(each also with .gz) (give the format explicitly)",
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
  await t.step("json.gz, jsonl, jsonl.gz and csv.gz", async () => {
    const jsonl = `${JSON.stringify(JSON.parse(json)[0])}\n`;
    const read = async (text: string, name: string, zipped: boolean) => {
      const bytes = zipped ? await gzip(text) : new TextEncoder().encode(text);
      return await collect(readTraces(() => streamOf(bytes, 7), { name }));
    };
    assert.deepEqual(await read(json, "t.json.gz", true), want);
    assert.deepEqual(await read(jsonl, "t.jsonl", false), want);
    assert.deepEqual(await read(jsonl, "t.jsonl.gz", true), want);
    const fromCsv = await read(csv, "t.csv.gz", true);
    assert.deepEqual(fromCsv[0]!.events.map((e) => e.name), ["approve loan"]);
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
