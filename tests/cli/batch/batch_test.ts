/**
 * `cli.ts batch` as a user runs it (a subprocess with `--allow-read`, plus `--allow-write`
 * exactly when `--output` is given): PETRA's score tests (PETRA's tests/test_cli.py),
 * input errors (exit 2, one line naming the file), D13 error entries, output routing, batch
 * sizes and the summary line.
 *
 * @module
 */

import assert from "node:assert/strict";
import {
  assertInputFailure,
  assertSummary,
  batch,
  compileTo,
  CREDIT_BUNDLE,
  ROOT,
  withTempDir,
} from "./helpers.ts";

/** PETRA's two-trace log of tests/test_cli.py. */
const TWO_TRACES = JSON.stringify([
  { attributes: { amount: "5000" }, events: ["approve loan"] },
  { attributes: { amount: "200" }, events: ["decline loan"] },
]);

interface Entry {
  trace_index: number;
  attributes: Record<string, string>;
  trace_score?: number;
  per_transition_residuals?: Record<string, number>;
  error?: string;
}

Deno.test("batch scores PETRA's two-trace JSON log into a new nested --output file", async () => {
  await withTempDir(async (dir) => {
    await Deno.writeTextFile(`${dir}/traces.json`, TWO_TRACES);
    const output = `${dir}/nested/deeper/scored.json`;
    const result = await batch(
      [CREDIT_BUNDLE, "--traces", `${dir}/traces.json`, "--format", "json", "-o", output],
      { write: true },
    );
    assert.equal(result.code, 0, result.stderr);
    assert.equal(result.stdout, "");
    assertSummary(result.stderr, 2, 0);
    assert.ok(result.stderr.trimEnd().endsWith(`-> ${output}`));
    const entries = JSON.parse(await Deno.readTextFile(output)) as Entry[];
    assert.equal(entries.length, 2);
    entries.forEach((entry, i) => {
      assert.deepEqual(Object.keys(entry), [
        "attributes",
        "per_transition_residuals",
        "trace_index",
        "trace_score",
      ]);
      assert.equal(entry.trace_index, i);
      assert.equal(typeof entry.trace_score, "number");
      assert.deepEqual(Object.keys(entry.per_transition_residuals!), ["t_approve", "t_decline"]);
    });
    assert.deepEqual(entries.map((e) => e.attributes.amount), ["5000", "200"]);
  });
});

Deno.test("batch routes a CSV log by --format csv and the column flags", async () => {
  await withTempDir(async (dir) => {
    // A .txt name: only --format says it is CSV.
    const log = `${dir}/loans.txt`;
    await Deno.writeTextFile(
      log,
      "case_id,activity,amount\nloan-1,approve loan,5000\n" +
        "loan-2,decline loan,200\n",
    );
    const output = `${dir}/scored.json`;
    const args = ["--case-column", "case_id", "--activity-column", "activity", "-o", output];
    const result = await batch([CREDIT_BUNDLE, "--traces", log, "--format", "csv", ...args], {
      write: true,
    });
    assert.equal(result.code, 0, result.stderr);
    const entries = JSON.parse(await Deno.readTextFile(output)) as Entry[];
    assert.deepEqual(entries.map((e) => e.attributes), [
      { amount: "5000", case_id: "loan-1" },
      { amount: "200", case_id: "loan-2" },
    ]);
    assert.ok(entries.every((e) => typeof e.trace_score === "number"));
  });
});

