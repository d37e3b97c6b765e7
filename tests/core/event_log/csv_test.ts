/**
 * Tests of {@link readCsvTraces}: RFC 4180 quoting and line endings, column choice (with
 * pm4py's names), grouping of contiguous and scattered cases, gzip, chunk boundaries and
 * malformed input.
 *
 * @module
 */

import assert from "node:assert/strict";
import { readCsvTraces } from "../../../core/event_log/csv/read.ts";
import type { CsvColumnChoice, CsvOptions, CsvSource } from "../../../core/event_log/csv/read.ts";
import { MAX_RECORD_CHARS } from "../../../core/event_log/csv/rows.ts";
import { TraceReadError } from "../../../core/event_log/errors.ts";
import { collect, gzip, type PlainTrace, random, rejection, streamOf } from "./helpers.ts";

/** Reads `csv` both ways: as a re-openable source and as a single stream. */
async function readBoth(csv: string | Uint8Array, options: CsvOptions = {}, size?: number) {
  const twice = await collect(readCsvTraces(() => streamOf(csv, size), options));
  const once = await collect(readCsvTraces(streamOf(csv, size), options));
  return { twice, once };
}

function event(name: string, ...attributes: [string, string][]) {
  return { name, attributes };
}

Deno.test("readCsvTraces() groups rows by case, trace attributes from the first row", async () => {
  const csv = "case_id,activity,amount,note\n" +
    "c1,submit,5000,first\n" +
    "c1,approve,6000,\n" +
    "c2,submit,,x\n";
  const want: PlainTrace[] = [
    {
      attributes: [["case_id", "c1"], ["amount", "5000"], ["note", "first"]],
      events: [
        event("submit", ["case_id", "c1"], ["amount", "5000"], ["note", "first"]),
        event("approve", ["case_id", "c1"], ["amount", "6000"], ["note", ""]),
      ],
    },
    {
      attributes: [["case_id", "c2"], ["amount", ""], ["note", "x"]],
      events: [event("submit", ["case_id", "c2"], ["amount", ""], ["note", "x"])],
    },
  ];
  const { twice, once } = await readBoth(csv);
  assert.deepEqual(twice, want);
  assert.deepEqual(once, want);
});

Deno.test("readCsvTraces() reads RFC 4180 quoting and any line ending", async (t) => {
  const want = (note: string): PlainTrace[] => [{
    attributes: [["case_id", "c,1"], ["note", note]],
    events: [event('say "hi"', ["case_id", "c,1"], ["note", note])],
  }];
  const cases: [string, string, string][] = [
    ["LF", 'case_id,activity,note\n"c,1","say ""hi""",plain\n', "plain"],
    ["CRLF", 'case_id,activity,note\r\n"c,1","say ""hi""",plain\r\n', "plain"],
    ["CR", 'case_id,activity,note\r"c,1","say ""hi""",plain\r', "plain"],
    ["no final newline", 'case_id,activity,note\n"c,1","say ""hi""",plain', "plain"],
    ["BOM", '\ufeffcase_id,activity,note\n"c,1","say ""hi""",plain\n', "plain"],
    ["newline in quotes", 'case_id,activity,note\n"c,1","say ""hi""","a\nb"\n', "a\nb"],
    // Python's text mode turns CRLF into LF before csv sees it, inside quotes too.
    ["CRLF in quotes", 'case_id,activity,note\r\n"c,1","say ""hi""","a\r\nb"\r\n', "a\nb"],
    ["empty quoted", 'case_id,activity,note\n"c,1","say ""hi""",""\n', ""],
    ["blank lines", '\ncase_id,activity,note\n\n"c,1","say ""hi""",x\n\n\n', "x"],
  ];
  for (const [label, csv, note] of cases) {
    await t.step(label, async () => {
      const { twice, once } = await readBoth(csv);
      assert.deepEqual(twice, want(note));
      assert.deepEqual(once, want(note));
    });
  }
});

