/**
 * The access log's cost per request, in-process (steadier than a socket benchmark on a shared
 * machine): `app.fetch` of POST /forward on the example, without an access log (the baseline)
 * and with one writing to a discarding sink, plus the log's own `record` call alone.
 *
 * ```sh
 * deno bench -A bench/access_log_bench.ts
 * ```
 *
 * @module
 */

import * as ort from "onnxruntime-web";
import { EXAMPLE_BUNDLE_URL, readBundle } from "../adapter/deno/bundle_files.ts";
import { AccessLog } from "../server/metrics/access_log.ts";
import { createApp } from "../server/mod.ts";

ort.env.wasm.numThreads = 1;
const model = await readBundle(ort, EXAMPLE_BUNDLE_URL);
let written = 0;
const log = new AccessLog((text) => (written += text.length));
const plain = await createApp(model);
const logged = await createApp(model, { onRequest: (record) => log.record(record) });
const BODY = JSON.stringify({
  input_marking: { p_submitted: 1 },
  input_values: { p_submitted: 4000 },
});
const forward = () =>
  new Request("http://127.0.0.1/forward", {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: BODY,
  });

Deno.bench("POST /forward, no access log", { group: "access log", baseline: true }, async () => {
  await (await plain.fetch(forward())).arrayBuffer();
});
Deno.bench("POST /forward, access log on", { group: "access log" }, async () => {
  await (await logged.fetch(forward())).arrayBuffer();
});
Deno.bench("AccessLog.record alone", () => {
  log.record({
    time: Date.now(),
    method: "POST",
    path: "/forward",
    route: "/forward",
    status: 200,
    seconds: 0.0001234,
    rows: 1,
  });
});
globalThis.addEventListener("unload", () => log.close());
