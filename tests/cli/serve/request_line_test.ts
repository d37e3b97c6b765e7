/**
 * The server routes, checks and logs the request-target of the request line, never a URL
 * rebuilt from `Host`, and answers only the host names it is meant for (DNS rebinding): real
 * `cli.ts serve` processes, raw HTTP/1.1 with chosen `Host` headers.
 *
 * @module
 */

import assert from "node:assert/strict";
import { complete, RawConnection } from "./raw_http.ts";
import { startServerProcess } from "./server_process.ts";

const FORWARD = '{"input_marking":{"p_submitted":1}}';

async function serve(flags: readonly string[]) {
  return await startServerProcess(["run", "-A", "cli.ts", "serve", "--port", "0", ...flags], {
    stdout: true,
  });
}

Deno.test("a Host header with a path in it moves neither the route nor the access log's path", async () => {
  await using server = await serve(["--allowed-host", "*"]);
  using connection = await RawConnection.open(Number(new URL(server.origin).port));
  const health = complete(
    await connection.request("GET", "/healthz", undefined, { host: "x/metrics?" }),
  );
  assert.equal(health.status, 200);
  assert.equal(JSON.parse(health.body).status, "ok", "answered /healthz, not /metrics");
  const post = complete(
    await connection.request("POST", "/healthz", FORWARD, { host: "x/forward?" }),
  );
  assert.equal(post.status, 405, "POST /healthz is not a /forward run");
  assert.equal(post.headers.get("allow"), "GET, HEAD");
  connection.close();
  server.kill("SIGTERM");
  const exit = await server.finished();
  const log = exit.stdout;
  assert.match(log, / GET \/healthz 200 /);
  assert.match(log, / POST \/healthz 405 /);
  assert.doesNotMatch(log, /metrics|forward/, log);
});

Deno.test("bound to loopback, only local host names are answered; --allowed-host adds others", async () => {
  await using local = await serve([]);
  const port = Number(new URL(local.origin).port);
  {
    using connection = await RawConnection.open(port);
    for (const host of [`127.0.0.1:${port}`, `localhost:${port}`, "LOCALHOST", "[::1]:8000"]) {
      const answer = complete(await connection.request("GET", "/healthz", undefined, { host }));
      assert.equal(answer.status, 200, host);
    }
    for (const host of ["rebound.example", "localhost.example:80", "evil.example:8000"]) {
      const answer = complete(await connection.request("POST", "/forward", FORWARD, { host }));
      assert.equal(answer.status, 421, host);
      assert.match(JSON.parse(answer.body).detail, /--allowed-host/);
    }
  }
  await using named = await serve(["--allowed-host", "api.example"]);
  using connection = await RawConnection.open(Number(new URL(named.origin).port));
  const api = complete(
    await connection.request("POST", "/forward", FORWARD, { host: "api.example:443" }),
  );
  assert.equal(api.status, 200);
  const other = complete(
    await connection.request("GET", "/healthz", undefined, { host: "127.0.0.1" }),
  );
  assert.equal(other.status, 421, "the given list replaces the default");
});
