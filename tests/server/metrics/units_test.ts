/**
 * The functions and classes of `server/metrics/` one at a time, each on the case its
 * documentation names.
 *
 * @module
 */

import assert from "node:assert/strict";
import { AccessLog, formatLine } from "../../../server/metrics/access_log.ts";
import { mergeExpositions, selectFamilies, withLabel } from "../../../server/metrics/exposition.ts";
import { InstanceMetrics } from "../../../server/metrics/instances.ts";
import { Metrics, metricsFor } from "../../../server/metrics/metrics.ts";
import { ORT } from "../../ort.ts";
import { readBundle } from "../../../adapter/deno/bundle_files.ts";
import { metricsRoute } from "../../../server/metrics/route.ts";

Deno.test("access_log.ts: close", () => {
  const chunks: string[] = [];
  const log = new AccessLog((text) => chunks.push(text));
  log.close();
  // After close, each record is written at once.
  log.record({ time: 0, method: "GET", path: "/", route: "unmatched", status: 404, seconds: 0 });
  assert.equal(chunks.length, 1);
});

Deno.test("access_log.ts: formatLine ends with the request id", () => {
  assert.equal(
    formatLine({
      time: 0,
      method: "GET",
      path: "/",
      route: "/",
      status: 200,
      seconds: 0,
      requestId: "abc",
    }),
    "1970-01-01T00:00:00.000Z GET / 200 0.000ms - id=abc\n",
  );
});

Deno.test("exposition.ts: withLabel", () => {
  assert.equal(
    withLabel('# TYPE q gauge\nq 3\nr{a="{b}"} 1\n', "instance_id", "x"),
    '# TYPE q gauge\nq{instance_id="x"} 3\nr{instance_id="x",a="{b}"} 1\n',
  );
});

Deno.test("exposition.ts: selectFamilies", () => {
  const text = "# HELP a A.\n# TYPE a gauge\na 1\n# HELP b B.\n# TYPE b gauge\nb 2\n";
  assert.equal(selectFamilies(text, (name) => name === "b"), "# HELP b B.\n# TYPE b gauge\nb 2\n");
});

Deno.test("exposition.ts: mergeExpositions", () => {
  const mine = "# HELP p P.\n# TYPE p gauge\np 1\n";
  const theirs = "# HELP p P.\n# TYPE p gauge\np 2\n# HELP q Q.\n# TYPE q gauge\nq 3\n";
  assert.equal(
    mergeExpositions([mine, theirs]),
    "# HELP p P.\n# TYPE p gauge\np 1\np 2\n# HELP q Q.\n# TYPE q gauge\nq 3\n",
  );
});

Deno.test("instances.ts: gather", async () => {
  using alone = new InstanceMetrics(() => "# TYPE up gauge\nup 1\n", {
    channel: `doc-${crypto.randomUUID()}`,
    id: "solo",
  });
  assert.deepEqual(await alone.gather(), ['# TYPE up gauge\nup{instance_id="solo"} 1\n']);
});

Deno.test("metrics.ts: metricsFor", async () => {
  await using model = await readBundle(ORT, "examples/rest_serving");
  const metrics = metricsFor(model.session);
  await model.run([{ marking: new Map() }], { withGradient: false });
  // A loaded bundle's session reports each run and its queue.
  const lines = metrics.render().split("\n");
  assert.ok(lines.includes('petri_serve_ort_run_rows_count{gradient="false"} 1'));
  assert.ok(lines.includes("petri_serve_queue_rows 0"));
});

Deno.test("metrics.ts: recordRequest", () => {
  const metrics = new Metrics();
  // A method outside the known set is counted as "other", so series stay bounded.
  metrics.recordRequest({ method: "BREW", route: "/healthz", status: 405, seconds: 1e-4 });
  assert.ok(metrics.render().includes('{method="other",route="/healthz",status="405"} 1'));
});

Deno.test("route.ts: metricsRoute", async () => {
  const route = metricsRoute(new Metrics(), "", { extraMetrics: () => "# TYPE x gauge\nx 2\n" });
  const response = await route();
  assert.equal(response.headers.get("content-type"), "text/plain; version=0.0.4; charset=utf-8");
  assert.ok((await response.text()).endsWith("x 2\n"));
});
