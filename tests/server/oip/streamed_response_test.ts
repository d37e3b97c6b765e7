/**
 * A large `/v2` infer answer is streamed as it is written (no `Content-Length`, chunked), with
 * the numbers of the same rows sent in small requests; compressed, it streams compressed.
 *
 * @module
 */

import assert from "node:assert/strict";
import { createApp } from "../../../server/app.ts";
import { openModel, xorDescription } from "../models.ts";

/** An infer of `count` rows from row `first` on: p_in (the last of the sorted places) varies. */
function infer(first: number, count: number): string {
  const marking = Array.from({ length: count }, (_, r) => [0, 0, (((first + r) * 7) % 10) / 10]);
  const mask = Array.from({ length: count }, () => [0, 0, 1]);
  return JSON.stringify({
    inputs: [
      { name: "marking", datatype: "FP32", shape: [count, 3], data: marking },
      { name: "marking_mask", datatype: "FP32", shape: [count, 3], data: mask },
    ],
  });
}

Deno.test("a 12,000-row infer answer is streamed, with the numbers of 12 small requests", async () => {
  await using model = await openModel(xorDescription());
  const app = await createApp(model, { modelName: "m" });
  const url = "http://localhost/v2/models/m/infer";
  const big = await app.fetch(new Request(url, { method: "POST", body: infer(0, 12_000) }));
  assert.equal(big.status, 200);
  assert.equal(big.headers.get("content-length"), null, "streamed");
  const whole = await big.json();
  const parts = [];
  for (let k = 0; k < 12; k++) {
    const small = await app.fetch(
      new Request(url, { method: "POST", body: infer(k * 1000, 1000) }),
    );
    assert.ok(small.headers.get("content-length"), "a small answer has its length");
    parts.push(await small.json());
  }
  for (const [i, output] of whole.outputs.entries()) {
    assert.deepEqual(output.shape[0], 12_000);
    assert.deepEqual(output.data, parts.flatMap((part) => part.outputs[i].data));
  }
  const gzip = await app.fetch(
    new Request(url, {
      method: "POST",
      body: infer(0, 12_000),
      headers: { "accept-encoding": "gzip" },
    }),
  );
  assert.equal(gzip.headers.get("content-encoding"), "gzip");
  const text = await new Response(gzip.body!.pipeThrough(new DecompressionStream("gzip"))).text();
  assert.deepEqual(JSON.parse(text), whole);
});
