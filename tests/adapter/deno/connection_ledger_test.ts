import assert from "node:assert/strict";
import { ConnectionLedger } from "../../../adapter/deno/connection_ledger.ts";

Deno.test("ConnectionLedger is settled only when nothing is in flight and no connection may send", () => {
  const ledger = new ConnectionLedger();
  assert.equal(ledger.settled(0, 1000), true);
  ledger.begin("a:1");
  ledger.begin("b:2");
  assert.equal(ledger.settled(0, 1000), false, "two requests in flight");
  ledger.end("a:1", 10, true);
  assert.equal(ledger.known("a:1"), false, "told to close: forgotten");
  ledger.end("b:2", 20, false);
  assert.equal(ledger.known("b:2"), true, "keep-alive: may send again");
  assert.equal(ledger.settled(500, 1000), false, "b:2 idle for 480 ms only");
  assert.equal(ledger.settled(1020, 1000), true, "b:2 idle for 1 s: abandoned");
  assert.equal(ledger.known("b:2"), false);
});

Deno.test("ConnectionLedger keeps a connection with two requests in flight until both end", () => {
  const ledger = new ConnectionLedger();
  ledger.begin("a:1");
  ledger.begin("a:1");
  ledger.end("a:1", 0, true);
  assert.equal(ledger.known("a:1"), true);
  assert.equal(ledger.inFlight, 1);
  ledger.end("a:1", 0, true);
  assert.equal(ledger.known("a:1"), false);
  assert.equal(ledger.inFlight, 0);
});

Deno.test("ConnectionLedger forgets long-idle connections as it grows", () => {
  const ledger = new ConnectionLedger();
  for (let i = 0; i < 5000; i++) {
    ledger.begin(`c:${i}`);
    ledger.end(`c:${i}`, i, false, 100);
  }
  assert.equal(ledger.known("c:0"), false, "idle for far longer than 100 ms");
  assert.equal(ledger.known("c:4999"), true);
});
