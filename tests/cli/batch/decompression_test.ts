/**
 * Decompressed logs stay bounded in memory, and a size limit says so (issue 27), on real
 * `cli.ts batch` processes whose peak resident memory is read from `/proc` while they run:
 * a 1 MiB `.xes.gz` holding 1 GiB of white space inside `<log>` (a decompression bomb) is
 * scored in about the memory of a small log's run, as is one holding 128 MiB (the peak does
 * not grow with the expansion); an attribute value past the reader's limit is refused with
 * one line that names the limit as a size limit, not as malformed XML.
 *
 * @module
 */

import assert from "node:assert/strict";
import { MAX_XES_VALUE_CHARS } from "../../../core/event_log/xes/read.ts";
import { CREDIT_BUNDLE, ROOT, withTempDir } from "./helpers.ts";

const MIB = 1024 * 1024;
const TRACE = '<trace><string key="amount" value="5000"/>' +
  '<event><string key="concept:name" value="approve loan"/></event></trace>';

/** Writes `parts` gzipped to `path`; a number is that many bytes of `fill`. */
async function writeGzip(path: string, parts: (string | number)[], fill = " "): Promise<void> {
  const block = new TextEncoder().encode(fill.repeat(MIB));
  async function* chunks() {
    for (const part of parts) {
      if (typeof part === "string") yield new TextEncoder().encode(part);
      else {for (let left = part; left > 0; left -= MIB) {
          yield block.subarray(0, Math.min(MIB, left));
        }}
    }
  }
  const file = await Deno.open(path, { write: true, create: true, truncate: true });
  await ReadableStream.from(chunks()).pipeThrough(new CompressionStream("gzip")).pipeTo(
    file.writable,
  );
}

/** Runs `deno run --allow-read cli.ts batch …` and reads its peak RSS (VmHWM) while it runs. */
async function batchPeak(log: string) {
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "--allow-read", "cli.ts", "batch", CREDIT_BUNDLE, "--traces", log, "-q"],
    cwd: ROOT,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
    env: { NO_COLOR: "1" },
    // A bound that proves the run ends, not a measure of its speed.
    signal: AbortSignal.timeout(300_000),
  }).spawn();
  let peak = 0;
  let running = true;
  const polling = (async () => {
    while (running) {
      try {
        const status = await Deno.readTextFile(`/proc/${child.pid}/status`);
        peak = Math.max(peak, Number(/^VmHWM:\s+(\d+) kB/m.exec(status)?.[1] ?? 0) * 1024);
      } catch {
        // The process has ended.
      }
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  })();
  const output = await child.output();
  running = false;
  await polling;
  const decode = (bytes: Uint8Array) => new TextDecoder().decode(bytes);
  return { code: output.code, stderr: decode(output.stderr), peak };
}

Deno.test({
  name: "a gzip bomb of white space is scored in flat memory",
  ignore: Deno.build.os !== "linux",
  async fn() {
    await withTempDir(async (dir) => {
      const small = `${dir}/small.xes.gz`;
      const medium = `${dir}/medium.xes.gz`;
      const bomb = `${dir}/bomb.xes.gz`;
      await writeGzip(small, ["<log>", TRACE, "</log>"]);
      await writeGzip(medium, ["<log>", 128 * MIB, TRACE, "</log>"]);
      await writeGzip(bomb, ["<log>", 1024 * MIB, TRACE, "</log>"]);
      assert.ok((await Deno.stat(bomb)).size < 2 * MIB);
      const runs = [];
      for (const log of [small, medium, bomb]) {
        const run = await batchPeak(log);
        assert.equal(run.code, 0, run.stderr);
        assert.match(run.stderr, /^batch: 1 trace in /);
        runs.push(run.peak);
      }
      const [base, middle, large] = runs.map((bytes) => Math.round(bytes / MIB));
      const what =
        `peak RSS: ${base} MiB (small log), ${middle} MiB (128 MiB), ${large} MiB (1 GiB)`;
      // Before, the 1 GiB log held chunks of 64 MiB at once and peaked over 1.2 GiB.
      assert.ok(large! < base! + 384, what);
      assert.ok(large! < middle! + 192, what);
    });
  },
});

Deno.test({
  name: "an attribute value past the limit is refused as a size limit",
  ignore: Deno.build.os !== "linux",
  async fn() {
    await withTempDir(async (dir) => {
      const log = `${dir}/attribute.xes.gz`;
      await writeGzip(log, [
        '<log><trace><string key="amount" value="',
        MAX_XES_VALUE_CHARS + MIB,
        '"/></trace></log>',
      ], "a");
      const run = await batchPeak(log);
      assert.equal(run.code, 2, run.stderr);
      assert.equal(
        run.stderr,
        `error: ${log}: an attribute value at line 1, column 32 is longer than ` +
          `${MAX_XES_VALUE_CHARS} characters, the reader's size limit (the XML may be valid)\n`,
      );
      assert.ok(run.peak < 768 * MIB, `peak RSS ${Math.round(run.peak / MIB)} MiB`);
    });
  },
});