Deno.test("readCsvTraces() merges the rows of a case wherever they are", async () => {
  const csv = "case_id,activity\nb,1\na,1\nb,2\nc,1\na,2\nb,3\nd,1\n";
  const traces = await collect(readCsvTraces(() => streamOf(csv)));
  assert.deepEqual(
    traces.map((t) => [t.attributes[0]![1], t.events.map((e) => e.name).join("")]),
    [["b", "123"], ["a", "12"], ["c", "1"], ["d", "1"]],
  );
});

Deno.test("readCsvTraces() with a single stream rejects a case that reappears", async () => {
  const csv = "case_id,activity\na,1\nb,1\n\na,2\n";
  const error = await rejection(() => collect(readCsvTraces(streamOf(csv), { name: "t.csv" })));
  assert.equal(
    error.message,
    "t.csv: case 'a' reappears at line 5 after other cases; reading the file once needs each " +
      "case's rows together (a source that can be opened twice merges them)",
  );
});

Deno.test("readCsvTraces() uses the columns given, else case_id / activity, else pm4py's", async (t) => {
  await t.step("given columns", async () => {
    const csv = "order,step,case_id\no1,pay,x\n";
    const choices: CsvColumnChoice[] = [];
    const traces = await collect(
      readCsvTraces(() => streamOf(csv), {
        caseColumn: "order",
        activityColumn: "step",
        onColumns: (c) => choices.push(c),
      }),
    );
    assert.deepEqual(traces, [{
      attributes: [["order", "o1"], ["case_id", "x"]],
      events: [event("pay", ["order", "o1"], ["case_id", "x"])],
    }]);
    assert.equal(choices.length, 1);
    assert.equal(choices[0]!.note, undefined);
  });
  await t.step("pm4py's names", async () => {
    const csv = "case:concept:name,concept:name,time:timestamp\nc1,register,2024-01-01\n";
    const notes: (string | undefined)[] = [];
    const traces = await collect(
      readCsvTraces(() => streamOf(csv), { name: "log.csv", onColumns: (c) => notes.push(c.note) }),
    );
    assert.deepEqual(traces, [{
      attributes: [["case:concept:name", "c1"], ["time:timestamp", "2024-01-01"]],
      events: [event("register", ["case:concept:name", "c1"], ["time:timestamp", "2024-01-01"])],
    }]);
    assert.deepEqual(notes, [
      "log.csv: no 'case_id' or 'activity' column; using pm4py's 'case:concept:name' as the " +
      "case id and 'concept:name' as the activity",
    ]);
  });
  await t.step("one pm4py name", async () => {
    const csv = "case_id,concept:name\nc1,register\n";
    const notes: (string | undefined)[] = [];
    await collect(readCsvTraces(streamOf(csv), { onColumns: (c) => notes.push(c.note) }));
    assert.deepEqual(notes, [
      "traces: no 'activity' column; using pm4py's 'concept:name' as the activity",
    ]);
  });
  await t.step("defaults win over pm4py's names", async () => {
    const csv = "case:concept:name,concept:name,case_id,activity\nx,y,c1,a\n";
    const traces = await collect(readCsvTraces(streamOf(csv)));
    assert.equal(traces[0]!.attributes[0]![1], "c1");
    assert.equal(traces[0]!.events[0]!.name, "a");
  });
  await t.step(
    "duplicate header names: the last column wins, as in Python's DictReader",
    async () => {
      const csv = "case_id,activity,x,activity,x\nc1,a1,x1,a2,x2\n";
      assert.deepEqual(await collect(readCsvTraces(streamOf(csv))), [{
        attributes: [["case_id", "c1"], ["x", "x2"]],
        events: [event("a2", ["case_id", "c1"], ["x", "x2"])],
      }]);
    },
  );
});

