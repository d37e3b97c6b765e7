/**
 * A server process for `reopening_server_test.ts`: `bare` runs a plain `Deno.serve`, `reopening`
 * a {@link ReopeningServer}, both answering "ok" on 127.0.0.1 port 0. The first stderr line
 * names the URL; a bare server's `finished` is reported as `finished: resolved` or
 * `finished: rejected: MESSAGE`; the reopening server's own lines follow. It runs until
 * SIGTERM.
 *
 * @module
 */

import { ReopeningServer } from "../../../adapter/deno/reopening_server.ts";

const handler = () => new Response("ok");
let shutdown: () => Promise<void>;
if (Deno.args[0] === "bare") {
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, handler);
  console.error(`listening on http://127.0.0.1:${server.addr.port}`);
  server.finished.then(
    () => console.error("finished: resolved"),
    (error) => console.error(`finished: rejected: ${error.message}`),
  );
  shutdown = () => server.shutdown().catch(() => {});
} else {
  const server = new ReopeningServer(
    { hostname: "127.0.0.1", port: 0, log: (line) => console.error(line) },
    handler,
  );
  console.error(`listening on http://127.0.0.1:${server.addr.port}`);
  shutdown = () => server.shutdown();
}
const alive = setInterval(() => {}, 60_000);
Deno.addSignalListener("SIGTERM", async () => {
  clearInterval(alive);
  await shutdown();
  Deno.exit(0);
});
