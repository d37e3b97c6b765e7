/**
 * Range shards, URLs and standard input through real `cli.ts` processes with the permissions
 * the docs give: `batch --shard I/N` parts of an XES, a JSON and a JSONL log merged by
 * `cli.ts merge` equal one whole run (json and jsonl output); a log read from a URL with
 * `--allow-net` for that host only (and refused, on one line, without it); a log piped to
 * `--traces -` (plain and gzipped), which needs `--format`; `--help` saying which logs get
 * which sharding mode.
 *
 * @module
 */

import assert from "node:assert/strict";
import { runDeno } from "../../run_deno.ts";
import { CONFORMANCE, CREDIT_BUNDLE, ROOT, withTempDir } from "./helpers.ts";
import { serveLog } from "./log_server.ts";

const RW = ["run", "--allow-read", "--allow-write", "cli.ts"];

async function ok(args: string[]): Promise<string> {
  const run = await runDeno(args);
  assert.equal(run.code, 0, run.stderr);
  return run.stderr;
}

async function jsonlOf(dir: string): Promise<string> {
  const entries = JSON.parse(
    await Deno.readTextFile(new URL("triage_softmax_ste/traces.json", CONFORMANCE)),
  ) as unknown[];
  const path = `${dir}/traces.jsonl`;
  await Deno.writeTextFile(path, entries.map((e) => JSON.stringify(e)).join("\n") + "\n");
  return path;
}

Deno.test("cli.ts batch --shard I/3 range parts merged by cli.ts merge equal the whole run", async () => {
  await withTempDir(async (dir) => {
    const bundle = new URL("triage_softmax_ste/model.pt", CONFORMANCE).pathname;
    const logs: [string, string][] = [
      [new URL("triage_softmax_ste/traces.xes", CONFORMANCE).pathname, "json"],
      [new URL("triage_softmax_ste/traces.json", CONFORMANCE).pathname, "jsonl"],
      [await jsonlOf(dir), "json"],
    ];
    for (const [log, format] of logs) {
      const base = [bundle, "--traces", log, "--output-format", format, "-q"];
      await ok([...RW, "batch", ...base, "-o", `${dir}/whole.${format}`]);
      const parts: string[] = [];
      for (let i = 0; i < 3; i++) {
        const part = `${dir}/part${i}.${format}`;
        const stderr = await ok([...RW, "batch", ...base, "--shard", `${i}/3`, "-o", part]);
        assert.match(
          stderr,
          new RegExp(
            `\\(shard ${i}/3: bytes \\d+-\\d+ of \\d+; \\d+ bytes read with the head and the edges' scans\\)`,
          ),
        );
        parts.push(part);
      }
      const stderr = await ok([
        ...RW,
        "merge",
        ...parts.reverse(),
        "-o",
        `${dir}/merged.${format}`,
      ]);
      assert.match(stderr, /^merge: \d+ entries from 3 parts/);
      assert.equal(
        await Deno.readTextFile(`${dir}/merged.${format}`),
        await Deno.readTextFile(`${dir}/whole.${format}`),
        `${log} -> ${format}`,
      );
    }
  });
});

Deno.test("a log at a URL needs --allow-net for its host only", async () => {
  const entries = JSON.parse(
    await Deno.readTextFile(new URL("credit_approval_coloured/traces.json", CONFORMANCE)),
  ) as unknown[];
  const bytes = new TextEncoder().encode(entries.map((e) => JSON.stringify(e)).join("\n") + "\n");
  await using server = serveLog(bytes, { ranges: true });
  const url = `${server.url}/logs/traces.jsonl?X-Amz-Signature=s3cr3t`;
  const host = `127.0.0.1:${server.port}`;
  const args = ["cli.ts", "batch", CREDIT_BUNDLE, "--traces", url, "--shard", "1/2"];
  const allowed = await runDeno(["run", "--allow-read", `--allow-net=${host}`, ...args]);
  assert.equal(allowed.code, 0, allowed.stderr);
  assert.ok(JSON.parse(allowed.stdout).length > 1);
  const denied = await runDeno(["run", "--allow-read", ...args]);
  assert.equal(denied.code, 2);
  assert.equal(denied.stdout, "");
  assert.equal(
    denied.stderr,
    `error: ${server.url}/logs/traces.jsonl?…: cannot fetch it (no net permission for ${host} ` +
      `(run deno with --allow-net=${host}))\n`,
  );
});

/** `deno run --allow-read cli.ts batch ARGS` with `input` piped to its standard input. */
async function piped(args: string[], input: Uint8Array): Promise<Deno.CommandOutput> {
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "--allow-read", "cli.ts", "batch", ...args],
    cwd: ROOT,
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
    env: { NO_COLOR: "1" },
  }).spawn();
  const writer = child.stdin.getWriter();
  await writer.write(input);
  await writer.close();
  return await child.output();
}

Deno.test("--traces - reads standard input (plain or gzipped), with --format", async () => {
  const log = new URL("credit_approval_coloured/traces.xes", CONFORMANCE).pathname;
  const bytes = await Deno.readFile(log);
  const expected = await runDeno([
    "run",
    "--allow-read",
    "cli.ts",
    "batch",
    CREDIT_BUNDLE,
    "--traces",
    log,
  ]);
  assert.equal(expected.code, 0, expected.stderr);
  const decode = (b: Uint8Array) => new TextDecoder().decode(b);
  const plain = await piped([CREDIT_BUNDLE, "--traces", "-", "--format", "xes"], bytes);
  assert.equal(plain.code, 0, decode(plain.stderr));
  assert.equal(decode(plain.stdout), expected.stdout);
  assert.match(decode(plain.stderr), /^batch: 39 traces in /m);
  const gz = new Uint8Array(
    await new Response(new Blob([bytes]).stream().pipeThrough(new CompressionStream("gzip")))
      .arrayBuffer(),
  );
  const zipped = await piped([CREDIT_BUNDLE, "--traces", "-", "--format", "xes.gz"], gz);
  assert.equal(zipped.code, 0, decode(zipped.stderr));
  assert.equal(decode(zipped.stdout), expected.stdout);
  const sharded = await piped(
    [CREDIT_BUNDLE, "--traces", "-", "--format", "xes", "--shard", "1/2", "-q"],
    bytes,
  );
  assert.equal(sharded.code, 0);
  assert.match(
    decode(sharded.stderr),
    /standard input cannot be read from an offset; shard 1\/2 reads the whole log/,
  );
  const noFormat = await piped([CREDIT_BUNDLE, "--traces", "-"], bytes);
  assert.equal(noFormat.code, 2);
  assert.equal(
    decode(noFormat.stderr),
    "error: --traces - (standard input) needs --format (xes, csv, json or jsonl, each also " +
      "with .gz); run 'cli.ts batch --help' for usage\n",
  );
});

Deno.test("batch --help says which logs get which sharding mode", async () => {
  const run = await runDeno(["run", "--allow-read", "cli.ts", "batch", "--help"]);
  assert.equal(run.code, 0);
  for (
    const text of [
      "--traces LOG",
      "--shard-mode MODE",
      "range   uncompressed XES, JSON and JSONL files and URLs",
      "modulo  CSV (a case's rows may lie anywhere), gzip, standard input",
      "--allow-net=HOST",
    ]
  ) {
    assert.ok(run.stdout.includes(text), `--help lacks ${text}`);
  }
});