Deno.test("readCsvTraces() names missing columns and lists the header", async (t) => {
  const cases: [string, string, CsvOptions, string][] = [
    [
      "both defaults",
      "id,event\n1,a\n",
      {},
      "t.csv: the header has no case column 'case_id' and no activity column 'activity' " +
      "(its columns: 'id', 'event')",
    ],
    [
      "given column",
      "case:concept:name,concept:name\n1,a\n",
      { caseColumn: "case_id" },
      "t.csv: the header has no case column 'case_id' (its columns: 'case:concept:name', " +
      "'concept:name')",
    ],
    ["empty file", "", {}, "t.csv: the file is empty (it has no header row)"],
    ["blank file", "\n\r\n\n", {}, "t.csv: the file is empty (it has no header row)"],
  ];
  for (const [label, csv, options, message] of cases) {
    await t.step(label, async () => {
      for (const source of [() => streamOf(csv), streamOf(csv)] as CsvSource[]) {
        const error = await rejection(() =>
          collect(readCsvTraces(source, { ...options, name: "t.csv" }))
        );
        assert.ok(error instanceof TraceReadError, String(error));
        assert.equal(error.message, message);
      }
    });
  }
});

Deno.test("readCsvTraces() rejects malformed rows with their line", async (t) => {
  const cases: [string, string, string][] = [
    [
      "unterminated quote",
      'case_id,activity\nc1,a\nc1,"open\n\nc2,b\n',
      "t.csv: malformed CSV at line 3, column 5: Quoted field unterminated",
    ],
    [
      "text after a closing quote",
      'case_id,activity\nc1,"a"b\n',
      "t.csv: malformed CSV at line 2, column 5: Trailing quote on quoted field is malformed",
    ],
    [
      "too many fields",
      "case_id,activity\nc1,a,extra\n",
      "t.csv: the row at line 2 has 3 fields, the header has 2",
    ],
    [
      "too few fields",
      "case_id,x,activity\nc1,a,b\nc1,a\n",
      "t.csv: the row at line 3 has 2 field(s), so no value for column 'activity'",
    ],
    [
      "line count after quoted newlines",
      'case_id,activity\n"c\n1",a\n"c\r\n2",b\nc3,a,x\n',
      "t.csv: the row at line 6 has 3 fields, the header has 2",
    ],
  ];
  for (const [label, csv, message] of cases) {
    await t.step(label, async () => {
      for (const source of [() => streamOf(csv), streamOf(csv)] as CsvSource[]) {
        const error = await rejection(() => collect(readCsvTraces(source, { name: "t.csv" })));
        assert.ok(error instanceof TraceReadError, String(error));
        assert.equal(error.message, message);
      }
    });
  }
  await t.step("invalid UTF-8", async () => {
    const bytes = new Uint8Array([
      ...new TextEncoder().encode("case_id,activity\nc1,"),
      0xc3,
      0x28,
    ]);
    const error = await rejection(() => collect(readCsvTraces(streamOf(bytes), { name: "t.csv" })));
    assert.equal(error.message, "t.csv: the text is not valid utf-8 in bytes 0-21");
  });
  await t.step("a record too long to be real", async () => {
    const csv = 'case_id,activity\nc1,"' + "x".repeat(MAX_RECORD_CHARS * 3);
    const error = await rejection(() =>
      collect(readCsvTraces(streamOf(csv, 1 << 16), { name: "t.csv" }))
    );
    assert.equal(
      error.message,
      `t.csv: the CSV record at line 2 is longer than ${MAX_RECORD_CHARS} characters, ` +
        "the reader's size limit (an unterminated quoted field?)",
    );
  });
});

Deno.test("readCsvTraces() reads a gzipped file", async () => {
  const csv = "case_id,activity,amount\nloan-1,approve loan,5000\nloan-2,decline loan,200\n";
  const bytes = await gzip(csv);
  const traces = await collect(readCsvTraces(() => streamOf(bytes, 10), { gzip: true }));
  assert.deepEqual(traces.map((t) => t.attributes), [
    [["case_id", "loan-1"], ["amount", "5000"]],
    [["case_id", "loan-2"], ["amount", "200"]],
  ]);
});

