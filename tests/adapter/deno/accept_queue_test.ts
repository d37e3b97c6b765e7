/**
 * `acceptQueueLength` reads the kernel's accept queue of a listening socket, and
 * `ConnectionServer.closeListener` closes its socket only once that queue is empty: closing it
 * earlier would reset the queued connections, requests and all (behind nginx, a 502 for a POST).
 *
 * @module
 */

import assert from "node:assert/strict";
import { acceptQueueLength } from "../../../adapter/deno/accept_queue.ts";
import { ConnectionServer } from "../../../adapter/deno/connection_server.ts";
import { complete, RawConnection } from "../../cli/serve/raw_http.ts";

const LINUX = Deno.build.os === "linux";

/** Holds the thread (so nothing is accepted) until `count` connections are queued, 5 s at most. */
function holdUntilQueued(addr: Deno.NetAddr, count: number): number | undefined {
  const until = performance.now() + 5000;
  let queued = acceptQueueLength(addr);
  while (queued !== count && performance.now() < until) queued = acceptQueueLength(addr);
  return queued;
}

Deno.test({
  name: "acceptQueueLength counts connections the kernel completed and nobody accepted",
  ignore: !LINUX,
  async fn() {
    for (const hostname of ["127.0.0.1", "0.0.0.0", "::1"]) {
      let listener: Deno.TcpListener;
      try {
        listener = Deno.listen({ hostname, port: 0 });
      } catch (error) {
        if (hostname === "::1" && error instanceof Deno.errors.AddrNotAvailable) continue;
        throw error;
      }
      const connect = hostname === "::1" ? "::1" : "127.0.0.1";
      try {
        assert.equal(acceptQueueLength(listener.addr), 0, hostname);
        const clients = await Promise.all(
          [1, 2, 3].map(() => Deno.connect({ hostname: connect, port: listener.addr.port })),
        );
        assert.equal(acceptQueueLength(listener.addr), 3, hostname);
        const accepted = await listener.accept();
        assert.equal(acceptQueueLength(listener.addr), 2, hostname);
        accepted.close();
        for (const client of clients) client.close();
      } finally {
        listener.close();
      }
    }
  },
});

Deno.test("acceptQueueLength is undefined for a socket nobody listens on", () => {
  assert.equal(acceptQueueLength({ transport: "tcp", hostname: "127.0.0.1", port: 1 }), undefined);
});

Deno.test({
  name: "ConnectionServer.closeListener serves the connections queued when it is called",
  ignore: !LINUX,
  async fn() {
    const server = new ConnectionServer(
      { hostname: "127.0.0.1", port: 0, log: () => {} },
      () => Promise.resolve(new Response("ok")),
    );
    try {
      // Connecting starts now; the thread is held, so the server accepts none of them.
      const opening = [1, 2, 3].map(() => RawConnection.open(server.addr.port));
      assert.equal(holdUntilQueued(server.addr, 3), 3);
      await server.closeListener();
      assert.equal(server.listening, false);
      for (const connection of await Promise.all(opening)) {
        using open = connection;
        assert.equal(complete(await open.request("GET", "/")).status, 200);
      }
      await assert.rejects(RawConnection.open(server.addr.port), Deno.errors.ConnectionRefused);
    } finally {
      await server.close();
    }
  },
});
