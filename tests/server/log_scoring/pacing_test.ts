import assert from "node:assert/strict";
import { LogPacing } from "../../../server/log_scoring/pacing.ts";
import { wantsLogPacing } from "../../../server/pipeline/steps.ts";

Deno.test("a log counts others as coming for a second after one arrived, not its own request", () => {
  const start = performance.now() - 5_000;
  let last = start;
  const pacing = new LogPacing(() => last, start);
  assert.equal(pacing.busy, false, "the log's own arrival");
  last = performance.now() + 1;
  assert.equal(pacing.busy, true, "a request after the log's");
  last = performance.now() - 1_001;
  assert.equal(pacing.busy, false, "a request over a second ago");
});

Deno.test("probes and scrapes do not make a log yield at once; model requests do", () => {
  for (const path of ["/healthz", "/readyz", "/v2/health/live", "/v2/health/ready", "/metrics"]) {
    assert.equal(wantsLogPacing(path), false, path);
  }
  for (const path of ["/forward", "/anomaly", "/batch", "/v2/models/m/infer", "/schema"]) {
    assert.equal(wantsLogPacing(path), true, path);
  }
});
