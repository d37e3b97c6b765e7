/**
 * The functions and classes of `server/log_scoring/` one at a time, each on the case its
 * documentation names.
 *
 * @module
 */

import assert from "node:assert/strict";
import { LogBody } from "../../../server/log_scoring/log_body.ts";
import { negotiateEncoding, readBatchRequest } from "../../../server/log_scoring/request.ts";
import { LogScoring } from "../../../server/log_scoring/route.ts";
import { Readiness } from "../../../server/pipeline/readiness.ts";
import { ORT } from "../../ort.ts";
import { readBundle } from "../../../adapter/deno/bundle_files.ts";

Deno.test("log_body.ts: constructor", async () => {
  const stalled = new ReadableStream<Uint8Array>({ pull: () => new Promise(() => {}) });
  const options = { signal: new AbortController().signal, idleMs: 10, readAheadBytes: 1024 };
  await assert.rejects(new Response(new LogBody(stalled, options).stream).text(), { status: 408 });
});

Deno.test("request.ts: readBatchRequest", () => {
  const request = new Request("http://localhost/batch?format=xes.gz", {
    method: "POST",
    body: new Uint8Array([0x1f, 0x8b]),
  });
  const read = readBatchRequest(request);
  assert.deepEqual([read.format, read.gzip, read.outputFormat], ["xes", true, "json"]);
  assert.throws(
    () => readBatchRequest(new Request("http://localhost/batch?fromat=xes", { method: "POST" })),
    { name: "ValidationError" },
  );
});

Deno.test("request.ts: negotiateEncoding", () => {
  assert.equal(negotiateEncoding(null), "json");
  assert.equal(negotiateEncoding("application/x-ndjson, *\/*;q=0.1"), "jsonl");
  assert.equal(negotiateEncoding("*\/*"), "json");
  assert.throws(() => negotiateEncoding("text/html"), { status: 406 });
});

Deno.test("route.ts: constructor", async () => {
  await using model = await readBundle(ORT, "examples/rest_serving");
  const logs = new LogScoring(model, {
    maxConcurrentLogs: 1,
    idleMs: 30_000,
    readAheadBytes: 64 << 20,
    readiness: new Readiness(),
  });
  assert.equal(logs.inProgress, 0);
});
