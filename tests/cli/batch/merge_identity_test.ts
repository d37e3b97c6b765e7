/**
 * `merge` refuses parts of different runs (issue 27), through real `cli.ts batch --shard` and
 * `cli.ts merge` processes: range shards of two JSON logs of the same size, a shard scored
 * with another model, modulo (CSV) shards of two logs of the same size, and shards of one log
 * at two URLs whose servers give different ETags. Each refusal is exit 2 and one stderr line
 * naming both parts and what differs, before anything is written; parts of one run still merge
 * into the whole run's output.
 *
 * @module
 */

import assert from "node:assert/strict";
import { runDeno } from "../../run_deno.ts";
import { compileTo, CONFORMANCE, CREDIT_BUNDLE, withTempDir } from "./helpers.ts";
import { readConformanceDescription } from "../../conformance/fixtures.ts";
import { serveLog } from "./log_server.ts";

const CLI = ["run", "--allow-read", "--allow-write", "--allow-net=127.0.0.1", "cli.ts"];

async function ok(args: string[]): Promise<string> {
  const run = await runDeno([...CLI, ...args]);
  assert.equal(run.code, 0, run.stderr);
  return run.stdout;
}

/** The same text with one digit of its data changed: another log of the same size. */
function sameSizeVariant(text: string): string {
  const at = text.slice(text.indexOf("\n")).search(/[1-8]/) + text.indexOf("\n");
  const changed = text.slice(0, at) + String(Number(text[at]) + 1) + text.slice(at + 1);
  assert.notEqual(changed, text);
  return changed;
}

async function refused(parts: string[], dir: string, ...texts: string[]): Promise<void> {
  const run = await runDeno([...CLI, "merge", ...parts, "-o", `${dir}/merged.json`]);
  assert.equal(run.code, 2, run.stderr);
  assert.equal(run.stdout, "");
  assert.match(run.stderr, /^error: [^\n]+\n$/, run.stderr);
  for (const text of texts) assert.ok(run.stderr.includes(text), `${run.stderr} lacks ${text}`);
  await assert.rejects(Deno.stat(`${dir}/merged.json`), Deno.errors.NotFound);
}

Deno.test("merge refuses parts of two logs of one size, or of two models", async (t) => {
  await withTempDir(async (dir) => {
    const folder = new URL("credit_approval_coloured/", CONFORMANCE);
    const json = await Deno.readTextFile(new URL("traces.json", folder));
    const csv = await Deno.readTextFile(new URL("traces.csv", folder));
    const paths = {
      a: `${dir}/a.json`,
      b: `${dir}/b.json`,
      ca: `${dir}/a.csv`,
      cb: `${dir}/b.csv`,
    };
    await Deno.writeTextFile(paths.a, json);
    await Deno.writeTextFile(paths.b, sameSizeVariant(json));
    await Deno.writeTextFile(paths.ca, csv);
    await Deno.writeTextFile(paths.cb, sameSizeVariant(csv));
    const other = await compileTo(dir, "rest", await readConformanceDescription("rest_serving"));
    const part = async (name: string, log: string, shard: string, bundle = CREDIT_BUNDLE) => {
      const path = `${dir}/${name}`;
      await ok(["batch", bundle, "--traces", log, "--shard", shard, "-o", path, "-q"]);
      return path;
    };

    await t.step("range shards of two JSON logs of the same size", async () => {
      const a0 = await part("a0.json", paths.a, "0/2");
      const b1 = await part("b1.json", paths.b, "1/2");
      await refused(
        [a0, b1],
        dir,
        `${a0} was scored from a 4982-byte log whose first 64 KiB`,
        `but ${b1} from a 4982-byte log`,
      );
      // The parts of one log merge into its whole run.
      const a1 = await part("a1.json", paths.a, "1/2");
      const merged = await ok(["merge", a1, a0]);
      assert.equal(merged, await ok(["batch", CREDIT_BUNDLE, "--traces", paths.a, "-q"]));
    });

    await t.step("a shard scored with another model", async () => {
      const a0 = await part("m0.json", paths.a, "0/2");
      const a1 = await part("m1.json", paths.a, "1/2", other);
      await refused(
        [a0, a1],
        dir,
        `${a0} was scored with the model`,
        `but ${a1} with`,
        "onnx_sha256",
      );
    });

    await t.step("modulo shards of two CSV logs of the same size", async () => {
      const a0 = await part("c0.json", paths.ca, "0/2");
      const b1 = await part("c1.json", paths.cb, "1/2");
      await refused([a0, b1], dir, `${a0} was scored from a`, `but ${b1} from a`);
      const a1 = await part("c1a.json", paths.ca, "1/2");
      const merged = await ok(["merge", a0, a1]);
      assert.equal(merged, await ok(["batch", CREDIT_BUNDLE, "--traces", paths.ca, "-q"]));
    });
  });
});

Deno.test("merge refuses shards of one log served with two ETags", async () => {
  await withTempDir(async (dir) => {
    const log = await Deno.readFile(new URL("credit_approval_coloured/traces.json", CONFORMANCE));
    await using v1 = serveLog(log, { ranges: true, etag: '"v1"' });
    await using v2 = serveLog(log, { ranges: true, etag: '"v2"' });
    const part = async (name: string, url: string, shard: string) => {
      const path = `${dir}/${name}`;
      await ok(["batch", CREDIT_BUNDLE, "--traces", url, "--shard", shard, "-o", path, "-q"]);
      return path;
    };
    const a0 = await part("a0.json", `${v1.url}/traces.json`, "0/2");
    const b1 = await part("b1.json", `${v2.url}/traces.json`, "1/2");
    await refused([a0, b1], dir, 'and ETag "v1"', 'and ETag "v2"');
    const a1 = await part("a1.json", `${v1.url}/traces.json`, "1/2");
    assert.match(await Deno.readTextFile(a1), /"log_etag": "\\"v1\\""/);
    await ok(["merge", a0, a1]);
  });
});
