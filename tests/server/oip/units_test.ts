/**
 * The functions and classes of `server/oip/` one at a time, each on the case its
 * documentation names.
 *
 * @module
 */

import assert from "node:assert/strict";
import { createOip } from "../../../server/oip/routes.ts";
import { Readiness } from "../../../server/pipeline/readiness.ts";
import { RequestContext } from "../../../server/pipeline/context.ts";
import { ORT } from "../../ort.ts";
import { readBundle } from "../../../adapter/deno/bundle_files.ts";

Deno.test("routes.ts: createOip", async () => {
  await using model = await readBundle(ORT, "examples/rest_serving");
  const oip = createOip(model, {
    name: "loans",
    version: "1",
    modelVersion: "1",
    readiness: new Readiness(),
    limits: { maxBytes: 1024, timeoutMs: 1000 },
  });
  assert.equal(oip.route("/healthz"), undefined); // not under /v2
  const ready = oip.route("/v2/health/ready")!;
  const context = new RequestContext(new Request("http://localhost/v2/health/ready"), false);
  const response = await ready.methods.GET!(context);
  assert.equal(response.status, 200);
  assert.equal((await response.json()).ready, true);
});
