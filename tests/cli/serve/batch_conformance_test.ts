/**
 * `POST /batch` gives `cli.ts batch`'s bytes: every conformance log (JSON, CSV, XES, and JSONL
 * made from the JSON one), posted to a real `cli.ts serve` and to `deno serve --parallel
 * adapter/deno/main.ts` on the same compiled bundle, plain and gzipped (`Content-Encoding: gzip`, and
 * `application/gzip` with `?format=`, told by the magic bytes), is answered with exactly what
 * `cli.ts batch` prints for it (`Accept: application/json`, the default) and what
 * `batch --output-format jsonl` prints (`Accept: application/x-ndjson`).
 *
 * @module
 */

import assert from "node:assert/strict";
import { batch, compileTo, withTempDir } from "../batch/helpers.ts";
import {
  CONFORMANCE,
  readConformanceDescription,
  RECORDED_MODELS,
} from "../../conformance/fixtures.ts";
import { startServerProcess } from "./server_process.ts";
import { gzipBytes, LOG_TYPES, postLog, serveLogs } from "./batch_client.ts";

/** A log's bytes and what `cli.ts batch` printed for it. */
interface Log {
  readonly bytes: Uint8Array<ArrayBuffer>;
  readonly json: string;
  readonly jsonl: string;
}

/** The logs of one model, by file name, and what `cli.ts batch` printed for each. */
interface Expected {
  readonly bundle: string;
  readonly logs: ReadonlyMap<string, Log>;
}

/** Compiles `model`'s bundle into `dir`, writes its JSONL log, and runs `cli.ts batch`. */
async function expected(dir: string, model: string): Promise<Expected> {
  const folder = new URL(`${model}/`, CONFORMANCE);
  const bundle = await compileTo(dir, model, await readConformanceDescription(model));
  const files = new Map<string, string>();
  for (const name of ["traces.json", "traces.csv", "traces.xes"]) {
    files.set(name, new URL(name, folder).pathname);
  }
  const list = JSON.parse(await Deno.readTextFile(files.get("traces.json")!)) as unknown[];
  const jsonl = `${dir}/${model}.jsonl`;
  await Deno.writeTextFile(jsonl, list.map((trace) => `${JSON.stringify(trace)}\n`).join(""));
  files.set("traces.jsonl", jsonl);
  const logs = new Map<string, Log>();
  for (const [name, path] of files) {
    const runs = await Promise.all(["json", "jsonl"].map(async (format) => {
      const result = await batch([bundle, "--traces", path, "--output-format", format, "-q"]);
      assert.equal(result.code, 0, `batch ${path} --output-format ${format}: ${result.stderr}`);
      return result.stdout;
    }));
    logs.set(name, { bytes: await Deno.readFile(path), json: runs[0]!, jsonl: runs[1]! });
  }
  return { bundle, logs };
}

/** Posts every log of `expected` to `origin` as `variants` says, and compares each answer. */
async function assertSameBytes(
  t: Deno.TestContext,
  origin: string,
  model: string,
  expected: Expected,
  gzipped: boolean,
): Promise<void> {
  for (const [name, log] of expected.logs) {
    const format = name.slice("traces.".length) as keyof typeof LOG_TYPES;
    const variants: [string, BodyInit, Record<string, string>, string][] = [
      ["plain", log.bytes, { "content-type": LOG_TYPES[format] }, ""],
    ];
    if (gzipped) {
      const gz = await gzipBytes(log.bytes);
      variants.push(
        ["Content-Encoding: gzip", gz, {
          "content-type": LOG_TYPES[format],
          "content-encoding": "gzip",
        }, ""],
        [
          "application/gzip, ?format=",
          gz,
          { "content-type": "application/gzip" },
          `?format=${format}`,
        ],
      );
    }
    for (const [variant, body, headers, query] of variants) {
      await t.step(`${model}/${name}, ${variant}`, async () => {
        const answers: [string, string][] = [
          ["application/json", log.json],
          ["application/x-ndjson", log.jsonl],
        ];
        for (const [accept, want] of answers) {
          const response = await postLog(origin, body, { ...headers, accept }, query);
          const text = await response.text();
          assert.equal(response.status, 200, text);
          assert.equal(response.headers.get("content-type"), accept);
          assert.ok(text === want, `${accept}: the answer is not batch's output`);
        }
      });
    }
  }
}

Deno.test("POST /batch on cli.ts serve answers every conformance log with cli.ts batch's bytes", async (t) => {
  assert.ok(RECORDED_MODELS.length >= 5);
  await withTempDir(async (dir) => {
    for (const model of RECORDED_MODELS) {
      const want = await expected(dir, model);
      await using server = await serveLogs(want.bundle);
      await assertSameBytes(t, server.origin, model, want, true);
    }
  });
});

Deno.test("POST /batch under deno serve --parallel adapter/deno/main.ts gives cli.ts batch's bytes", async (t) => {
  await withTempDir(async (dir) => {
    for (const model of RECORDED_MODELS) {
      const want = await expected(dir, model);
      await using server = await startServerProcess(
        [
          "serve",
          "--parallel",
          "--allow-read",
          "--allow-env",
          "--allow-net",
          "adapter/deno/main.ts",
        ],
        { env: { DENO_SERVE_ADDRESS: "tcp:127.0.0.1:0", PETRI_SERVE_BUNDLE: want.bundle } },
      );
      await assertSameBytes(t, server.origin, model, want, model === RECORDED_MODELS[0]);
    }
  });
});