Deno.test("batch reads pm4py's CSV columns when the defaults are absent, with a note", async () => {
  await withTempDir(async (dir) => {
    const log = `${dir}/pm4py.csv`;
    await Deno.writeTextFile(
      log,
      "case:concept:name,concept:name,amount\nc1,approve loan,5000\nc1,x,5000\n",
    );
    const result = await batch([CREDIT_BUNDLE, "--traces", log]);
    assert.equal(result.code, 0, result.stderr);
    const lines = result.stderr.trimEnd().split("\n");
    assert.equal(lines.length, 2);
    assert.match(lines[0]!, /pm4py\.csv: no 'case_id' or 'activity' column; using pm4py's/);
    assertSummary(result.stderr, 1, 0);
    assert.equal((JSON.parse(result.stdout) as Entry[])[0]!.attributes["case:concept:name"], "c1");
  });
});

Deno.test("batch names a missing bundle or traces file and exits 2", async () => {
  await withTempDir(async (dir) => {
    await Deno.writeTextFile(`${dir}/traces.json`, TWO_TRACES);
    // PETRA's test_score_rejects_missing_model: neither file exists.
    assertInputFailure(
      await batch([`${dir}/missing.onnx`, "--traces", `${dir}/missing.json`]),
      `${dir}/missing.onnx does not exist`,
    );
    assertInputFailure(
      await batch([`${dir}/missing.onnx`, "--traces", `${dir}/traces.json`]),
      `${dir}/missing.onnx`,
    );
    assertInputFailure(
      await batch([CREDIT_BUNDLE, "--traces", `${dir}/missing.json`]),
      `error: ${dir}/missing.json: no such file`,
    );
    assertInputFailure(
      await batch([CREDIT_BUNDLE, "--traces", dir]),
      `error: ${dir}: is a directory`,
    );
  });
});

Deno.test("batch rejects bad usage on one line and exits 2", async (t) => {
  const cases: [string, string[], string[]][] = [
    ["no bundle", ["--traces", "t.json"], ["batch needs a BUNDLE argument"]],
    ["no --traces", [CREDIT_BUNDLE], ["batch needs --traces LOG"]],
    ["two bundles", ["a.onnx", "b.onnx", "--traces", "t.json"], ["one BUNDLE argument, got 2"]],
    [
      "an unknown --format",
      [CREDIT_BUNDLE, "--traces", "t.json", "--format", "yaml"],
      ["unknown format 'yaml' for --format", "auto, xes, csv, json, jsonl"],
    ],
    [
      "a bad --batch-size",
      [CREDIT_BUNDLE, "--traces", "t.json", "--batch-size", "0"],
      ["--batch-size expects a whole number from 1 to 65536, got '0'"],
    ],
    ["an unknown option", [CREDIT_BUNDLE, "--traces", "t.json", "--fast"], ["--fast"]],
  ];
  for (const [name, args, texts] of cases) {
    await t.step(name, async () => assertInputFailure(await batch(args), ...texts));
  }
});

Deno.test("batch names the file and the problem for unreadable logs, exit 2", async (t) => {
  await withTempDir(async (dir) => {
    const cases: [string, string, string[]][] = [
      ["log.txt", "whatever", ["log.txt: unknown trace format", ".xes, .csv, .json, .jsonl"]],
      [
        "nocols.csv",
        "case,act\n1,a\n",
        ["nocols.csv: the header has no case column 'case_id' and no activity column 'activity'"],
      ],
      [
        "bad.json",
        '[\n {"attributes": {}, "events": ["a"]},\n {"attributes": {}, "events": ["a",]}\n]\n',
        ["bad.json: malformed JSON", "line 3"],
      ],
      ["object.json", '{"traces": []}', ["object.json: malformed JSON", "not a list"]],
      [
        "bad.xes",
        '<log>\n<trace><string key="amount" value="1"/>\n<event></trace>\n</log>\n',
        ["bad.xes: malformed XML at line 3"],
      ],
      ["empty.json", "[]", ["empty.json: no traces parsed from the input file"]],
      ["empty.csv", "case_id,activity,amount\n", ["empty.csv: no traces parsed"]],
      ["empty.xes", '<log xmlns="http://www.xes-standard.org/"/>', ["empty.xes: no traces"]],
    ];
    for (const [name, text, messages] of cases) {
      await t.step(name, async () => {
        const log = `${dir}/${name}`;
        await Deno.writeTextFile(log, text);
        const output = `${dir}/out/${name}.scores.json`;
        const result = await batch([CREDIT_BUNDLE, "--traces", log, "-o", output], {
          write: true,
        });
        assertInputFailure(result, `error: ${log}`, ...messages);
        await assert.rejects(Deno.stat(output), Deno.errors.NotFound, "no output file left");
      });
    }
  });
});

Deno.test("batch gives a trace with a non-numeric attribute an error entry and exits 0 (D13)", async () => {
  await withTempDir(async (dir) => {
    const log = `${dir}/traces.json`;
    await Deno.writeTextFile(
      log,
      JSON.stringify([
        { attributes: { amount: "5000" }, events: ["approve loan"] },
        { attributes: { amount: "High" }, events: ["approve loan"] },
        { attributes: { other: "1" }, events: [] },
        { attributes: { amount: "1_000" }, events: ["decline loan"] },
      ]),
    );
    const result = await batch([CREDIT_BUNDLE, "--traces", log]);
    assert.equal(result.code, 0, result.stderr);
    assertSummary(result.stderr, 4, 2);
    assert.match(result.stderr, /2 errors \(traces 1, 2\)/);
    const entries = JSON.parse(result.stdout) as Entry[];
    assert.deepEqual(entries[1], {
      attributes: { amount: "High" },
      error: "trace 1: attribute 'amount' is not a number: 'High' " +
        "(required by input_values for place 'p_submitted')",
      trace_index: 1,
    });
    assert.deepEqual(Object.keys(entries[2]!), ["attributes", "error", "trace_index"]);
    assert.equal(
      entries[2]!.error,
      "missing attribute: \"trace missing attribute 'amount' required by input_values " +
        "for place 'p_submitted'\"",
    );
    assert.equal(typeof entries[3]!.trace_score, "number");
  });
});

Deno.test("batch writes attribute keys such as __proto__ and non-ASCII text as Python does", async () => {
  await withTempDir(async (dir) => {
    const log = `${dir}/traces.json`;
    await Deno.writeTextFile(
      log,
      '[{"attributes": {"zeta": "é\\"\\n", "amount": 200, "__proto__": "x", "flag": true, ' +
        '"none": null}, "events": [{"name": "decline loan"}]}]',
    );
    const result = await batch([CREDIT_BUNDLE, "--traces", log]);
    assert.equal(result.code, 0, result.stderr);
    assert.ok(
      result.stdout.startsWith(`[
  {
    "attributes": {
      "__proto__": "x",
      "amount": "200",
      "flag": "true",
      "none": "null",
      "zeta": "\\u00e9\\"\\n"
    },
    "per_transition_residuals": {
      "t_approve": `),
      result.stdout,
    );
    assert.ok(result.stdout.endsWith("\n  }\n]\n"));
  });
});

Deno.test("batch writes the same bytes to stdout and --output, whatever --batch-size", async () => {
  await withTempDir(async (dir) => {
    const log = new URL("tests/fixtures/conformance/credit_approval_coloured/traces.json", ROOT)
      .pathname;
    const stdout = await batch([CREDIT_BUNDLE, "--traces", log]);
    assert.equal(stdout.code, 0, stdout.stderr);
    const file = await batch([CREDIT_BUNDLE, "--traces", log, "-o", `${dir}/a.json`, "-q"], {
      write: true,
    });
    assert.equal(file.code, 0, file.stderr);
    assert.equal(await Deno.readTextFile(`${dir}/a.json`), stdout.stdout);
    for (const size of ["1", "5"]) {
      const small = await batch([CREDIT_BUNDLE, "--traces", log, "--batch-size", size]);
      assert.equal(small.code, 0, small.stderr);
      assert.equal(small.stdout, stdout.stdout, `--batch-size ${size}`);
    }
  });
});

Deno.test("batch --quiet (or a pipe) prints only the summary line on stderr", async () => {
  const log = new URL("tests/fixtures/conformance/rest_serving/traces.csv", ROOT).pathname;
  for (const flags of [["--quiet"], ["-q"], []]) {
    const result = await batch(["examples/rest_serving", "--traces", log, ...flags]);
    assert.equal(result.code, 0, result.stderr);
    assert.equal(result.stderr.split("\n").length, 2, JSON.stringify(result.stderr));
    assertSummary(result.stderr, 27, 0);
  }
});

Deno.test("batch --output needs --allow-write and says so; it refuses to overwrite the log", async () => {
  await withTempDir(async (dir) => {
    const log = `${dir}/traces.json`;
    await Deno.writeTextFile(log, TWO_TRACES);
    assertInputFailure(
      await batch([CREDIT_BUNDLE, "--traces", log, "-o", `${dir}/out.json`]),
      `cannot write ${dir}/out.json: no write permission (run deno with --allow-write)`,
    );
    assertInputFailure(
      await batch([CREDIT_BUNDLE, "--traces", log, "-o", log], { write: true }),
      "is the traces file itself",
    );
    assert.equal(await Deno.readTextFile(log), TWO_TRACES);
  });
});

Deno.test("batch ignores sidecar spec entries for ids that are not places, with a note", async () => {
  await withTempDir(async (dir) => {
    const description = JSON.parse(
      await Deno.readTextFile(
        new URL(
          "examples/credit_approval_coloured/credit_approval_coloured.model.json",
          ROOT,
        ),
      ),
    );
    description.input_marking_spec = {
      ...description.input_marking_spec,
      p_ghost: { attribute: "ghost" },
    };
    const bundle = await compileTo(dir, "ghost", description);
    const log = `${dir}/traces.json`;
    await Deno.writeTextFile(
      log,
      JSON.stringify([
        { attributes: { amount: "5000", ghost: "0.5" }, events: ["approve loan"] },
        { attributes: { amount: "5000" }, events: ["approve loan"] },
      ]),
    );
    const result = await batch([bundle, "--traces", log]);
    assert.equal(result.code, 0, result.stderr);
    assert.match(
      result.stderr,
      /^note: the sidecar's input_marking_spec names 'p_ghost', not a place of the net; ignored\n/,
    );
    const entries = JSON.parse(result.stdout) as Entry[];
    assert.equal(typeof entries[0]!.trace_score, "number");
    // Still resolved, as PETRA resolves it: a missing attribute fails the trace.
    assert.match(entries[1]!.error!, /missing attribute 'ghost' required by input_marking/);
  });
});