Deno.test("readCsvTraces() keeps unicode and __proto__ as ordinary ids", async () => {
  const csv = "case_id,activity,__proto__\n\u{1f600}-\u00e9,\u53d7\u7406,constructor\n";
  const { twice, once } = await readBoth(csv, {}, 1);
  const want: PlainTrace[] = [{
    attributes: [["case_id", "\u{1f600}-\u00e9"], ["__proto__", "constructor"]],
    events: [
      event("\u53d7\u7406", ["case_id", "\u{1f600}-\u00e9"], ["__proto__", "constructor"]),
    ],
  }];
  assert.deepEqual(twice, want);
  assert.deepEqual(once, want);
});

/** A random event log written as CSV, with the traces PETRA would make of it. */
function randomLog(seed: number, rows: number, interleaved: boolean) {
  const next = random(seed);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)]!;
  const texts = [
    "plain",
    "with, comma",
    'say "hi"',
    "two\nlines",
    "caf\u00e9 \u{1f600}",
    "",
    " spaced ",
  ];
  const endings = ["\n", "\r\n", "\r"];
  const quote = (field: string) =>
    /[",\n\r]/.test(field) ? `"${field.replaceAll('"', '""')}"` : field;
  let csv = "case_id,activity,amount,note\r\n";
  const traces = new Map<string, PlainTrace>();
  let current = 0;
  for (let r = 0; r < rows; r++) {
    if (interleaved) current = Math.floor(next() * Math.max(1, r / 4));
    else if (next() < 0.3) current++;
    // Every third case id needs quoting.
    const caseId = `case ${current}${current % 3 === 0 ? ', "q"' : ""}`;
    const activity = pick(texts) + r;
    const amount = String(Math.floor(next() * 10000));
    const note = pick(texts);
    csv += [caseId, activity, amount, note].map(quote).join(",") + pick(endings);
    const attributes: [string, string][] = [["case_id", caseId], ["amount", amount], [
      "note",
      note,
    ]];
    let trace = traces.get(caseId);
    if (!trace) {
      trace = { attributes, events: [] };
      traces.set(caseId, trace);
    }
    trace.events.push({ name: activity, attributes });
  }
  return { csv, traces: [...traces.values()] };
}

Deno.test("readCsvTraces() gives the same traces however the bytes are chunked", async (t) => {
  for (const [label, interleaved] of [["grouped", false], ["interleaved", true]] as const) {
    await t.step(label, async () => {
      // Large enough (> 64 KiB) for the parser to cut batches inside the file.
      const { csv, traces } = randomLog(interleaved ? 11 : 12, 6000, interleaved);
      assert.ok(csv.length > 200_000);
      const next = random(3);
      const chunked = await collect(
        readCsvTraces(() => streamOf(csv, () => Math.floor(next() * 5000))),
      );
      assert.deepEqual(chunked, traces);
      if (!interleaved) assert.deepEqual(await collect(readCsvTraces(streamOf(csv, 4093))), traces);
    });
  }
});

Deno.test("readCsvTraces() closes the file when the consumer stops early", async () => {
  const path = new URL("../../fixtures/conformance/paint_shop/traces.csv", import.meta.url);
  const opened: Deno.FsFile[] = [];
  const open = () => {
    const file = Deno.openSync(path);
    opened.push(file);
    return file.readable;
  };
  for await (const trace of readCsvTraces(open)) {
    assert.equal(trace.attributes.get("case_id"), "case-0000");
    break;
  }
  assert.ok(opened.length > 0);
  // Closing again fails only if the reader already closed every file it opened.
  for (const file of opened) assert.throws(() => file.close(), Deno.errors.BadResource);
});
