/**
 * `batch` reading its log from a local HTTP server on 127.0.0.1 (one that honours `Range`,
 * one that ignores it), and from gzipped files: range shards fetched over HTTP merge into the
 * whole run, each shard fetching no more than its share plus 1 MiB (counted by the server);
 * a server that ignores `Range` gets a note and one request a shard; `.json.gz`, `.jsonl.gz`,
 * `.csv.gz` and `.xes.gz` logs score as their uncompressed selves, and shard by index
 * (modulo). Runs in-process through the functions `cli.ts` runs, with one loaded model.
 *
 * @module
 */

import assert from "node:assert/strict";
import { type Run, runBatch, runMerge } from "./in_process.ts";
import { readBundle } from "../../../adapter/deno/bundle_files.ts";
import { loadOrt } from "../../../adapter/deno/ort.ts";
import { writeLog } from "../../../bench/batch_logs.ts";
import type { Model } from "../../../core/bundle/mod.ts";
import { CONFORMANCE, CREDIT_BUNDLE, withTempDir } from "./helpers.ts";
import { serveLog } from "./log_server.ts";
import "../../ort.ts";

/** `batch` with the flags every run here shares. */
function batchRun(model: Model, args: string[]): Promise<Run> {
  return runBatch(model, ["--batch-size", "256", "-q", ...args]);
}

async function ok(run: Promise<Run>): Promise<Run> {
  const result = await run;
  assert.equal(result.code, 0, result.stderr);
  return result;
}

async function mergeParts(paths: string[]): Promise<string> {
  const run = await runMerge(paths);
  assert.equal(run.code, 0, run.stderr);
  return run.stdout;
}

const MiB = 1024 * 1024;

Deno.test("range shards read a log over HTTP with Range requests, each fetching its share", async (t) => {
  await withTempDir(async (dir) => {
    await using model = await readBundle(await loadOrt(), CREDIT_BUNDLE);
    for (const format of ["xes", "json", "jsonl"] as const) {
      const path = `${dir}/log.${format}`;
      if (format === "jsonl") {
        const entries = JSON.parse(await Deno.readTextFile(`${dir}/log.json`)) as unknown[];
        await Deno.writeTextFile(path, entries.map((e) => JSON.stringify(e)).join("\n") + "\n");
      } else await writeLog(path, format, 12_000);
      const bytes = await Deno.readFile(path);
      const size = bytes.length;
      const whole = (await ok(batchRun(model, ["--traces", path]))).stdout;
      await using server = serveLog(bytes, { ranges: true });
      const url = `${server.url}/logs/log.${format}?X-Amz-Signature=secret`;
      await t.step(`${format}: ${size} bytes, 4 and 7 shards`, async () => {
        for (const count of [4, 7]) {
          const parts: string[] = [];
          for (let i = 0; i < count; i++) {
            server.reset();
            const run = await ok(batchRun(model, ["--traces", url, "--shard", `${i}/${count}`]));
            const share = Math.floor((i + 1) * size / count) - Math.floor(i * size / count);
            assert.ok(
              server.bytes <= share + MiB,
              `shard ${i}/${count} fetched ${server.bytes} bytes for a share of ${share}`,
            );
            assert.ok(server.bytes >= share * 0.9, `${server.bytes} bytes for ${share}`);
            // The summary names the URL without its signature, and the bytes read.
            assert.match(
              run.stderr,
              /bytes \d+-\d+ of \d+; \d+ bytes read with the head and the edges' scans\)/,
            );
            assert.ok(!run.stderr.includes("secret"), run.stderr);
            const part = `${dir}/${format}.${i}of${count}.json`;
            await Deno.writeTextFile(part, run.stdout);
            parts.push(part);
          }
          assert.equal(await mergeParts(parts), whole, `${format}, N = ${count}`);
        }
      });
      await t.step(`${format}: the whole log streamed from the URL`, async () => {
        server.reset();
        assert.equal((await ok(batchRun(model, ["--traces", url]))).stdout, whole);
        assert.equal(server.requests, 1);
        assert.equal(server.bytes, size);
      });
    }
  });
});

