/**
 * Rolling restarts behind a real nginx lose nothing (`./restart_load.ts`: two replicas, four
 * keep-alive clients sending `/forward`, `/schema` and a 20,000-row `/v2` infer, one replica
 * stopped with SIGTERM and started again three times under that load). The upstream has
 * nginx's defaults except `fail_timeout=2s` (10 s by default), so that the restarted replica
 * takes traffic again within the test.
 *
 * - `cli.ts serve`, with nginx's default `proxy_next_upstream` (`error timeout`): no answer
 *   other than 200 reaches a client. Its drain closes the listening socket at once (nginx
 *   retries the refused connection elsewhere, even a POST) and answers what comes on open
 *   connections.
 * - `deno serve --parallel adapter/deno/main.ts`: `deno serve` closes the server itself on SIGTERM,
 *   idle keep-alive connections included, with no way for the module to drain (pinned below),
 *   so nginx needs `proxy_next_upstream error timeout http_503 non_idempotent` (safe here: no
 *   request changes state); with it, none reaches a client.
 *
 * @module
 */

import assert from "node:assert/strict";
import { HAS_NGINX } from "./nginx.ts";
import {
  CLI_FACE,
  DENO_SERVE_FACE,
  restartBehindNginx,
  type RestartReport,
} from "./restart_load.ts";
import { complete, RawConnection } from "./raw_http.ts";
import { startServerProcess } from "./server_process.ts";

/** The proxy setting docs/deployment.md gives for `deno serve`. */
const RETRY_ALL = "error timeout http_503 non_idempotent";

function checkReport(report: RestartReport): void {
  const where = JSON.stringify({ ...report, nginxErrors: undefined }) + "\n" +
    report.nginxErrors.split("\n").filter((line) => !line.includes("buffered to")).join("\n");
  assert.deepEqual(report.failures, [], where);
  assert.ok(report.answered > 0, where);
  for (const stopped of report.stopped) assert.equal(stopped.code, 0, where);
  // The replica was taking traffic when its first signal came.
  assert.ok(report.stopped[0]!.logged > 0, where);
}

Deno.test({
  name: "cli.ts serve: three restarts under load behind nginx's defaults, every answer 200",
  ignore: !HAS_NGINX,
  async fn() {
    checkReport(await restartBehindNginx(CLI_FACE));
  },
});

Deno.test({
  name:
    `deno serve --parallel: three restarts under load behind nginx with proxy_next_upstream ${RETRY_ALL}, every answer 200`,
  ignore: !HAS_NGINX,
  async fn() {
    checkReport(await restartBehindNginx(DENO_SERVE_FACE, { proxyNextUpstream: RETRY_ALL }));
  },
});

Deno.test("deno serve closes an idle keep-alive connection at once on SIGTERM: a request sent on it then is lost", async () => {
  await using server = await startServerProcess(
    ["serve", "--allow-read", "--allow-env", "--allow-net", "adapter/deno/main.ts"],
    { env: { DENO_SERVE_ADDRESS: "tcp:127.0.0.1:0", PETRI_SERVE_ACCESS_LOG: "off" } },
  );
  using connection = await RawConnection.open(Number(new URL(server.origin).port));
  assert.equal(complete(await connection.request("GET", "/healthz")).status, 200);
  server.kill("SIGTERM");
  await new Promise((resolve) => setTimeout(resolve, 500));
  // With cli.ts serve this connection would be answered (tests/cli/serve/drain_test.ts).
  assert.equal(await connection.request("POST", "/forward", '{"input_marking":{}}'), "closed");
  assert.equal((await server.finished()).code, 0);
});
