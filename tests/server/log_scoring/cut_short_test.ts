/**
 * A log whose body is cut short mid-stream, on the app itself with the example model: when the
 * host tells the hang-up a moment after the read failed (as Deno may), the log counts as
 * `client_gone`; when it tells none (`deno serve` shutting down makes bodies unreadable and the
 * client is still there), the answer ends with the final record and the log counts as `cut`.
 *
 * @module
 */

import assert from "node:assert/strict";
import { createApp } from "../../../server/app.ts";
import { readBundle } from "../../../adapter/deno/bundle_files.ts";
import { creditTrace, LOG_TYPES } from "../../cli/serve/batch_client.ts";
import { ORT } from "../../ort.ts";

const TRACES = 2000;

for (const hangUp of [true, false]) {
  Deno.test(`POST /batch: a body cut short ${hangUp ? "by a client that hangs up is client_gone" : "with the client still there is cut with the final record"}`, async () => {
    await using model = await readBundle(ORT, "examples/credit_approval_coloured");
    const app = await createApp(model);
    const client = new AbortController();
    const { promise: answered, resolve: answer } = Promise.withResolvers<void>();
    const encoder = new TextEncoder();
    let sent = false;
    const body = new ReadableStream<Uint8Array>({
      async pull(controller) {
        if (!sent) {
          sent = true;
          let text = "";
          for (let i = 0; i < TRACES; i++) text += creditTrace(i);
          controller.enqueue(encoder.encode(text));
          return;
        }
        await answered;
        controller.error(new TypeError("connection reset"));
        if (hangUp) setTimeout(() => client.abort(), 20);
      },
    }, { highWaterMark: 0 });
    const request = new Request("http://localhost/batch", {
      method: "POST",
      headers: { "content-type": LOG_TYPES.jsonl, accept: "application/x-ndjson" },
      body,
    });
    const response = await app.fetch(request, { signal: client.signal });
    assert.equal(response.status, 200);
    const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
    let text = (await reader.read()).value ?? "";
    answer();
    let failed = false;
    try {
      for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) {
        text += chunk.value;
      }
    } catch {
      failed = true;
    }
    const lines = text.split("\n").filter((line) => line !== "");
    const last = JSON.parse(lines.at(-1)!);
    if (hangUp) {
      assert.ok(failed, "the answer to a client gone fails");
    } else {
      assert.equal(failed, false);
      assert.equal(last.incomplete, true);
      assert.match(last.error, /could not be read to its end/);
      assert.equal(last.traces_written, lines.length - 1);
    }
    const metrics = await (await app.fetch(new Request("http://localhost/metrics"))).text();
    const outcomes = metrics.split("\n").filter((line) =>
      line.startsWith("petri_serve_batch_logs_total{")
    );
    const outcome = hangUp ? "client_gone" : "cut";
    assert.deepEqual(outcomes, [`petri_serve_batch_logs_total{outcome="${outcome}"} 1`]);
  });
}
