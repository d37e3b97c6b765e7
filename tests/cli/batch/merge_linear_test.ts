/**
 * `merge` is linear in the bytes it merges (issue 27): on parts holding one 64 MiB entry, in
 * both output formats, the part reader searches each byte at most once (a work count, exact),
 * and a real `cli.ts merge` process takes a small multiple of what a process reading and
 * parsing the same files takes, measured in the same test (the bound is generous and
 * relative; before, the reader grew one string and searched it after every read, and a
 * 64 MiB entry took minutes).
 *
 * @module
 */

import assert from "node:assert/strict";
import { entryLayout, type OutputFormat } from "../../../core/log_scoring/entry_layout.ts";
import { PartReader } from "../../../cli/batch/part_reader.ts";
import { runDeno } from "../../run_deno.ts";
import { moduloPart, withTempDir } from "./helpers.ts";

const ENTRY_BYTES = 64 * 1024 * 1024;
const FORMATS: readonly OutputFormat[] = ["json", "jsonl"];

/** Two modulo parts of a log of three traces, the second trace's attribute 64 MiB long. */
async function writeParts(dir: string, format: OutputFormat): Promise<string[]> {
  const layout = entryLayout(format);
  const entry = (i: number, value: string) =>
    layout.failed(i, new Map([["x", value]]), `trace ${i}: attribute 'x' is not a number`);
  const huge = "a".repeat(ENTRY_BYTES);
  const paths = [`${dir}/0.${format}`, `${dir}/1.${format}`];
  await Deno.writeTextFile(paths[0]!, moduloPart(format, 0, 2, [entry(0, "1"), entry(2, "b")]));
  await Deno.writeTextFile(paths[1]!, moduloPart(format, 1, 2, [entry(1, huge)]));
  return paths;
}

Deno.test("the part reader searches each byte of a 64 MiB entry at most once", async () => {
  await withTempDir(async (dir) => {
    for (const format of FORMATS) {
      const [, path] = await writeParts(dir, format);
      const size = (await Deno.stat(path!)).size;
      await using part = await PartReader.open(path!);
      const entries = [];
      for (let e = await part.next(); e !== undefined; e = await part.next()) entries.push(e);
      assert.equal(entries.length, 1);
      assert.ok(entries[0]!.text.length > ENTRY_BYTES);
      assert.ok(part.scanned <= size, `${format}: ${part.scanned} bytes searched of ${size}`);
      assert.ok(part.scanned >= ENTRY_BYTES, `${format}: the entry was searched`);
    }
  });
});

Deno.test("merge of a 64 MiB entry takes a small multiple of reading it", async () => {
  await withTempDir(async (dir) => {
    for (const format of FORMATS) {
      const paths = await writeParts(dir, format);
      // The floor: a process that reads the parts, decodes them and parses each entry.
      const read = `for (const p of Deno.args) { const t = new TextDecoder().decode(` +
        `await Deno.readFile(p)); for (const l of t.split("\\n")) l.length; JSON.parse(` +
        `${format === "json" ? "t" : 't.split("\\n")[2]'}); }`;
      const started = performance.now();
      const floor = await runDeno(["eval", read, "--", ...paths]);
      const floorMs = performance.now() - started;
      assert.equal(floor.code, 0, floor.stderr);
      const began = performance.now();
      const merge = await runDeno(
        ["run", "--allow-read", "--allow-write", "cli.ts", "merge", ...paths, "-o", `${dir}/m`],
        { timeoutMs: 100 * floorMs + 60_000 },
      );
      const mergeMs = performance.now() - began;
      assert.equal(merge.code, 0, merge.stderr);
      assert.match(merge.stderr, /^merge: 3 entries from 2 parts/);
      assert.equal((await Deno.stat(`${dir}/m`)).size > ENTRY_BYTES, true);
      // Ten times the floor, plus room for the CLI's longer start-up.
      assert.ok(
        mergeMs < 10 * floorMs + 2_000,
        `${format}: merge took ${mergeMs.toFixed(0)} ms, reading ${floorMs.toFixed(0)} ms`,
      );
    }
  });
});