Deno.test("a server that ignores Range: a note, one request a shard, the same scores", async () => {
  await withTempDir(async (dir) => {
    await using model = await readBundle(await loadOrt(), CREDIT_BUNDLE);
    const path = `${dir}/log.xes`;
    await writeLog(path, "xes", 8000);
    const bytes = await Deno.readFile(path);
    const whole = (await ok(batchRun(model, ["--traces", path]))).stdout;
    await using server = serveLog(bytes, { ranges: false });
    const parts: string[] = [];
    for (let i = 0; i < 3; i++) {
      server.reset();
      const run = await ok(
        batchRun(model, ["--traces", `${server.url}/log.xes`, "--shard", `${i}/3`]),
      );
      assert.match(
        run.stderr,
        /^note: 127\.0\.0\.1:\d+ ignores HTTP Range requests \(it answered 200 with the whole log\); the shard reads the log from its start, skipping to its share$/m,
      );
      assert.equal(server.requests, 1, "the probe's answer is the stream all reads share");
      const read = Number(/; (\d+) bytes read /.exec(run.stderr)![1]);
      const end = Math.floor((i + 1) * bytes.length / 3);
      assert.ok(read <= end + MiB, `shard ${i} read ${read} bytes to reach byte ${end}`);
      parts.push(`${dir}/p${i}.json`);
      await Deno.writeTextFile(parts[i]!, run.stdout);
    }
    assert.equal(await mergeParts(parts), whole);
  });
});

Deno.test("URL failures are one line naming the URL (query hidden), exit 2", async () => {
  await using model = await readBundle(await loadOrt(), CREDIT_BUNDLE);
  await using server = serveLog(new TextEncoder().encode("[]"), { ranges: true });
  const missing = await batchRun(model, ["--traces", `${server.url}/missing.json?sig=secret`]);
  assert.equal(missing.code, 2);
  assert.equal(
    missing.stderr,
    `error: ${server.url}/missing.json?…: not found (HTTP 404)`,
  );
  const refused = await batchRun(model, ["--traces", "http://127.0.0.1:9/log.json"]);
  assert.equal(refused.code, 2);
  assert.match(refused.stderr, /^error: http:\/\/127\.0\.0\.1:9\/log\.json: cannot fetch it \(/);
  const unknown = await batchRun(model, ["--traces", `${server.url}/log.txt`]);
  assert.match(unknown.stderr, /log\.txt: unknown trace format/);
});

Deno.test("gzipped logs (.json.gz, .jsonl.gz, .csv.gz, .xes.gz) score as their plain selves, sharded modulo", async (t) => {
  await withTempDir(async (dir) => {
    await using model = await readBundle(await loadOrt(), CREDIT_BUNDLE);
    const folder = new URL("credit_approval_coloured/", CONFORMANCE);
    const json = await Deno.readTextFile(new URL("traces.json", folder));
    const logs: [string, Uint8Array<ArrayBuffer>][] = [
      ["json", new TextEncoder().encode(json)],
      [
        "jsonl",
        new TextEncoder().encode(
          (JSON.parse(json) as unknown[]).map((e) => JSON.stringify(e)).join("\n") + "\n",
        ),
      ],
      ["csv", await Deno.readFile(new URL("traces.csv", folder))],
      ["xes", await Deno.readFile(new URL("traces.xes", folder))],
    ];
    for (const [format, bytes] of logs) {
      await t.step(format, async () => {
        const plain = `${dir}/log.${format}`;
        const zipped = `${plain}.gz`;
        await Deno.writeFile(plain, bytes);
        const compressed = new Blob([bytes]).stream().pipeThrough(new CompressionStream("gzip"));
        await Deno.writeFile(zipped, new Uint8Array(await new Response(compressed).arrayBuffer()));
        const expected = (await ok(batchRun(model, ["--traces", plain]))).stdout;
        assert.equal((await ok(batchRun(model, ["--traces", zipped]))).stdout, expected);
        const parts: string[] = [];
        for (let i = 0; i < 2; i++) {
          const run = await ok(batchRun(model, ["--traces", zipped, "--shard", `${i}/2`]));
          assert.match(
            run.stderr,
            /it is gzipped; shard \d\/2 reads the whole log and scores every 2nd trace \(modulo sharding\)/,
          );
          parts.push(`${dir}/${format}.${i}.json`);
          await Deno.writeTextFile(parts[i]!, run.stdout);
        }
        assert.equal(await mergeParts(parts), expected);
        const insisted = await batchRun(model, [
          "--traces",
          zipped,
          "--shard",
          "0/2",
          "--shard-mode",
          "range",
        ]);
        assert.equal(insisted.code, 2);
        assert.match(
          insisted.stderr,
          /--shard-mode range needs an uncompressed XES, JSON or JSONL file or URL; the log is gzipped/,
        );
      });
    }
  });
});
