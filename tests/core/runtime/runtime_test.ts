import assert from "node:assert/strict";
import { compileModel } from "../../../core/compile/mod.ts";
import type { PetriModel } from "../../../core/net/types.ts";
import {
  type InputRow,
  ModelSession,
  type OutputRow,
  packRows,
  type RunRecord,
} from "../../../core/runtime/mod.ts";
import { assertRejectsWith, exampleModel, EXAMPLES, ORT, random } from "../fixtures.ts";
import { fakeOrt, settle } from "../fake_ort.ts";

/** Random rows over a net: some places supplied, some values, a random target. */
function randomRows(model: PetriModel, count: number, seed: number): InputRow[] {
  const next = random(seed);
  const { places, transitions } = model.net;
  return Array.from({ length: count }, () => ({
    marking: new Map(places.filter(() => next() < 0.6).map((p) => [p, next()])),
    values: new Map(places.filter(() => next() < 0.5).map((p) => [p, next() * 2000])),
    target: new Map(transitions.map((t) => [t, next() < 0.5 ? 1 : 0])),
  }));
}

function assertSameRows(actual: OutputRow[], expected: OutputRow[]): void {
  assert.deepEqual(actual.length, expected.length);
  actual.forEach((row, i) => {
    const want = expected[i]!;
    assert.deepEqual([...row.transitions], [...want.transitions], `row ${i} transitions`);
    assert.deepEqual([...row.places], [...want.places], `row ${i} places`);
    assert.deepEqual(
      row.placeValues && [...row.placeValues],
      want.placeValues && [...want.placeValues],
    );
    assert.deepEqual(
      row.gradMarking && [...row.gradMarking],
      want.gradMarking && [...want.gradMarking],
    );
    assert.deepEqual(
      row.gradValues && [...row.gradValues],
      want.gradValues && [...want.gradValues],
    );
  });
}

async function openExample(name: typeof EXAMPLES[number]) {
  const model = await exampleModel(name);
  const session = await ModelSession.create(ORT, compileModel(model).bytes, model.net);
  return { model, session };
}

Deno.test("ModelSession.run() packs N rows into one ORT call with the numbers of N single runs", async (t) => {
  for (const name of EXAMPLES) {
    for (const withGradient of [false, true]) {
      await t.step(`${name}, withGradient ${withGradient}`, async () => {
        const { model, session } = await openExample(name);
        await using _ = session;
        const rows = randomRows(model, 17, 7);
        const before = session.runCount;
        const batched = await session.run(rows, { withGradient });
        assert.deepEqual(session.runCount - before, 1);
        const singles: OutputRow[] = [];
        for (const row of rows) singles.push(...await session.run([row], { withGradient }));
        assertSameRows(batched, singles);
        const P = model.net.places.length;
        assert.deepEqual(batched[0]!.transitions.length, model.net.transitions.length);
        assert.deepEqual(batched[0]!.places.length, P);
        assert.deepEqual(batched[0]!.placeValues?.length, withGradient ? P : undefined);
        assert.deepEqual(batched[0]!.gradMarking?.length, withGradient ? P : undefined);
        assert.deepEqual(batched[0]!.gradValues?.length, withGradient ? P : undefined);
      });
    }
  }
});

Deno.test("ModelSession.run() coalesces concurrent calls into batched runs with unchanged results", async () => {
  const { model, session } = await openExample("credit_approval_coloured");
  await using _ = session;
  const rows = randomRows(model, 24, 11);
  const flags = rows.map((_, i) => i % 3 === 0);
  const expected: OutputRow[] = [];
  for (const [i, row] of rows.entries()) {
    expected.push(...await session.run([row], { withGradient: flags[i]! }));
  }
  const before = session.runCount;
  const results = await Promise.all(
    rows.map((row, i) => session.run([row], { withGradient: flags[i]! })),
  );
  assert.deepEqual(session.runCount - before, 1, "one run, forward rows in the gradient run");
  assertSameRows(results.flat(), expected);
});

