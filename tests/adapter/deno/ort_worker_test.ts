/**
 * Tests of the ORT worker (`core/runtime/worker/`, started by `adapter/deno/ort.ts`'s
 * `loadWorkerOrt`): real sessions in a real module worker give the numbers of in-process ORT,
 * errors come back with ORT's own message, and releasing a session ends its worker.
 *
 * @module
 */

import { WebWorker } from "./web_worker.ts";
import assert from "node:assert/strict";
import { compileModel } from "../../../core/compile/mod.ts";
import {
  IN_PLACE_MAX_ROWS,
  type InputRow,
  ModelSession,
  type OrtModule,
  packRows,
  type RunRecord,
} from "../../../core/runtime/mod.ts";
import { type WorkerHandle, workerOrt } from "../../../core/runtime/worker/mod.ts";
import { RunChannel } from "../../../core/runtime/worker/run_channel.ts";
import { loadWorkerOrt } from "../../../adapter/deno/ort.ts";
import { assertRejectsWith, exampleModel, EXAMPLES, ORT, random } from "../../core/fixtures.ts";

const WORKER_ENTRY = new URL("../../../adapter/deno/ort_worker.ts", import.meta.url);

/**
 * Worker ORT whose workers are recorded, to check that they are terminated, and whose posted
 * messages are recorded by `op`, to see which runs took the message path.
 */
function spiedWorkerOrt(): {
  ort: OrtModule;
  terminated: () => number;
  spawned: () => number;
  posted: string[];
} {
  let spawned = 0;
  let terminated = 0;
  const posted: string[] = [];
  const ort = workerOrt(() => {
    const worker = new WebWorker(WORKER_ENTRY, { type: "module" });
    spawned++;
    const post = worker.postMessage.bind(worker) as (m: unknown, t: Transferable[]) => void;
    worker.postMessage = (message: { op: string }, transfer?: unknown) => {
      posted.push(message.op);
      post(message, transfer as Transferable[]);
    };
    const terminate = worker.terminate.bind(worker);
    worker.terminate = () => {
      terminated++;
      terminate();
    };
    return worker;
  });
  return { ort, terminated: () => terminated, spawned: () => spawned, posted };
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
  const packed = packRows(session, [{ marking: new Map([[model.net.places[0]!, 0.75]]) }]);
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

Deno.test("Worker runs go through the shared buffer, and runs too large for it through messages, with the same numbers", async () => {
  const model = await exampleModel("credit_approval_coloured");
  const { bytes } = compileModel(model);
  const { places, transitions } = model.net;
  const spied = spiedWorkerOrt();
  await using remote = await ModelSession.create(spied.ort, bytes, model.net);
  await using local = await ModelSession.create(ORT, bytes, model.net);
  assert.deepEqual(spied.posted, ["create", "channel"]);
  const small = randomRows(places, transitions, 11);
  // Feeds over half of the 4 MiB buffer: 2^20 / 2 words / (4 P + T) words a row.
  const largeCount = Math.ceil((1 << 19) / (4 * places.length + transitions.length)) + 1;
  const large = Array.from({ length: largeCount }, (_, i) => small[i % small.length]!);
  for (const [rows, messages] of [[small, 0], [large, 1], [small, 0]] as const) {
    for (const withGradient of [false, true]) {
      const before = spied.posted.length;
      const actual = await remote.run(rows, { withGradient });
      const expected = await local.run(rows, { withGradient });
      assert.deepEqual(
        spied.posted.slice(before),
        Array(messages).fill("run"),
        `${rows.length} rows: runs posted as messages`,
      );
      const flat = (out: typeof actual) =>
        out.flatMap((row) => [
          ...row.transitions,
          ...row.places,
          ...(row.gradMarking ?? []),
          ...(row.gradValues ?? []),
          ...(row.placeValues ?? []),
        ]);
      assert.deepEqual(flat(actual), flat(expected), `${rows.length} rows, ${withGradient}`);
    }
  }
});

Deno.test("The shared run buffer carries feeds, outputs and errors, and refuses feeds over half its size", () => {
  const channel = new RunChannel(new SharedArrayBuffer(64 + 4 * 128));
  const feeds = {
    marking: { type: "float32" as const, data: new Float32Array([0.5, -1, 3e38]), dims: [1, 3] },
    with_gradient: { type: "bool" as const, data: [true], dims: [] },
    none: { type: "float32" as const, data: new Float32Array(0), dims: [0, 3] },
  };
  assert.ok(channel.writeFeeds(feeds));
  assert.deepEqual(channel.readFeeds(), feeds);
  // 128 data words: feeds may use 64 of them.
  const big = { x: { type: "float32" as const, data: new Float32Array(60), dims: [60] } };
  assert.equal(channel.writeFeeds(big), false);
  assert.ok(
    channel.writeOutputs({ transitions: new Float32Array([1, 2]), é: new Float32Array(20) }),
  );
  assert.deepEqual(channel.readOutputs(), {
    transitions: new Float32Array([1, 2]),
    é: new Float32Array(20),
  });
  assert.equal(channel.writeOutputs({ y: new Float32Array(130) }), false);
  channel.writeError("Got invalid dimensions for input: marking");
  assert.equal(channel.readError(), "Got invalid dimensions for input: marking");
});

Deno.test("with an in-place runtime, a lone small run stays on this thread and runs at load go to the worker, with the same numbers", async () => {
  const spied = spiedWorkerOrt();
  const model = await exampleModel(EXAMPLES[0]!);
  const { bytes } = compileModel(model);
  await using session = await ModelSession.create(spied.ort, bytes, model.net, { inPlace: ORT });
  await using reference = await ModelSession.create(ORT, bytes, model.net);
  const runs: RunRecord[] = [];
  session.observe((run) => runs.push(run));
  const rows = randomRows(model.net.places, model.net.transitions, 7);
  const lone = await session.run(rows.slice(0, 1), { withGradient: false });
  assert.deepEqual(runs.map((run) => run.inPlace), [true]);
  // Two requests in one tick: the first run is not alone, so it goes to the worker.
  const [a, b] = await Promise.all([
    session.run(rows.slice(0, 4), { withGradient: false }),
    session.run(rows.slice(4, 8), { withGradient: true }),
  ]);
  assert.deepEqual(runs.slice(1).map((run) => run.inPlace), [false]);
  // More rows than IN_PLACE_MAX_ROWS, alone: the worker too.
  await session.run(rows.concat(rows), { withGradient: false });
  assert.equal(runs.at(-1)!.inPlace, false);
  assert.ok(rows.length * 2 > IN_PLACE_MAX_ROWS);
  const expected = await reference.run(rows.slice(0, 8), { withGradient: true });
  assert.deepEqual([...lone[0]!.transitions], [...expected[0]!.transitions]);
  assert.deepEqual([...a[3]!.transitions], [...expected[3]!.transitions]);
  assert.deepEqual([...b[3]!.gradMarking!], [...expected[7]!.gradMarking!]);
});
