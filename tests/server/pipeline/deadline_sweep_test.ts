/**
 * Tests of `server/deadline_sweep.ts`: deadlines expire in order, each once, cancelled ones
 * never, later ones re-arm the single timer, and an idle sweep leaves no timer behind (the op
 * sanitizer would report one).
 *
 * @module
 */

import assert from "node:assert/strict";
import { DeadlineSweep } from "../../../server/pipeline/deadline_sweep.ts";

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

Deno.test("DeadlineSweep expires deadlines in order, once each, and skips cancelled ones", async () => {
  const sweep = new DeadlineSweep(40);
  const expired: string[] = [];
  sweep.add(() => expired.push("a"));
  const cancelB = sweep.add(() => expired.push("b"));
  await sleep(20);
  // Added 20 ms later: due 20 ms after the first, so the timer must be armed again for it.
  sweep.add(() => expired.push("c"));
  cancelB();
  await sleep(35);
  assert.deepEqual(expired, ["a"]);
  await sleep(40);
  assert.deepEqual(expired, ["a", "c"]);
});

Deno.test("DeadlineSweep holds no timer once every deadline is cancelled", () => {
  const sweep = new DeadlineSweep(60_000);
  const cancels = Array.from({ length: 5 }, () => sweep.add(() => assert.fail("expired")));
  for (const cancel of cancels) cancel();
  // The test ends here: a pending 60 s timer would fail the op sanitizer.
});
