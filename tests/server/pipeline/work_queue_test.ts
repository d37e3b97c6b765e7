/**
 * The work queue of admission control (server/pipeline/work_queue.ts): one waiter per turn of the event
 * loop, with timers able to run between two of them; waiters that pass their deadline or whose
 * signal aborts leave the line (all of them once the cutoff aborts); the expected wait follows the
 * length of recent sections.
 *
 * @module
 */

import assert from "node:assert/strict";
import { WorkQueue } from "../../../server/pipeline/work_queue.ts";

function block(ms: number): void {
  const until = performance.now() + ms;
  while (performance.now() < until) { /* a heavy section */ }
}

Deno.test("the work queue lets one heavy section through per turn: a timer runs between two of them", async () => {
  const workQueue = new WorkQueue();
  const events: string[] = [];
  const sections = [1, 2, 3, 4].map(async (n) => {
    await workQueue.turn();
    events.push(`section ${n}`);
    block(15);
  });
  setTimeout(() => events.push("timer"), 0);
  await Promise.all(sections);
  const timer = events.indexOf("timer");
  assert.ok(timer > 0 && timer < 4, `a timer got in between: ${events.join(", ")}`);
});

Deno.test("a waiter past its deadline or with an aborted signal leaves the line; the expected wait grows with the line", async () => {
  const workQueue = new WorkQueue();
  const through: string[] = [];
  const heavy = Array.from({ length: 4 }, async (_, i) => {
    await workQueue.turn();
    through.push(`heavy ${i}`);
    block(20);
  });
  await new Promise((resolve) => setTimeout(resolve, 0));
  const aborted = new AbortController();
  const late = workQueue.turnBefore(performance.now() + 5);
  const gone = workQueue.turnBefore(performance.now() + 60_000, aborted.signal);
  aborted.abort();
  await Promise.all(heavy);
  assert.equal(await late, false);
  assert.equal(await gone, false);
  assert.deepEqual(through, ["heavy 0", "heavy 1", "heavy 2", "heavy 3"]);

  const more = Array.from({ length: 3 }, () => workQueue.turn().then(() => block(20)));
  await new Promise((resolve) => setTimeout(resolve, 0));
  await new Promise((resolve) => setTimeout(resolve, 0));
  assert.ok(workQueue.expectedWaitMs >= 20, `expected ${workQueue.expectedWaitMs} ms`);
  await Promise.all(more);
  assert.equal(workQueue.waiting, 0);
  assert.equal(workQueue.expectedWaitMs, 0);
});

Deno.test("once the queue's cutoff aborts, waiters with a deadline leave the line and plain turns go on", async () => {
  const cutoff = new AbortController();
  const workQueue = new WorkQueue(cutoff.signal);
  const parse = workQueue.turnBefore(performance.now() + 60_000);
  const answer = workQueue.turn();
  cutoff.abort();
  assert.equal(await parse, false);
  await answer;
  assert.equal(workQueue.waiting, 0);
});
