/**
 * `merge` of parts whose numbers print in exponent notation, and of parts larger than one
 * read chunk. The bug this guards against: `merge` refused a part of 750 entries with
 * "entry 244 is not valid JSON", an entry holding `5.608797073364258e-05`. The number was not
 * the cause: the json part reader cut an entry that straddled two read chunks from a stale
 * position, and the first parts long enough to straddle came from logs whose residuals were
 * that small. So these tests use parts of many chunks, and numbers of every written shape:
 * tiny and huge residuals and scores, negative and positive exponents, in both output formats,
 * through real `cli.ts batch --shard` and `cli.ts merge` processes.
 *
 * @module
 */

import assert from "node:assert/strict";
import { runDeno } from "../../run_deno.ts";
import { entryLayout, type OutputFormat } from "../../../core/log_scoring/entry_layout.ts";
import { writeLog } from "../../../bench/batch_logs.ts";
import { CREDIT_BUNDLE, moduloPart, withTempDir } from "./helpers.ts";

const FORMATS: readonly OutputFormat[] = ["json", "jsonl"];

async function ok(args: string[]): Promise<string> {
  const run = await runDeno(["run", "--allow-read", "--allow-write", "cli.ts", ...args]);
  assert.equal(run.code, 0, run.stderr);
  return run.stdout;
}

Deno.test("batch --shard parts of a 3,000-trace credit log merge into the whole run's bytes", async () => {
  await withTempDir(async (dir) => {
    const log = `${dir}/credit.json`;
    await writeLog(log, "json", 3000);
    for (const format of FORMATS) {
      const base = [CREDIT_BUNDLE, "--traces", log, "--output-format", format, "-q"];
      await ok(["batch", ...base, "-o", `${dir}/whole.${format}`]);
      const whole = await Deno.readTextFile(`${dir}/whole.${format}`);
      // The residuals that print in exponent notation are really there, and the parts span
      // many read chunks (64 KiB), so entries straddle chunk boundaries.
      assert.match(whole, /\d\.\d+e-05[,}\n]/, "residuals below 1e-4");
      assert.ok(whole.length > 4 * 65536, `${whole.length} characters`);
      const parts = [0, 1, 2, 3].map((i) => `${dir}/p${i}.${format}`);
      for (const [i, part] of parts.entries()) {
        await ok(["batch", ...base, "--shard", `${i}/4`, "-o", part]);
      }
      await ok(["merge", ...parts, "-o", `${dir}/merged.${format}`]);
      assert.equal(await Deno.readTextFile(`${dir}/merged.${format}`), whole, format);
    }
  });
});

/** Numbers of every shape Python's repr writes: exponents either way, subnormals, extremes. */
const NUMBERS = [
  5.608797073364258e-5,
  1e-4,
  9.999999999999999e-5,
  1.3439359868028244e-11,
  5e-324,
  2.2250738585072014e-308,
  1e16,
  1.2345678901234567e+22,
  1.7976931348623157e308,
  -3.62396240234375e-5,
  -1e16,
  0,
  -0,
  NaN,
  Infinity,
  0.5,
];

Deno.test("merge keeps entries with numbers in exponent notation byte for byte", async () => {
  await withTempDir(async (dir) => {
    for (const format of FORMATS) {
      const layout = entryLayout(format);
      const ids = ["t_a", "t_b", "t_\u00e9"];
      const entries: string[] = [];
      for (let i = 0; i < 6000; i++) {
        const residuals = ids.map((_, j) => NUMBERS[(i + j) % NUMBERS.length]!);
        const attributes = new Map([["amount", String(NUMBERS[i % NUMBERS.length])]]);
        entries.push(
          i % 97 === 5
            ? layout.failed(i, attributes, `trace ${i}: attribute 'amount' is not a number`)
            : layout.scored(i, attributes, {
              ids,
              residuals,
              offset: 0,
              score: NUMBERS[(i * 7) % NUMBERS.length]!,
            }),
        );
      }
      const whole = layout.list(entries);
      assert.match(whole, /e-324/);
      assert.match(whole, /e\+308/);
      assert.match(whole, /e\+16/);
      const parts: string[] = [];
      for (let shard = 0; shard < 3; shard++) {
        const path = `${dir}/x${shard}.${format}`;
        const share = entries.filter((_, i) => i % 3 === shard);
        await Deno.writeTextFile(path, moduloPart(format, shard, 3, share));
        parts.push(path);
      }
      const merged = await ok(["merge", ...parts]);
      assert.equal(merged, whole, format);
    }
  });
});