Deno.test("ModelSession.run() rejects ids that are not in the net, naming them", async () => {
  const { session } = await openExample("rest_serving");
  await using _ = session;
  await assertRejectsWith(
    () => session.run([{ marking: new Map([["p_nope", 1]]) }], { withGradient: false }),
    Error,
    "row 0 marking names 'p_nope', which is not a place of the net",
  );
  await assertRejectsWith(
    () =>
      session.run([{ marking: new Map(), values: new Map([["t_x", 1]]) }], {
        withGradient: false,
      }),
    Error,
    "values names 't_x'",
  );
  await assertRejectsWith(
    () =>
      session.run([{ marking: new Map(), target: new Map([["p_application", 1]]) }], {
        withGradient: true,
      }),
    Error,
    "target names 'p_application', which is not a transition of the net",
  );
});

Deno.test("ModelSession.runPacked() checks array lengths and runs nothing for an empty batch", async () => {
  const { session } = await openExample("rest_serving");
  await using _ = session;
  const before = session.runCount;
  assert.deepEqual(await session.run([], { withGradient: true }), []);
  assert.deepEqual(session.runCount, before);
  const P = session.places.length;
  const T = session.transitions.length;
  await assertRejectsWith(
    () =>
      session.runPacked({
        batch: 2,
        marking: new Float32Array(2 * P),
        markingMask: new Float32Array(2 * P),
        values: new Float32Array(P),
        valuesMask: new Float32Array(2 * P),
        target: new Float32Array(2 * T),
      }, { withGradient: false }),
    Error,
    `values holds ${P} numbers, expected 2 × ${P}`,
  );
  const packed = packRows(session, [{ marking: new Map([[session.places[0]!, 0.25]]) }]);
  const out = await session.runPacked(packed, { withGradient: false });
  assert.deepEqual(out.batch, 1);
  assert.deepEqual(out.transitions.length, T);
  assert.deepEqual(out.gradMarking, undefined);
});

Deno.test("ModelSession[Symbol.asyncDispose]() finishes queued runs, then rejects new ones", async () => {
  const { session } = await openExample("rest_serving");
  const pending = session.run([{ marking: new Map() }], { withGradient: true });
  await session[Symbol.asyncDispose]();
  assert.deepEqual((await pending).length, 1);
  await assertRejectsWith(
    () => session.run([{ marking: new Map() }], { withGradient: false }),
    Error,
    "released",
  );
  await session[Symbol.asyncDispose](); // a second dispose is a no-op
});

Deno.test("ModelSession queues requests that arrive during a run and runs them all next, forward rows in the gradient run", async () => {
  const fake = fakeOrt();
  const creating = ModelSession.create(fake.ort, new Uint8Array(), {
    places: ["a", "b"],
    transitions: ["t"],
  });
  await settle();
  assert.deepEqual(fake.runs.length, 1, "the warm-up run");
  fake.runs[0]!.finish();
  const session = await creating;

  const row = (a: number): InputRow => ({ marking: new Map([["a", a], ["b", 10]]) });
  const first = session.run([row(1)], { withGradient: false });
  await settle();
  assert.deepEqual(fake.runs.length, 2, "the first request runs at once");
  // Arriving while the first run is in flight: queued, then all in the next run.
  const second = session.run([row(2), row(3)], { withGradient: false });
  const third = session.run([row(4)], { withGradient: true });
  const fourth = session.run([row(5)], { withGradient: false });
  await settle();
  assert.deepEqual(fake.runs.length, 2, "no run starts while one is in flight");

  assert.deepEqual(session.queue.queuedRows, 4);
  fake.runs[1]!.finish();
  await settle();
  assert.deepEqual(fake.runs.length, 3);
  assert.deepEqual(session.queue.queuedRows, 0);
  assert.deepEqual(fake.runs[2]!.batch, 4, "second, third and fourth share one run");
  assert.deepEqual(fake.runs[2]!.withGradient, true, "with gradients, for the third");
  fake.runs[2]!.finish();

  const results = await Promise.all([first, second, third, fourth]);
  assert.deepEqual(results.map((rows) => rows.map((r) => r.transitions[0])), [
    [11],
    [12, 13],
    [14],
    [
      15,
    ],
  ]);
  assert.deepEqual([...results[1]![1]!.places], [3, 10]);
  assert.deepEqual(results[1]![0]!.gradMarking, undefined, "forward rows get no gradients");
  assert.deepEqual(results[3]![0]!.gradValues, undefined);
  assert.deepEqual([...results[2]![0]!.gradMarking!], [1, 1]);

  const disposing = session[Symbol.asyncDispose]();
  await disposing;
  assert.deepEqual(fake.released(), 1);
  assert.equal(fake.runs.length, 3);
});

