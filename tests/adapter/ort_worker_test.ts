/**
 * Tests of the ORT worker (`core/ort_worker/`, started by `adapter/deno/ort.ts`'s
 * `loadWorkerOrt`): real sessions in a real module worker give the numbers of in-process ORT,
 * errors come back with ORT's own message, and releasing a session ends its worker.
 *
 * @module
 */

import { WebWorker } from "./web_worker.ts";
import assert from "node:assert/strict";
import { compileModel } from "../../core/compile/mod.ts";
import { type InputRow, ModelSession, type OrtModule } from "../../core/runtime.ts";
import { type WorkerHandle, workerOrt } from "../../core/ort_worker/worker_ort.ts";
import { loadWorkerOrt } from "../../adapter/deno/ort.ts";
import { assertRejectsWith, exampleModel, EXAMPLES, ORT, random } from "../core/fixtures.ts";

const WORKER_ENTRY = new URL("../../adapter/deno/ort_worker.ts", import.meta.url);

/** Worker ORT whose workers are recorded, to check that they are terminated. */
function spiedWorkerOrt(): { ort: OrtModule; terminated: () => number; spawned: () => number } {
  let spawned = 0;
  let terminated = 0;
  const ort = workerOrt(() => {
    const worker = new WebWorker(WORKER_ENTRY, { type: "module" });
    spawned++;
    const terminate = worker.terminate.bind(worker);
    worker.terminate = () => {
      terminated++;
      terminate();
    };
    return worker;
  });
  return { ort, terminated: () => terminated, spawned: () => spawned };
}

function randomRows(places: readonly string[], transitions: readonly string[], seed: number) {
  const next = random(seed);
  return Array.from({ length: 23 }, (): InputRow => ({
    marking: new Map(places.filter(() => next() < 0.6).map((p) => [p, next()])),
    values: new Map(places.filter(() => next() < 0.5).map((p) => [p, next() * 2000])),
    target: new Map(transitions.map((t) => [t, next() < 0.5 ? 1 : 0])),
  }));
}

Deno.test("loadWorkerOrt() sessions give the numbers of in-process ORT, forward and gradient", async (t) => {
  const workerModule = await loadWorkerOrt();
  for (const name of EXAMPLES) {
    const model = await exampleModel(name);
    const { bytes } = compileModel(model);
    await using local = await ModelSession.create(ORT, bytes, model.net);
    await using remote = await ModelSession.create(workerModule, bytes, model.net);
    const rows = randomRows(model.net.places, model.net.transitions, 5);
    for (const withGradient of [false, true]) {
      await t.step(`${name}, withGradient ${withGradient}`, async () => {
        const expected = await local.run(rows, { withGradient });
        const actual = await remote.run(rows, { withGradient });
        assert.deepEqual(actual.length, rows.length);
        actual.forEach((row, i) => {
          const want = expected[i]!;
          assert.deepEqual([...row.transitions], [...want.transitions], `row ${i} transitions`);
          assert.deepEqual([...row.places], [...want.places], `row ${i} places`);
          assert.deepEqual(
            row.gradMarking && [...row.gradMarking],
            want.gradMarking && [
              ...want.gradMarking,
            ],
          );
          assert.deepEqual(
            row.gradValues && [...row.gradValues],
            want.gradValues && [
              ...want.gradValues,
            ],
          );
        });
        assert.deepEqual(actual[0]!.gradMarking !== undefined, withGradient);
      });
    }
  }
});

Deno.test("A worker ORT run leaves the caller's input arrays intact", async () => {
  const model = await exampleModel("rest_serving");
  await using session = await ModelSession.create(
    await loadWorkerOrt(),
    compileModel(model).bytes,
    model.net,
  );
  const packed = session.pack([{ marking: new Map([[model.net.places[0]!, 0.75]]) }]);
  const before = [...packed.marking];
  const out = await session.runPacked(packed, { withGradient: false });
  assert.deepEqual([...packed.marking], before);
  assert.deepEqual(out.transitions.length, model.net.transitions.length);
});

Deno.test("A worker ORT session rejects a failing run with ORT's own message and keeps serving", async () => {
  const model = await exampleModel("rest_serving");
  const { bytes } = compileModel(model);
  const P = model.net.places.length;
  const badFeeds = (ort: OrtModule) => ({
    marking: new ort.Tensor("float32", new Float32Array(P + 1), [1, P + 1]),
  });
  const local = await ORT.InferenceSession.create(bytes);
  const expected = await local.run(badFeeds(ORT)).then(
    () => assert.fail("the in-process run should fail"),
    (error: Error) => error.message,
  );
  await local.release();
  const workerModule = await loadWorkerOrt();
  const remote = await workerModule.InferenceSession.create(bytes);
  try {
    const error = await assertRejectsWith(() => remote.run(badFeeds(workerModule)), Error, "");
    assert.deepEqual(error.message, expected);
    await using session = await ModelSession.create(workerModule, bytes, model.net);
    const [row] = await session.run([{ marking: new Map() }], { withGradient: false });
    assert.deepEqual(row!.transitions.length, model.net.transitions.length);
  } finally {
    await remote.release();
  }
});

Deno.test("A worker ORT create rejects bytes that are not a model with ORT's own message", async () => {
  const junk = new TextEncoder().encode("not an onnx model");
  const expected = await ORT.InferenceSession.create(junk).then(
    () => assert.fail("the in-process create should fail"),
    (error: Error) => error.message,
  );
  const spied = spiedWorkerOrt();
  const error = await assertRejectsWith(
    () => spied.ort.InferenceSession.create(junk),
    Error,
    "",
  );
  assert.deepEqual(error.message, expected);
  assert.deepEqual(spied.terminated(), 1, "a failed create ends its worker");
});

Deno.test("Releasing a worker ORT session terminates its worker and fails later runs", async () => {
  const model = await exampleModel("rest_serving");
  const spied = spiedWorkerOrt();
  const session = await spied.ort.InferenceSession.create(compileModel(model).bytes);
  assert.deepEqual([spied.spawned(), spied.terminated()], [1, 0]);
  await session.release();
  assert.deepEqual(spied.terminated(), 1);
  await assertRejectsWith(() => session.run({}), Error, "its session has been released");
  await session.release();
  assert.deepEqual(spied.terminated(), 1, "a second release is a no-op");
});

Deno.test("A worker that dies while loading fails the create with its error", async () => {
  const ort = workerOrt(() =>
    new WebWorker(new URL(`data:text/javascript,throw new Error("no ORT here")`), {
      type: "module",
    }) as WorkerHandle
  );
  const error = await assertRejectsWith(
    () => ort.InferenceSession.create(new Uint8Array(4)),
    Error,
    "no ORT here",
  );
  assert.match(error.message, /^The ORT worker failed: /);
});
