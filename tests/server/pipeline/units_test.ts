/**
 * The functions and classes of `server/pipeline/` one at a time, each on the case its
 * documentation names.
 *
 * @module
 */

import assert from "node:assert/strict";
import { Admission, defaultMaxQueueRows } from "../../../server/pipeline/admission.ts";
import { clientSignalOf, RequestContext } from "../../../server/pipeline/context.ts";
import { allocateInputs, ModelBusyError } from "../../../core/runtime/mod.ts";
import { ORT } from "../../ort.ts";
import { readBundle } from "../../../adapter/deno/bundle_files.ts";
import { AdmissionQueue } from "../../../server/pipeline/admission_queue.ts";
import { NotJsonError, parseJsonBytes } from "../../../server/pipeline/body.ts";
import {
  buildInfoMetric,
  identityParameters,
  modelIdentity,
} from "../../../server/pipeline/model_identity.ts";
import { loadPackages, MissingPackageError } from "../../../server/pipeline/packages.ts";
import { PieceCount } from "../../../server/pipeline/piece_count.ts";
import { Readiness } from "../../../server/pipeline/readiness.ts";
import {
  checkRequestBody,
  checkResponseBytes,
  checkTraceEvents,
  defaultMaxResponseBytes,
  FLOAT32_JSON_BYTES,
  requestLimitNote,
  resolveRequestLimits,
} from "../../../server/pipeline/request_limits.ts";
import { WorkQueue } from "../../../server/pipeline/work_queue.ts";

Deno.test("admission.ts: defaultMaxQueueRows", () => {
  assert.equal(defaultMaxQueueRows(3, 2), 191739); // the example nets: three 60k-row infers
  assert.equal(defaultMaxQueueRows(5000, 3331), 1024);
});

Deno.test("admission.ts: admit", async () => {
  const cutoff = new AbortController();
  const admission = new Admission({
    maxBodyMemoryBytes: 1 << 20,
    maxBodyBytes: 1 << 20,
    cutoff: cutoff.signal,
  });
  cutoff.abort(); // the drain's deadline
  const context = new RequestContext(
    new Request("http://localhost/v2/models/m/infer", { method: "POST", body: "{}" }),
    false,
  );
  context.errorKey = "error";
  const refused = await admission.admit(context, () => Promise.resolve(new Response()));
  assert.equal(refused.status, 503);
  assert.equal(refused.headers.get("connection"), "close");
  assert.deepEqual(await refused.json(), { error: "The server is shutting down" });
});

Deno.test("admission.ts: the drain's deadline refuses admitted requests whose rows wait in the queue or come later", async () => {
  await using model = await readBundle(ORT, "examples/rest_serving");
  const cutoff = new AbortController();
  const admission = new Admission({
    maxBodyMemoryBytes: 1 << 20,
    maxBodyBytes: 1 << 20,
    model,
    queue: model.session.queue,
    cutoff: cutoff.signal,
  });
  const P = model.net.places.length;
  const T = model.net.transitions.length;
  const admitted = (before: Promise<void>) => {
    const context = new RequestContext(new Request("http://localhost/forward"), false);
    return admission.admit(context, async () => {
      context.bodyDone = true;
      await before;
      await context.runPacked(allocateInputs(1, P, T), { withGradient: false });
      return new Response("ran");
    });
  };
  const later = Promise.withResolvers<void>();
  const queued = admitted(Promise.resolve()); // its rows wait for the queue's next turn
  const late = admitted(later.promise); // its rows come after the deadline
  await new Promise((resolve) => queueMicrotask(() => resolve(undefined)));
  assert.equal(model.session.queue.queuedRows, 1);
  cutoff.abort();
  later.resolve();
  for (const refused of [queued, late]) {
    await assert.rejects(refused, {
      name: "HttpError",
      status: 503,
      message: "The server is shutting down",
    });
  }
  assert.equal(model.session.queue.queuedRows, 0);
});

