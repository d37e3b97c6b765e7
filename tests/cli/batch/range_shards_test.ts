/**
 * Range shards through the functions `cli.ts` runs: for every conformance model, its log as
 * JSON, JSONL and XES, read from the file and from a local HTTP server honouring `Range`,
 * N = 1, 2, 3, 7 and 64 (more shards than the logs have traces), and both output formats,
 * `batch --shard I/N` parts merged equal one whole run byte for byte, error entries included. The model is loaded once per conformance model
 * ({@link batchWithModel}: what `batch` does after loading its bundle) and `merge` runs
 * in-process, to keep the test's time reasonable; `range_cli_test.ts` runs a subset as real
 * processes. Also: how `merge` refuses range parts that do not make one run.
 *
 * @module
 */

import assert from "node:assert/strict";
import { type Run, runBatch, runMerge } from "./in_process.ts";
import { serveLog } from "./log_server.ts";
import { readBundle } from "../../../adapter/deno/bundle_files.ts";
import { loadOrt } from "../../../adapter/deno/ort.ts";
import { compileTo, CONFORMANCE, CREDIT_BUNDLE, withTempDir } from "./helpers.ts";
import { readConformanceDescription, RECORDED_MODELS } from "../../conformance/fixtures.ts";
// ORT's one-time set-up, outside any test (see tests/ort.ts).
import "../../ort.ts";

const batchRun = runBatch;
const merge = runMerge;

async function ok(run: Promise<Run>): Promise<string> {
  const result = await run;
  assert.equal(result.code, 0, result.stderr);
  return result.stdout;
}

/** The conformance model's JSON log rewritten as JSONL, in `dir`. */
async function writeJsonl(dir: string, model: string): Promise<string> {
  const entries = JSON.parse(
    await Deno.readTextFile(new URL(`${model}/traces.json`, CONFORMANCE)),
  ) as unknown[];
  const path = `${dir}/${model}.traces.jsonl`;
  await Deno.writeTextFile(path, entries.map((e) => JSON.stringify(e)).join("\n") + "\n");
  return path;
}

const SHARDS = [1, 2, 3, 7, 64];

