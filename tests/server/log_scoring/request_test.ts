/**
 * What `POST /batch` refuses before it reads a log, and how it picks the format: query
 * parameters that are unknown, repeated, empty or out of their values (422, FastAPI's shape),
 * a format it cannot tell or an encoding it cannot read (415), an `Accept` it cannot satisfy
 * (406), an empty log (400); the format from `?format=` over `Content-Type`, the answer from
 * `?output_format=` over `Accept`, and the CSV columns from the query. On the app itself, with
 * the example model.
 *
 * @module
 */

import assert from "node:assert/strict";
import { createApp } from "../../../server/app.ts";
import { readBundle } from "../../../adapter/deno/bundle_files.ts";
import { ORT } from "../../ort.ts";

const CSV = "case_id,activity,amount\nc1,approve loan,5000\nc2,decline loan,300\n";

async function withApp(run: (post: Post) => Promise<void>): Promise<void> {
  await using model = await readBundle(ORT, "examples/credit_approval_coloured");
  const app = await createApp(model);
  await run((query, headers, body = CSV) =>
    app.fetch(new Request(`http://localhost/batch${query}`, { method: "POST", headers, body }))
  );
}

type Post = (query: string, headers: Record<string, string>, body?: string) => Promise<Response>;

Deno.test("POST /batch refuses bad query parameters with 422, every problem listed", async () => {
  await withApp(async (post) => {
    const response = await post("?fromat=csv&format=parquet&case_column=&output_format=xml", {
      "content-type": "text/csv",
    });
    assert.equal(response.status, 422);
    const { detail } = await response.json();
    assert.deepEqual(
      detail.map((issue: { type: string; loc: string[] }) => [issue.type, issue.loc]),
      [
        ["extra_forbidden", ["query", "fromat"]],
        ["enum", ["query", "format"]],
        ["string_too_short", ["query", "case_column"]],
        ["enum", ["query", "output_format"]],
      ],
    );
    const twice = await post("?format=csv&format=csv", {});
    assert.equal(twice.status, 422);
    assert.deepEqual((await twice.json()).detail[0].loc, ["query", "format"]);
  });
});

Deno.test("POST /batch answers 415 when it cannot tell the format or read the encoding", async () => {
  await withApp(async (post) => {
    for (const headers of [{}, { "content-type": "text/plain" }, { "content-type": "image/png" }]) {
      const response = await post("", headers);
      assert.equal(response.status, 415);
      assert.match((await response.json()).detail, /\?format=xes\|csv\|json\|jsonl/);
    }
    const brotli = await post("", { "content-type": "text/csv", "content-encoding": "br" });
    assert.equal(brotli.status, 415);
    assert.match((await brotli.json()).detail, /^Content-Encoding br is not supported/);
  });
});

Deno.test("POST /batch negotiates its answer: Accept, ?output_format=, else 406", async () => {
  await withApp(async (post) => {
    const cases: [Record<string, string>, string, string][] = [
      [{}, "", "application/json"],
      [{ accept: "*/*" }, "", "application/json"],
      [{ accept: "application/x-ndjson" }, "", "application/x-ndjson"],
      [{ accept: "application/json;q=0.5, application/x-ndjson" }, "", "application/x-ndjson"],
      [{ accept: "application/jsonl, application/*;q=0.1" }, "", "application/x-ndjson"],
      [{ accept: "text/html" }, "?output_format=jsonl", "application/x-ndjson"],
    ];
    for (const [headers, query, type] of cases) {
      const response = await post(query, { "content-type": "text/csv", ...headers });
      assert.equal(response.status, 200, JSON.stringify(headers));
      assert.equal(response.headers.get("content-type"), type, JSON.stringify(headers));
      await response.body?.cancel();
    }
    const refused = await post("", { "content-type": "text/csv", accept: "text/html" });
    assert.equal(refused.status, 406);
    assert.match((await refused.json()).detail, /application\/x-ndjson/);
  });
});

Deno.test("POST /batch reads the format from ?format= over Content-Type, and the CSV columns", async () => {
  await withApp(async (post) => {
    const csv = "order,step,amount\nc1,approve loan,5000\n";
    const response = await post(
      "?format=csv&case_column=order&activity_column=step",
      { "content-type": "application/octet-stream", accept: "application/x-ndjson" },
      csv,
    );
    assert.equal(response.status, 200);
    const entry = JSON.parse(await response.text());
    assert.deepEqual(entry.attributes, { amount: "5000", order: "c1" });
    const missing = await post("?format=csv", {}, csv);
    assert.equal(missing.status, 400);
    assert.match((await missing.json()).detail, /^request body: .*case_id/);
  });
});

Deno.test("POST /batch answers 400 for an empty log, and its entries are not compressed", async () => {
  await withApp(async (post) => {
    const empty = await post("", { "content-type": "application/json" }, "[]");
    assert.equal(empty.status, 400);
    assert.deepEqual(await empty.json(), { detail: "request body: no traces parsed from the log" });
    const gzip = await post("", { "content-type": "text/csv", "accept-encoding": "gzip" });
    assert.equal(gzip.status, 200);
    assert.equal(gzip.headers.get("content-encoding"), null);
    assert.equal(JSON.parse(await gzip.text()).length, 2);
  });
});

Deno.test("POST /batch?answer_after_upload=true reads the whole log first, within its bound", async () => {
  await using model = await readBundle(ORT, "examples/credit_approval_coloured");
  const app = await createApp(model, { logReadAheadBytes: 200 });
  const post = (body: string) =>
    app.fetch(
      new Request("http://localhost/batch?answer_after_upload=true", {
        method: "POST",
        headers: { "content-type": "text/csv", accept: "application/x-ndjson" },
        body,
      }),
    );
  const small = await post(CSV);
  assert.equal(small.status, 200);
  assert.equal((await small.text()).trimEnd().split("\n").length, 2);
  const rows = Array.from({ length: 20 }, (_, i) => `c${i},approve loan,5000\n`).join("");
  const large = await post(`case_id,activity,amount\n${rows}`);
  assert.equal(large.status, 413);
  assert.match((await large.json()).detail, /larger than 200 bytes.*--max-log-read-ahead-bytes/);
});