Deno.test("admission.ts: run", async () => {
  await using model = await readBundle(ORT, "examples/rest_serving");
  const shed: string[] = [];
  const busy = Object.assign(Object.create(model), {
    runPacked: () => Promise.reject(new ModelBusyError("queue_full", "full")),
  });
  const admission = new Admission({
    maxBodyMemoryBytes: 1 << 20,
    maxBodyBytes: 1 << 20,
    model: busy,
    onRefused: (reason) => shed.push(reason),
  });
  const context = new RequestContext(new Request("http://localhost/forward"), false);
  context.model = busy;
  await assert.rejects(admission.run(context, allocateInputs(1, 3, 2), { withGradient: false }), {
    name: "HttpError",
    status: 503,
    headers: { "retry-after": "1" },
  });
  assert.deepEqual(shed, ["queue_full"]);
});

Deno.test("admission_queue.ts: wait", async () => {
  const line = new AdmissionQueue<number>(10);
  const gone = new AbortController();
  const waiting = line.wait(1, performance.now() + 60_000, gone.signal);
  gone.abort();
  assert.equal(await waiting, "gone");
  assert.equal(line.length, 0);
});

Deno.test("admission_queue.ts: pump", async () => {
  const line = new AdmissionQueue<string>(10);
  const late = line.wait("late", performance.now() - 1, new AbortController().signal);
  line.pump(() => false);
  assert.equal(await late, "expired");
});

Deno.test("admission_queue.ts: close", async () => {
  const line = new AdmissionQueue<number>(10);
  const waiting = line.wait(1, performance.now() + 60_000, new AbortController().signal);
  line.close();
  assert.equal(await waiting, "closed");
});

Deno.test("body.ts: NotJsonError", () => {
  assert.throws(() => parseJsonBytes(new Uint8Array([0xff])), {
    name: "NotJsonError",
    step: "utf-8",
  });
});

Deno.test("body.ts: parseJsonBytes", () => {
  assert.deepEqual(parseJsonBytes(new TextEncoder().encode('{"a": [1]}')), { a: [1] });
  assert.throws(() => parseJsonBytes(new TextEncoder().encode("NaN")), NotJsonError);
  // A byte-order mark is dropped; U+FFFD sent as such is text, a broken sequence is not UTF-8.
  const encoded = (text: string) => new TextEncoder().encode(text);
  assert.deepEqual(parseJsonBytes(new Uint8Array([0xef, 0xbb, 0xbf, ...encoded("[1]")])), [1]);
  assert.deepEqual(parseJsonBytes(encoded('["\uFFFD"]')), ["\uFFFD"]);
  assert.throws(
    () => parseJsonBytes(new Uint8Array([...encoded('["\uFFFD'), 0xc3, ...encoded('"]')])),
    {
      name: "NotJsonError",
      step: "utf-8",
    },
  );
});

Deno.test("context.ts: clientSignalOf", () => {
  const { signal } = new AbortController();
  assert.equal(clientSignalOf({ signal }), signal);
  assert.equal(clientSignalOf({ remoteAddr: {} }), undefined);
});

Deno.test("model_identity.ts: modelIdentity", () => {
  assert.equal(modelIdentity({ scenario_name: "loans" }, "loans").version, "1");
});

Deno.test("model_identity.ts: identityParameters", () => {
  const identity = { name: "m", version: "1", scenario: "loans", sha256: null, savedAt: null };
  assert.deepEqual(identityParameters(identity), { scenario: "loans" });
});

Deno.test("model_identity.ts: buildInfoMetric", () => {
  const identity = { name: "loans", version: "1", scenario: null, sha256: null, savedAt: null };
  assert.ok(
    buildInfoMetric("0.1.0", identity).endsWith(
      'petri_serve_build_info{version="0.1.0",model="loans",model_sha256=""} 1\n',
    ),
  );
});

Deno.test("packages.ts: MissingPackageError", () => {
  const error = new MissingPackageError("zod", new TypeError("Module not found"));
  assert.deepEqual(
    error.message,
    "Cannot create the app: the package 'zod' cannot be loaded (Module not found)",
  );
});

Deno.test("packages.ts: loadPackages", async () => {
  await assert.rejects(loadPackages({ zod: () => Promise.reject(new Error("gone")) }), {
    name: "MissingPackageError",
    packageName: "zod",
  });
});

Deno.test("readiness.ts: modelAvailable", async () => {
  const readiness = new Readiness();
  readiness.modelAvailable(false);
  assert.deepEqual(await readiness.response().json(), { status: "model_unavailable" });
  readiness.modelAvailable(true);
  assert.equal(readiness.ready, true);
});

