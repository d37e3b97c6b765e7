/**
 * `batch --shard I/N` and `merge`: on every conformance model and log format, the N shard
 * outputs merged (in a shuffled order) equal one whole run byte for byte, for N = 1, 2, 3 and
 * 7, error entries included, in both output formats (range shards for JSON and XES, modulo
 * shards for CSV; `range_shards_test.ts` covers range shards at length); `jsonl` holds the
 * same entries as `json`; and `merge` names the file and the reason for overlapping or missing
 * modulo parts, mixed formats and files that are not complete batch outputs. The commands run
 * in-process through `main`, as `cli.ts` runs them.
 *
 * @module
 */

import assert from "node:assert/strict";
import { main } from "../../../cli.ts";
import { compileTo, CONFORMANCE, moduloPart, withTempDir } from "./helpers.ts";
import { readConformanceDescription, RECORDED_MODELS } from "../../conformance/fixtures.ts";
// ORT's one-time set-up, outside any test (see tests/ort.ts).
import "../../ort.ts";

interface Run {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

async function cli(args: string[]): Promise<Run> {
  let stdout = "";
  const stderr: string[] = [];
  const code = await main(args, { out: (text) => stdout += text, err: (l) => stderr.push(l) });
  return { code, stdout, stderr: stderr.join("\n") };
}

async function ok(args: string[]): Promise<string> {
  const run = await cli(args);
  assert.equal(run.code, 0, run.stderr);
  return run.stdout;
}

const LOGS = ["traces.json", "traces.csv", "traces.xes"];
const SHARDS = [1, 2, 3, 7];

Deno.test("merge of batch --shard I/N outputs equals one whole run, for every log and N", async (t) => {
  assert.ok(RECORDED_MODELS.length >= 5, `found ${RECORDED_MODELS.length} conformance models`);
  let errorEntries = 0;
  await withTempDir(async (dir) => {
    for (const model of RECORDED_MODELS) {
      const folder = new URL(`${model}/`, CONFORMANCE);
      const bundle = await compileTo(dir, model, await readConformanceDescription(model));
      for (const log of LOGS) {
        const traces = new URL(log, folder).pathname;
        await t.step(`${model}/${log}`, async () => {
          for (const format of ["json", "jsonl"]) {
            const base = [bundle, "--traces", traces, "--output-format", format, "-q"];
            const whole = await ok(["batch", ...base]);
            if (format === "json") errorEntries += whole.split('\n    "error": ').length - 1;
            for (const n of SHARDS) {
              const parts: string[] = [];
              for (let i = 0; i < n; i++) {
                const path = `${dir}/${model}.${log}.${i}of${n}.${format}`;
                await Deno.writeTextFile(
                  path,
                  await ok(["batch", ...base, "--shard", `${i}/${n}`]),
                );
                parts.push(path);
              }
              // Any order: the merge sorts by trace_index.
              parts.push(parts.shift()!);
              const merged = await ok(["merge", ...parts.reverse()]);
              assert.equal(merged, whole, `${format}, N = ${n}`);
            }
          }
        });
      }
    }
  });
  assert.ok(errorEntries >= 5, `error entries are merged too (${errorEntries} of them)`);
});

Deno.test("batch --output-format jsonl writes the json entries, one compact entry a line", async () => {
  await withTempDir(async (dir) => {
    for (const model of RECORDED_MODELS) {
      const folder = new URL(`${model}/`, CONFORMANCE);
      const bundle = await compileTo(dir, model, await readConformanceDescription(model));
      for (const log of LOGS) {
        const traces = new URL(log, folder).pathname;
        const json = await ok(["batch", bundle, "--traces", traces, "-q"]);
        const jsonl = await ok([
          "batch",
          bundle,
          "--traces",
          traces,
          "-q",
          "--output-format",
          "jsonl",
        ]);
        const entries = JSON.parse(json) as unknown[];
        const lines = jsonl.split("\n");
        assert.equal(lines.pop(), "", "ends with a newline");
        assert.equal(lines.length, entries.length, `${model}/${log}`);
        lines.forEach((line, i) => {
          assert.ok(!/[\n ]": |": |, "/.test(line) || line.includes('": "'), "compact");
          assert.deepEqual(JSON.parse(line), entries[i], `${model}/${log} entry ${i}`);
        });
      }
    }
  });
});

Deno.test("merge names the file and the reason for modulo parts it cannot join", async (t) => {
  await withTempDir(async (dir) => {
    const traces = new URL("credit_approval_coloured/traces.json", CONFORMANCE).pathname;
    const bundle = "examples/credit_approval_coloured";
    const part = async (shard: string, format = "json") => {
      const path = `${dir}/${shard.replace("/", "of")}.${format}`;
      const args = [
        "batch",
        bundle,
        "--traces",
        traces,
        "--shard",
        shard,
        "--shard-mode",
        "modulo",
        "-q",
      ];
      await Deno.writeTextFile(path, await ok([...args, "--output-format", format]));
      return path;
    };
    const [a, b, c] = [await part("0/3"), await part("1/3"), await part("2/3")];
    const whole = await part("0/1");
    const jsonl = await part("1/3", "jsonl");
    const text = await Deno.readTextFile(whole);
    const lines = (await Deno.readTextFile(await part("0/1", "jsonl"))).split("\n");
    const wholeRun = await ok(["batch", bundle, "--traces", traces, "-q"]);
    const write = async (name: string, content: string) => {
      await Deno.writeTextFile(`${dir}/${name}`, content);
      return `${dir}/${name}`;
    };
    const cases: [string, string[], string][] = [
      ["a part left out", [a, c], "no part is shard 1/3; a part is missing"],
      ["a part given twice", [a, b, c, b], `${b} and ${b} are both shard 1/3`],
      [
        "overlapping shardings",
        [whole, b],
        `${whole} is shard 0/1 of a json log but ${b} is shard 1/3`,
      ],
      [
        "a whole run's output",
        [await write("whole.json", wholeRun)],
        "whole.json is not a shard's part (it has no petri_serve_part header entry",
      ],
      ["json and jsonl parts", [a, jsonl, c], `${a} is json but ${jsonl} is jsonl`],
      ["a missing file", [a, `${dir}/none.json`], `${dir}/none.json: no such file`],
      ["a directory", [dir], `${dir}: is a directory`],
      [
        "a file that is not a batch output",
        [await write("other.json", '{"traces": []}')],
        "other.json: entry 0 has no trace_index",
      ],
      [
        "a text file",
        [await write("notes.txt", "hello\n")],
        "notes.txt: not a batch output",
      ],
      [
        "a truncated part",
        [await write("cut.json", text.slice(0, text.length / 2))],
        "cut.json: not a complete shard's part: no trailer entry",
      ],
      [
        "a part without its closing bracket",
        [await write("open.json", text.slice(0, -2))],
        "open.json: not a complete batch output: it ends before the list is closed",
      ],
      [
        "text after the list",
        [await write("after.json", `${text}[]\n`)],
        "after.json: not a complete shard's part: no trailer entry",
      ],
      [
        "a broken jsonl line",
        [
          await write(
            "bad.jsonl",
            [lines[0], lines[1]!.slice(0, -1), ...lines.slice(2)].join("\n"),
          ),
        ],
        "bad.jsonl: entry 1 is not valid JSON",
      ],
      [
        "entries out of order",
        [
          await write(
            "order.jsonl",
            moduloPart("jsonl", 0, 2, [
              '{"trace_index":0}',
              '{"trace_index":1}',
              '{"trace_index":0}',
            ]),
          ),
          await write("rest.jsonl", moduloPart("jsonl", 1, 2, ['{"trace_index":2}'])),
        ],
        "order.jsonl: entry 3: trace_index 0 comes after 1",
      ],
    ];
    for (const [name, parts, message] of cases) {
      await t.step(name, async () => {
        const run = await cli(["merge", ...parts, "-o", `${dir}/merged.json`]);
        assert.equal(run.code, 2, run.stderr);
        assert.equal(run.stdout, "");
        assert.match(run.stderr, /^error: [^\n]+$/);
        assert.ok(run.stderr.includes(message), `${run.stderr} lacks ${message}`);
        await assert.rejects(Deno.stat(`${dir}/merged.json`), Deno.errors.NotFound);
      });
    }
    await t.step("no temporary file is left behind", () => {
      const left = [...Deno.readDirSync(dir)].filter((e) => e.name.endsWith(".tmp"));
      assert.deepEqual(left, []);
    });
    await t.step("a merge of all parts into a file", async () => {
      const run = await cli(["merge", c, a, b, "-o", `${dir}/merged.json`]);
      assert.equal(run.code, 0, run.stderr);
      assert.equal(run.stderr, `merge: 39 entries from 3 parts -> ${dir}/merged.json`);
      assert.equal(await Deno.readTextFile(`${dir}/merged.json`), wholeRun);
    });
  });
});
