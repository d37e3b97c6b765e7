/**
 * The bounds and the healing of `ModelSession`'s queue (core/runtime/,
 * core/runtime/healing.ts), on a fake ORT whose runs end when the test says: rows past
 * `maxQueueRows` and rows older than `queueTimeoutMs` are refused with `ModelBusyError`,
 * withdrawn rows never run, a failed run is answered `model_unavailable` while the session is
 * reopened, and too many failures in a row give up.
 *
 * @module
 */

import assert from "node:assert/strict";
import { type InputRow, ModelSession, type RunRecord } from "../../../core/runtime/mod.ts";
import type { HealthEvent } from "../../../core/runtime/mod.ts";
import { ModelBusyError, RunCancelledError } from "../../../core/runtime/mod.ts";
import { fakeOrt, settle } from "../fake_ort.ts";

const row = (a: number): InputRow => ({ marking: new Map([["a", a]]) });
const rows = (n: number) => Array.from({ length: n }, (_, i) => row(i));
const forward = { withGradient: false };

/** A session on the fake, its warm-up run finished. */
async function open(options: Parameters<typeof ModelSession.create>[3] = {}) {
  const fake = fakeOrt();
  const creating = ModelSession.create(fake.ort, new Uint8Array(), {
    places: ["a", "b"],
    transitions: ["t"],
  }, options);
  await settle();
  fake.runs.shift()!.finish(); // the warm-up
  return { fake, session: await creating };
}

Deno.test("maxQueueRows refuses rows that would overfill the queue, but an empty queue takes any size", async () => {
  const { fake, session } = await open({ maxQueueRows: 5 });
  const big = session.run(rows(8), forward); // larger than the limit, alone: runs
  await settle();
  assert.equal(fake.runs.length, 1);
  const queued = session.run(rows(5), forward);
  await assert.rejects(session.run(rows(1), forward), (error) => {
    assert.ok(error instanceof ModelBusyError);
    assert.equal(error.reason, "queue_full");
    assert.equal(
      error.message,
      "The model's queue is full: 5 rows wait, 1 more would pass its limit of 5 rows",
    );
    return true;
  });
  fake.runs.shift()!.finish();
  assert.equal((await big).length, 8);
  await settle();
  fake.runs.shift()!.finish();
  assert.equal((await queued).length, 5);
  await session[Symbol.asyncDispose]();
});

Deno.test("rows that wait longer than queueTimeoutMs are refused and never run; the queue's wait is reported", async () => {
  const { fake, session } = await open({ queueTimeoutMs: 50 });
  const records: RunRecord[] = [];
  session.observe((record) => records.push(record));
  const first = session.run([row(1)], forward);
  await settle();
  const late = session.run([row(2)], forward);
  await assert.rejects(late, { name: "ModelBusyError", reason: "queue_timeout" });
  assert.equal(session.queue.queuedRows, 0);
  fake.runs.shift()!.finish();
  await first;
  await settle();
  assert.equal(fake.runs.length, 0, "the late rows never ran");
  assert.equal(records.length, 1);
  assert.equal(records[0]!.queueSeconds!.length, 1);
  // setLimits changes the bounds of later runs.
  session.queue.setLimits({ queueTimeoutMs: 60_000 });
  const next = session.run([row(3)], forward);
  await settle();
  fake.runs.shift()!.finish();
  assert.equal((await next).length, 1);
  assert.throws(() => session.queue.setLimits({ maxQueueRows: 0 }), RangeError);
  await session[Symbol.asyncDispose]();
});

Deno.test("a signal withdraws queued rows (never computed) and drops the results of rows in a run", async () => {
  const { fake, session } = await open();
  const running = new AbortController();
  const first = session.run([row(1)], { withGradient: false, signal: running.signal });
  await settle();
  const queued = new AbortController();
  const withdrawn = session.run([row(2), row(3)], { withGradient: false, signal: queued.signal });
  const kept = session.run([row(4)], forward);
  queued.abort("client gone");
  await assert.rejects(withdrawn, (error) => {
    assert.ok(error instanceof RunCancelledError);
    assert.equal(error.cause, "client gone");
    return true;
  });
  assert.equal(session.queue.queuedRows, 1);
  running.abort();
  await assert.rejects(first, RunCancelledError); // at once, while its run goes on
  fake.runs.shift()!.finish();
  await settle();
  assert.deepEqual(fake.runs.map((run) => run.batch), [1], "only the kept row runs next");
  fake.runs.shift()!.finish();
  assert.equal((await kept)[0]!.transitions[0], 4);
  await assert.rejects(
    session.run([row(5)], { withGradient: false, signal: AbortSignal.abort() }),
    RunCancelledError,
  );
  await session[Symbol.asyncDispose]();
});