Deno.test("readiness.ts: response", async () => {
  const readiness = new Readiness();
  assert.deepEqual(await readiness.response().json(), { status: "ready" });
  readiness.drain();
  const draining = readiness.response();
  assert.equal(draining.status, 503);
  assert.deepEqual(await draining.json(), { status: "draining" });
});

Deno.test("request_limits.ts: FLOAT32_JSON_BYTES", () => {
  const longest = Math.fround(-0.0000015212857533697388);
  assert.equal(JSON.stringify([longest, longest]).length, 2 * FLOAT32_JSON_BYTES + 1);
});

Deno.test("request_limits.ts: defaultMaxResponseBytes", () => {
  // The example: 3 places, 2 transitions.
  assert.equal(defaultMaxResponseBytes({ places: 3, transitions: 2 }), 64 << 20);
  // One place, nine transitions: 2^19 rows of 10 numbers, 26 bytes each, and the framing.
  assert.equal(defaultMaxResponseBytes({ places: 1, transitions: 9 }), 524_288 * 10 * 26 + 65_536);
});

Deno.test("request_limits.ts: resolveRequestLimits", () => {
  const limits = resolveRequestLimits({ maxRequestRows: 1000 }, { places: 3, transitions: 2 });
  assert.equal(limits.maxRequestRows, 1000);
  assert.throws(
    () => resolveRequestLimits({ maxTraceEvents: 0 }, { places: 3, transitions: 2 }),
    RangeError,
  );
});

Deno.test("request_limits.ts: checkRequestBody", () => {
  const limits = resolveRequestLimits({ maxTraceEvents: 1 }, { places: 3, transitions: 2 });
  const body = { events: [{ name: "a" }, { name: "b" }] };
  checkRequestBody("forward", body, limits); // only /anomaly has events
  assert.throws(() => checkRequestBody("anomaly", body, limits), { status: 413 });
});

Deno.test("request_limits.ts: requestLimitNote", () => {
  assert.equal(requestLimitNote("forward", {}), "");
  assert.equal(
    requestLimitNote("anomaly", { maxTraceEvents: 10 }),
    ", or the trace has more events than the limit of 10",
  );
});

Deno.test("request_limits.ts: checkTraceEvents", () => {
  checkTraceEvents({ events: [{ name: "a" }] }, 1); // within the limit
  assert.throws(() => checkTraceEvents({ events: [{ name: "a" }, { name: "b" }] }, 1), {
    status: 413,
    detail: "The trace has 2 events, more than the limit of 1 " +
      "(serve --max-trace-events, PETRI_SERVE_MAX_TRACE_EVENTS)",
  });
});

Deno.test("request_limits.ts: checkResponseBytes", () => {
  checkResponseBytes({ framing: 200, rows: 1000, numbersPerRow: 5 }, 1 << 20);
  assert.throws(
    () => checkResponseBytes({ framing: 200, rows: 100_000, numbersPerRow: 5 }, 1 << 20),
    { status: 413 },
  );
});

Deno.test("work_queue.ts: turn", async () => {
  const workQueue = new WorkQueue();
  let through = false;
  const turn = workQueue.turn().then(() => (through = true));
  await Promise.resolve();
  assert.equal(through, false); // not within the same turn
  await turn;
  assert.equal(through, true);
});

Deno.test("work_queue.ts: turnBefore", async () => {
  const workQueue = new WorkQueue();
  assert.equal(await workQueue.turnBefore(performance.now() + 60_000), true);
  assert.equal(await workQueue.turnBefore(performance.now() - 1), false); // already late
});

Deno.test("piece_count.ts: PieceCount", () => {
  const count = new PieceCount({ free: 2, minBytes: 64, what: "log" });
  count.add(1);
  count.add(1);
  assert.throws(() => count.add(1), {
    status: 400,
    message:
      "The log came in 3 pieces of 1 bytes on average; send it in pieces of at least 64 bytes",
  });
  const large = new PieceCount({ free: 2, minBytes: 64, what: "body" });
  for (let piece = 0; piece < 100; piece++) large.add(64);
});
