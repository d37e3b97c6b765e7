/**
 * What `adapter/deno/connection_http.ts` relies on in Deno's per-connection server (an internal
 * of Deno 2.9, pinned here so that an upgrade that changes it shows up): it serves keep-alive
 * requests on a connection this process accepted, `shutdown()` closes an idle connection at once
 * and one with a request in flight after its answer, the abort signal closes it at once, and
 * `ServeHandlerInfo.completed` settles once an answer has gone out.
 *
 * @module
 */

import assert from "node:assert/strict";
import { serveConnection } from "../../../adapter/deno/connection_http.ts";
import { complete, RawConnection, readUntilClosed } from "../../cli/serve/raw_http.ts";

const serve = serveConnection!;
const onError = () => new Response("error", { status: 500 });

/** Accepts one connection on a fresh listener, served by `handler`, and a client for it. */
async function oneConnection(
  handler: (request: Request, info: Deno.ServeHandlerInfo) => Response | Promise<Response>,
  signal = new AbortController().signal,
) {
  using listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const client = RawConnection.open(listener.addr.port);
  const http = serve(await listener.accept(), signal, handler, onError);
  return { http, client: await client };
}

Deno.test("Deno 2.9 has a per-connection server on its internal namespace", () => {
  assert.equal(typeof serveConnection, "function");
});

Deno.test("a served connection answers keep-alive requests; shutdown() closes it once idle", async () => {
  const { http, client } = await oneConnection((request) =>
    new Response(new URL(request.url).pathname)
  );
  using _ = client;
  assert.equal(complete(await client.request("GET", "/a")).body, "/a");
  assert.equal(complete(await client.request("GET", "/b")).body, "/b");
  await http.shutdown();
  await http.finished;
  assert.equal(await client.request("GET", "/c"), "closed");
});

Deno.test("shutdown() during a request lets its answer out, then closes the connection", async () => {
  const { promise: arrived, resolve: arrive } = Promise.withResolvers<void>();
  const { promise: release, resolve: answer } = Promise.withResolvers<void>();
  const { http, client } = await oneConnection(async () => {
    arrive();
    await release;
    return new Response("late");
  });
  using _ = client;
  const pending = client.request("GET", "/");
  await arrived;
  const shutdown = http.shutdown();
  answer();
  assert.equal(complete(await pending).body, "late");
  await shutdown;
  await http.finished;
});

Deno.test("the abort signal closes a connection at once; completed settles when an answer is out", async () => {
  const controller = new AbortController();
  let completed: Promise<void> | undefined;
  const { http, client } = await oneConnection((_, info) => {
    completed = info.completed;
    return new Response("x".repeat(100_000));
  }, controller.signal);
  using _ = client;
  assert.equal(complete(await client.request("GET", "/")).body.length, 100_000);
  await completed;
  controller.abort();
  await http.finished;
  assert.equal(await client.request("GET", "/"), "closed");
});

Deno.test("a connection that sent half a request head stays open until aborted", async () => {
  const controller = new AbortController();
  using listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  using client = await Deno.connect({ hostname: "127.0.0.1", port: listener.addr.port });
  const http = serve(await listener.accept(), controller.signal, () => new Response(), onError);
  await client.write(new TextEncoder().encode("GET / HTTP/1.1\r\nhost: x\r\n"));
  assert.equal((await readUntilClosed(client, 300)).end, "open");
  controller.abort();
  await http.finished;
  assert.notEqual((await readUntilClosed(client, 1000)).end, "open");
});