Deno.test("ModelSession.observe() reports every run and queuedRows counts rows waiting", async () => {
  const { model, session } = await openExample("rest_serving");
  await using _ = session;
  const runs: RunRecord[] = [];
  const stop = session.observe((run) => runs.push(run));
  const rows = randomRows(model, 3, 2);
  const first = session.run(rows, { withGradient: true });
  const second = session.run(rows.slice(0, 2), { withGradient: false });
  assert.deepEqual(session.queue.queuedRows, 5);
  await Promise.all([first, second]);
  assert.deepEqual(session.queue.queuedRows, 0);
  assert.deepEqual(runs.reduce((sum, run) => sum + run.rows, 0), 5, "every row in some run");
  await session.run(rows, { withGradient: true });
  assert.deepEqual(
    { rows: runs.at(-1)!.rows, withGradient: runs.at(-1)!.withGradient },
    { rows: 3, withGradient: true },
  );
  assert.ok(runs.every((run) => run.seconds >= 0 && run.seconds < 60));
  const count = runs.length;
  stop();
  await session.run(rows, { withGradient: false });
  assert.deepEqual(runs.length, count, "a stopped observer hears nothing");
});

Deno.test("ModelSession takes queued requests in order up to maxBatchRows a run", async () => {
  const fake = fakeOrt();
  const creating = ModelSession.create(fake.ort, new Uint8Array(), {
    places: ["a"],
    transitions: ["t"],
  }, { maxBatchRows: 4 });
  await settle();
  fake.runs[0]!.finish();
  await using session = await creating;
  const rows = (n: number) => Array.from({ length: n }, () => ({ marking: new Map() }));
  const first = session.run(rows(1), { withGradient: false });
  await settle();
  const queued = [3, 2, 2, 6, 1].map((n) => session.run(rows(n), { withGradient: false }));
  assert.deepEqual(session.queue.queuedRows, 14);
  const batches: number[] = [];
  for (let i = 1; i <= 5; i++) {
    fake.runs[i]!.finish();
    await settle();
    if (fake.runs[i + 1]) batches.push(fake.runs[i + 1]!.batch);
  }
  assert.deepEqual(batches, [3, 4, 6, 1], "3 | 2+2 | 6 (alone, though over the limit) | 1");
  assert.deepEqual((await Promise.all(queued)).map((r) => r.length), [3, 2, 2, 6, 1]);
  await first;
});

Deno.test("Scheduler.cancelAdmitted() refuses admitted rows, queued or in a run, and keeps the others", async () => {
  const fake = fakeOrt();
  const creating = ModelSession.create(fake.ort, new Uint8Array(), {
    places: ["a"],
    transitions: ["t"],
  });
  await settle();
  fake.runs[0]!.finish();
  await using session = await creating;
  const rows = (n: number) => Array.from({ length: n }, () => ({ marking: new Map() }));
  const running = session.run(rows(1), { withGradient: false, admitted: true });
  await settle();
  const admitted = session.run(rows(2), { withGradient: false, admitted: true });
  const other = session.run(rows(3), { withGradient: false });
  assert.equal(session.queue.queuedRows, 5);
  session.queue.cancelAdmitted("drain");
  for (const refused of [running, admitted]) {
    await assert.rejects(refused, (error: Error) => {
      assert.equal(error.name, "RunCancelledError");
      assert.equal((error as Error & { cause: unknown }).cause, "drain");
      return true;
    });
  }
  assert.equal(session.queue.queuedRows, 3, "the other request's rows stay queued");
  fake.runs[1]!.finish();
  await settle();
  assert.equal(fake.runs[2]!.batch, 3);
  fake.runs[2]!.finish();
  assert.equal((await other).length, 3);
});

