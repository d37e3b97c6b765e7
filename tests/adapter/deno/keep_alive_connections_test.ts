import assert from "node:assert/strict";
import { KeepAliveConnections } from "../../../adapter/deno/keep_alive_connections.ts";

Deno.test("KeepAliveConnections is settled only when nothing is in flight and no connection may send", () => {
  const connections = new KeepAliveConnections();
  assert.equal(connections.settled(0, 1000), true);
  connections.begin("a:1");
  connections.begin("b:2");
  assert.equal(connections.settled(0, 1000), false, "two requests in flight");
  connections.end("a:1", 10, true);
  assert.equal(connections.known("a:1"), false, "told to close: forgotten");
  connections.end("b:2", 20, false);
  assert.equal(connections.known("b:2"), true, "keep-alive: may send again");
  assert.equal(connections.settled(500, 1000), false, "b:2 idle for 480 ms only");
  assert.equal(connections.settled(1020, 1000), true, "b:2 idle for 1 s: abandoned");
  assert.equal(connections.known("b:2"), false);
});

Deno.test("KeepAliveConnections keeps a connection with two requests in flight until both end", () => {
  const connections = new KeepAliveConnections();
  connections.begin("a:1");
  connections.begin("a:1");
  connections.end("a:1", 0, true);
  assert.equal(connections.known("a:1"), true);
  assert.equal(connections.inFlight, 1);
  connections.end("a:1", 0, true);
  assert.equal(connections.known("a:1"), false);
  assert.equal(connections.inFlight, 0);
});

Deno.test("KeepAliveConnections forgets long-idle connections as it grows", () => {
  const connections = new KeepAliveConnections();
  for (let i = 0; i < 5000; i++) {
    connections.begin(`c:${i}`);
    connections.end(`c:${i}`, i, false, 100);
  }
  assert.equal(connections.known("c:0"), false, "idle for far longer than 100 ms");
  assert.equal(connections.known("c:4999"), true);
});