Deno.test("range shards merged equal one whole run: every model, JSON, JSONL, XES, N up to 64", async (t) => {
  assert.ok(RECORDED_MODELS.length >= 5, `found ${RECORDED_MODELS.length} conformance models`);
  let errorEntries = 0;
  let emptyParts = 0;
  await withTempDir(async (dir) => {
    for (const name of RECORDED_MODELS) {
      const path = await compileTo(dir, name, await readConformanceDescription(name));
      await using model = await readBundle(await loadOrt(), path);
      const logs = [
        new URL(`${name}/traces.json`, CONFORMANCE).pathname,
        await writeJsonl(dir, name),
        new URL(`${name}/traces.xes`, CONFORMANCE).pathname,
      ];
      for (const log of logs) {
        const suffix = log.slice(log.lastIndexOf(".") + 1);
        const bytes = await Deno.readFile(log);
        // The same log from a local server honouring Range, which counts what it sends.
        await using server = serveLog(bytes, { ranges: true });
        await t.step(`${name}/${suffix}, from a file and over HTTP`, async () => {
          for (const format of ["json", "jsonl"]) {
            const flags = ["--output-format", format, "--batch-size", "64", "-q"];
            const whole = await ok(batchRun(model, ["--traces", log, ...flags]));
            errorEntries += whole.split(/"error": ?"/).length - 1;
            for (const source of [log, `${server.url}/conformance/traces.${suffix}`]) {
              const base = ["--traces", source, ...flags];
              for (const n of SHARDS) {
                const parts: string[] = [];
                for (let i = 0; i < n; i++) {
                  server.reset();
                  const run = await batchRun(model, [...base, "--shard", `${i}/${n}`]);
                  assert.equal(run.code, 0, run.stderr);
                  assert.match(
                    run.stderr,
                    new RegExp(`\\(shard ${i}/${n}: bytes \\d+-\\d+ of \\d+`),
                  );
                  if (run.stderr.startsWith("batch: 0 traces")) emptyParts++;
                  // A small log: the probe's 64 KiB hold it all, and no more is fetched.
                  assert.ok(server.bytes <= bytes.length, `${server.bytes} bytes fetched`);
                  if (source !== log) assert.ok(server.requests >= 1, "read over HTTP");
                  const part = `${dir}/part.${i}of${n}.${format}`;
                  await Deno.writeTextFile(part, run.stdout);
                  parts.push(part);
                }
                // Any order: merge orders the parts by their shard.
                parts.reverse();
                assert.equal(await ok(merge(parts)), whole, `${source}, ${format}, N = ${n}`);
              }
            }
          }
        });
      }
    }
  });
  assert.ok(errorEntries >= 5, `error entries are merged too (${errorEntries} of them)`);
  assert.ok(emptyParts > 0, `shards with no trace (${emptyParts}) merge too`);
});

Deno.test("range parts renumber the 'trace N:' of error entries with their trace_index", async () => {
  await withTempDir(async (dir) => {
    await using model = await readBundle(await loadOrt(), CREDIT_BUNDLE);
    // Every seventh amount is not a number, every eleventh is missing: error entries all along.
    const entries = Array.from({ length: 60 }, (_, i) => ({
      attributes: i % 11 === 4 ? {} : { amount: i % 7 === 3 ? "High" : String(100 * (i + 1)) },
      events: [i % 2 ? "approve loan" : "decline loan"],
    }));
    const logs = {
      json: JSON.stringify(entries, null, 1),
      jsonl: entries.map((e) => JSON.stringify(e)).join("\n"),
      xes: `<log>\n${
        entries.map((e) =>
          `<trace>${
            "amount" in e.attributes ? `<string key="amount" value="${e.attributes.amount}"/>` : ""
          }<event><string key="concept:name" value="${e.events[0]}"/></event></trace>\n`
        ).join("")
      }</log>\n`,
    };
    for (const [format, text] of Object.entries(logs)) {
      const log = `${dir}/errors.${format}`;
      await Deno.writeTextFile(log, text);
      for (const output of ["json", "jsonl"]) {
        const base = ["--traces", log, "--output-format", output, "--batch-size", "16", "-q"];
        const whole = await ok(batchRun(model, base));
        assert.match(whole, /"error": ?"trace 52: attribute 'amount' is not a number: 'High'/);
        for (const n of [3, 7]) {
          const parts: string[] = [];
          for (let i = 0; i < n; i++) {
            const part = `${dir}/errors.${format}.${i}.${output}`;
            await Deno.writeTextFile(
              part,
              await ok(batchRun(model, [...base, "--shard", `${i}/${n}`])),
            );
            parts.push(part);
          }
          assert.match(
            await Deno.readTextFile(parts.at(-1)!),
            /"error": ?"trace [0-8]: attribute/,
            "the last part numbers its errors within itself",
          );
          assert.equal(await ok(merge(parts)), whole, `${format} -> ${output}, N = ${n}`);
        }
      }
    }
  });
});

Deno.test("merge refuses range parts that do not make one run, naming why", async (t) => {
  await withTempDir(async (dir) => {
    await using model = await readBundle(await loadOrt(), CREDIT_BUNDLE);
    const log = new URL("credit_approval_coloured/traces.xes", CONFORMANCE).pathname;
    const other = new URL("credit_approval_coloured/traces.json", CONFORMANCE).pathname;
    const part = async (name: string, args: string[]) => {
      const path = `${dir}/${name}`;
      const run = await batchRun(model, ["--batch-size", "64", "-q", ...args]);
      assert.equal(run.code, 0, run.stderr);
      await Deno.writeTextFile(path, run.stdout);
      return path;
    };
    const a = await part("0.json", ["--traces", log, "--shard", "0/3"]);
    const b = await part("1.json", ["--traces", log, "--shard", "1/3"]);
    const c = await part("2.json", ["--traces", log, "--shard", "2/3"]);
    const modulo = await part("m.json", [
      "--traces",
      log,
      "--shard",
      "1/3",
      "--shard-mode",
      "modulo",
    ]);
    const fromOther = await part("o.json", ["--traces", other, "--shard", "1/3"]);
    const ofFour = await part("4.json", ["--traces", log, "--shard", "1/4"]);
    const text = await Deno.readTextFile(b);
    const write = async (name: string, content: string) => {
      await Deno.writeTextFile(`${dir}/${name}`, content);
      return `${dir}/${name}`;
    };
    // Shard 1 claiming to start two bytes later than shard 0 ended.
    const shifted = await write(
      "shifted.json",
      text.replace(/"start": (\d+)/, (_, start) => `"start": ${Number(start) + 2}`),
    );
    const cases: [string, string[], string][] = [
      ["a shard left out", [a, c], "no part is shard 1/3; a part is missing"],
      ["a shard given twice", [a, b, b, c], `${b} and ${b} are both shard 1/3`],
      [
        "a modulo part among range parts",
        [a, modulo, c],
        `${a} is a range shard's part but ${modulo}`,
      ],
      ["another log's part", [a, fromOther, c], "from a 7658-byte log whose first 64 KiB hash to"],
      ["another shard count", [a, ofFour, c], "shard 1/4"],
      ["shards whose boundaries disagree", [a, shifted, c], "disagree where their traces meet"],
      ["a part cut short", [a, await write("cut.json", text.slice(0, -40)), c], "no trailer"],
    ];
    for (const [name, parts, message] of cases) {
      await t.step(name, async () => {
        const run = await merge(parts);
        assert.equal(run.code, 2);
        assert.equal(run.stdout, "", "nothing written before the check");
        assert.ok(run.stderr.includes(message), `${run.stderr} lacks ${message}`);
      });
    }
    await t.step("the three parts, in any order", async () => {
      const whole = await ok(batchRun(model, ["--traces", log, "--batch-size", "64", "-q"]));
      assert.equal(await ok(merge([c, a, b])), whole);
    });
  });
});