Deno.test("a failed run is answered model_unavailable, the session is reopened, and the burst is reported once it ends", async () => {
  const { fake, session } = await open({ restartBackoffMs: 1 });
  const events: HealthEvent["kind"][] = [];
  session.onHealth((event) => events.push(event.kind));
  const failing = session.run([row(1)], forward);
  await settle();
  const queued = session.run([row(2)], forward);
  fake.runs.shift()!.fail(new Error("out of memory"));
  await assert.rejects(failing, (error) => {
    assert.ok(error instanceof ModelBusyError);
    assert.equal(error.reason, "model_unavailable");
    assert.match(error.message, /The model run failed \(out of memory\)/);
    return true;
  });
  await assert.rejects(queued, { reason: "model_unavailable" });
  assert.equal(session.state, "restarting");
  await assert.rejects(session.run([row(3)], forward), { reason: "model_unavailable" });
  await new Promise((resolve) => setTimeout(resolve, 20));
  fake.runs.shift()!.finish(); // the new session's warm-up
  await settle();
  assert.equal(session.state, "ready");
  assert.equal(session.restarts, 1);
  assert.equal(fake.released(), 1, "the broken session was released");
  const healed = session.run([row(4)], forward);
  await settle();
  fake.runs.shift()!.finish();
  assert.equal((await healed)[0]!.transitions[0], 4);
  assert.deepEqual(events, ["failed", "restarted", "healthy"]);
  await session[Symbol.asyncDispose]();
});

Deno.test("when the session cannot be reopened, maxRestartAttempts failures in a row give up for good", async () => {
  const { fake, session } = await open({ restartBackoffMs: 1, maxRestartAttempts: 3 });
  const events: HealthEvent[] = [];
  session.onHealth((event) => events.push(event));
  fake.failCreates(100);
  const failing = session.run([row(1)], forward);
  await settle();
  fake.runs.shift()!.fail(new Error("V(...) is not a function"));
  await assert.rejects(failing, { reason: "model_unavailable" });
  for (let i = 0; i < 100 && session.state !== "failed"; i++) {
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  assert.equal(session.state, "failed");
  assert.deepEqual(events.map((event) => event.kind), ["failed", "failed", "failed", "gave_up"]);
  const last = events.at(-1)!;
  assert.ok(last.kind === "gave_up" && last.failures === 3);
  await assert.rejects(session.run([row(2)], forward), (error) => {
    assert.ok(error instanceof ModelBusyError);
    assert.match(error.message, /could not be recreated \(cannot create\)/);
    return true;
  });
  await session[Symbol.asyncDispose]();
});

Deno.test("a run that outlasts runTimeoutMs counts as failed", async () => {
  const { fake, session } = await open({ runTimeoutMs: 30, restartBackoffMs: 1 });
  // The run's watchdog does not keep the event loop alive (a server's socket does): this does.
  const keepAlive = setInterval(() => {}, 10);
  const stuck = session.run([row(1)], forward);
  await assert.rejects(stuck, (error) => {
    assert.ok(error instanceof ModelBusyError);
    assert.match(error.message, /The run did not end within 30 ms/);
    return true;
  });
  await new Promise((resolve) => setTimeout(resolve, 20));
  fake.runs.at(-1)!.finish(); // the new session's warm-up
  await settle();
  assert.equal(session.state, "ready");
  fake.runs.shift()!.finish(); // the stuck run ends at last: nobody waits for it
  clearInterval(keepAlive);
  await session[Symbol.asyncDispose]();
});

Deno.test("the queue is taken in deadline order, and rows past their deadline are refused", async () => {
  const { fake, session } = await open({ maxBatchRows: 1 }); // one request a run
  const first = session.run([row(1)], forward);
  await settle();
  const now = performance.now();
  const newer = session.run([row(2)], { withGradient: false, deadline: now + 60_000 });
  const older = session.run([row(3)], { withGradient: false, deadline: now + 30_000 });
  const late = session.run([row(4)], { withGradient: false, deadline: now + 20 });
  await assert.rejects(late, (error) => {
    assert.ok(error instanceof ModelBusyError);
    assert.equal(error.reason, "queue_timeout");
    assert.match(error.message, /passed its deadline while its rows waited \d+ ms/);
    return true;
  });
  fake.runs.shift()!.finish();
  await first;
  await settle();
  // The request with the earlier deadline goes first, although it was queued later.
  assert.equal(fake.runs.length, 1);
  fake.runs.shift()!.finish();
  assert.equal((await Promise.race([older, newer]))[0]!.transitions[0], 3);
  await settle();
  fake.runs.shift()!.finish();
  assert.equal((await newer)[0]!.transitions[0], 2);
  await session[Symbol.asyncDispose]();
});