Deno.test("ModelSession with maxQueueDelayMs waits for more rows, until the queue is full or it is released", async () => {
  const fake = fakeOrt();
  const creating = ModelSession.create(fake.ort, new Uint8Array(), {
    places: ["a"],
    transitions: ["t"],
  }, { maxBatchRows: 3, maxQueueDelayMs: 60_000 });
  await settle();
  fake.runs[0]!.finish();
  const session = await creating;
  const row = { marking: new Map([["a", 1]]) };
  const first = session.run([row], { withGradient: false });
  await settle();
  assert.deepEqual(fake.runs.length, 1, "the lone request waits for company");
  const second = session.run([row, row], { withGradient: true });
  await settle();
  assert.deepEqual(fake.runs.length, 2, "a full queue starts the run at once");
  assert.deepEqual(fake.runs[1]!.batch, 3);
  fake.runs[1]!.finish();
  assert.deepEqual((await first)[0]!.transitions[0], 1);
  assert.deepEqual((await second).length, 2);

  const third = session.run([row], { withGradient: false });
  await settle();
  assert.deepEqual(fake.runs.length, 2);
  const disposing = session[Symbol.asyncDispose]();
  await settle();
  assert.deepEqual(fake.runs.length, 3, "releasing ends the wait");
  fake.runs[2]!.finish();
  await disposing;
  assert.deepEqual((await third).length, 1);
});

Deno.test("ModelSession batches requests made within one event-loop turn, and starts the next run before the last one's requests are answered", async () => {
  const fake = fakeOrt();
  const creating = ModelSession.create(fake.ort, new Uint8Array(), {
    places: ["a", "b"],
    transitions: ["t"],
  });
  await settle();
  fake.runs[0]!.finish();
  const session = await creating;
  const row = (a: number): InputRow => ({ marking: new Map([["a", a]]) });

  // Requests a few microtasks apart (a body read, a parse) still share the first run.
  const first = session.run([row(1)], { withGradient: false });
  for (let i = 0; i < 10; i++) await Promise.resolve();
  const second = session.run([row(2)], { withGradient: false });
  await settle();
  assert.equal(fake.runs.length, 2);
  assert.equal(fake.runs[1]!.batch, 2, "one run for both");

  // A request queued during that run goes out as soon as the run ends, before the finished
  // run's callers resume: the next run does not wait for their answers to be written.
  const third = session.run([row(3)], { withGradient: false });
  let runsWhenAnswered = -1;
  const answered = Promise.all([first, second]).then(() => runsWhenAnswered = fake.runs.length);
  await settle();
  fake.runs[1]!.finish();
  await answered;
  assert.equal(runsWhenAnswered, 3, "the third request's run had started");
  fake.runs[2]!.finish();
  assert.deepEqual((await third).map((r) => r.transitions[0]), [3]);
  await session[Symbol.asyncDispose]();
});

Deno.test("ModelSession.create() opens the worker's and the in-place session together, and releases one when the other fails", async () => {
  const remote = fakeOrt();
  const here = fakeOrt();
  here.failCreates(1);
  await assert.rejects(
    ModelSession.create(remote.ort, new Uint8Array(), { places: ["a"], transitions: ["t"] }, {
      inPlace: here.ort,
    }),
    /cannot create/,
  );
  assert.equal(remote.created(), 1);
  assert.equal(remote.released(), 1, "the session that opened is let go");
  assert.equal(remote.runs.length, 0, "nothing warmed before both had opened");

  const creating = ModelSession.create(remote.ort, new Uint8Array(), {
    places: ["a"],
    transitions: ["t"],
  }, { inPlace: here.ort });
  await settle();
  assert.equal(remote.created(), 2);
  assert.equal(here.created(), 1, "both opened before either warmed");
  remote.runs[0]!.finish();
  await settle();
  here.runs[0]!.finish();
  await using _session = await creating;
});
