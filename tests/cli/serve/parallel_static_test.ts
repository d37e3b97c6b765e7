/**
 * `Last-Modified` of the playground's files under `deno serve --parallel`: every instance gives
 * the file's own time (so a restart gives it again), and a request carrying only
 * `If-Modified-Since` gets 304 from whichever instance takes its connection.
 *
 * @module
 */

import assert from "node:assert/strict";
import { complete, RawConnection } from "./raw_http.ts";
import { startServerProcess } from "./server_process.ts";

const MAIN_JS = new URL("../../../web/build/main.js.txt", import.meta.url);

Deno.test("deno serve --parallel: the playground's Last-Modified is the file's time in every instance, and If-Modified-Since gets 304 from each", async () => {
  await using server = await startServerProcess(
    ["serve", "--parallel", "--allow-read", "--allow-env", "--allow-net", "adapter/deno/main.ts"],
    // Four instances whatever the core count; each connection goes to one of them.
    {
      env: { DENO_SERVE_ADDRESS: "tcp:127.0.0.1:0", DENO_JOBS: "4", PETRI_SERVE_ACCESS_LOG: "off" },
    },
  );
  const port = Number(new URL(server.origin).port);
  const mtime = (await Deno.stat(MAIN_JS)).mtime!;
  const expected = new Date(Math.floor(mtime.getTime() / 1000) * 1000).toUTCString();
  const once = async (headers: Record<string, string> = {}) => {
    using connection = await RawConnection.open(port);
    return complete(await connection.request("GET", "/playground/main.js", undefined, headers));
  };
  const first = await once();
  assert.equal(first.headers.get("last-modified"), expected);
  // The other instances see their first request in a later second.
  await new Promise((resolve) => setTimeout(resolve, 1100));
  for (let i = 0; i < 12; i++) {
    const answer = await once(i % 2 === 0 ? {} : { "if-modified-since": expected });
    assert.equal(answer.headers.get("last-modified"), expected, `request ${i}`);
    assert.equal(answer.status, i % 2 === 0 ? 200 : 304, `request ${i}`);
  }
  server.kill("SIGTERM");
  assert.equal((await server.finished()).code, 0);
});
