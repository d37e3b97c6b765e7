/**
 * `POST /batch` behind a real nginx, configured as `docs/deployment.md` says: nginx stops
 * relaying the request body once the upstream's answer begins, so a log larger than the
 * sockets' buffers stalls and is cut with the final record when its answer streams at once,
 * and goes through whole with `?answer_after_upload=true`. Skipped where nginx is not
 * installed.
 *
 * @module
 */

import assert from "node:assert/strict";
import { creditTrace, LOG_TYPES, postLog, serveLogs } from "./batch_client.ts";

const NGINX = "/usr/sbin/nginx";
const hasNginx = await Deno.stat(NGINX).then(() => true, () => false);
/** Traces in the log: about 20 MB, more than the sockets' buffers hold. */
const TRACES = 200_000;

/** A free port on 127.0.0.1 (taken and let go). */
function freePort(): number {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const { port } = listener.addr as Deno.NetAddr;
  listener.close();
  return port;
}

/** nginx in the foreground, proxying `/batch` to `upstream`; stopped on dispose. */
async function startNginx(upstream: string, dir: string) {
  const port = freePort();
  const conf = `${dir}/nginx.conf`;
  await Deno.writeTextFile(
    conf,
    `daemon off;
worker_processes 1;
pid ${dir}/nginx.pid;
error_log ${dir}/error.log;
events { worker_connections 64; }
http {
  access_log off;
  client_body_temp_path ${dir}/body;
  proxy_temp_path ${dir}/proxy;
  fastcgi_temp_path ${dir}/fastcgi;
  uwsgi_temp_path ${dir}/uwsgi;
  scgi_temp_path ${dir}/scgi;
  server {
    listen 127.0.0.1:${port};
    location = /batch {
      proxy_request_buffering off;
      proxy_buffering off;
      proxy_read_timeout 1h;
      client_max_body_size 0;
      proxy_http_version 1.1;
      proxy_pass ${upstream};
    }
  }
}
`,
  );
  const child = new Deno.Command(NGINX, {
    args: ["-c", conf, "-p", `${dir}/`],
    stdin: "null",
    stdout: "null",
    stderr: "null",
  }).spawn();
  const origin = `http://127.0.0.1:${port}`;
  for (let tries = 0;; tries++) {
    try {
      (await Deno.connect({ hostname: "127.0.0.1", port })).close();
      break;
    } catch (error) {
      if (tries > 100) throw error;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
  return {
    origin,
    async [Symbol.asyncDispose]() {
      child.kill("SIGTERM");
      await child.status;
    },
  };
}

Deno.test({
  name: "POST /batch behind nginx: cut when it answers at once, whole with answer_after_upload",
  ignore: !hasNginx,
  async fn() {
    const dir = await Deno.makeTempDir({ prefix: "petri_nginx_" });
    try {
      await using server = await serveLogs(
        "examples/credit_approval_coloured",
        "--body-timeout-ms",
        "3000",
      );
      await using nginx = await startNginx(server.origin, dir);
      let log = "";
      for (let i = 0; i < TRACES; i++) log += creditTrace(i);
      const headers = { "content-type": LOG_TYPES.jsonl, accept: "application/x-ndjson" };

      const streamed = await postLog(nginx.origin, log, headers);
      assert.equal(streamed.status, 200);
      const cut = (await streamed.text()).trimEnd().split("\n");
      const record = JSON.parse(cut.at(-1)!);
      assert.equal(record.incomplete, true);
      assert.equal(record.error, "The request body did not arrive within 3 s");

      const whole = await postLog(nginx.origin, log, headers, "?answer_after_upload=true");
      assert.equal(whole.status, 200);
      const lines = (await whole.text()).trimEnd().split("\n");
      assert.equal(lines.length, TRACES);
      assert.equal(JSON.parse(lines.at(-1)!).trace_index, TRACES - 1);
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  },
});
