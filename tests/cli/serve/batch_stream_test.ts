/**
 * `POST /batch` on a real `cli.ts serve`, as a stream: a client that hangs up mid-log stops the
 * work (the ORT run counter stops rising, the body is no longer read); logs past
 * `--max-concurrent-logs` get 503 with `Retry-After`; a malformed log at its start is a 400
 * naming the problem, and in its middle or at its end ends the answer with the entries before
 * it and the final record; the drain finishes a log that ends within `--drain-ms` and cuts one
 * that does not with the final record, and the process exits 0 (under `deno serve`, which
 * has no drain, SIGTERM ends a log still arriving with the final record); `/metrics` counts
 * the traces scored, the logs in progress and how each ended.
 *
 * @module
 */

import assert from "node:assert/strict";
import { batch, withTempDir } from "../batch/helpers.ts";
import {
  answerLines,
  creditBody,
  creditTrace,
  LOG_TYPES,
  metric,
  postLog,
  serveLogs,
} from "./batch_client.ts";
import { startServerProcess } from "./server_process.ts";

const CREDIT = "examples/credit_approval_coloured";
const JSONL = { "content-type": LOG_TYPES.jsonl, accept: "application/x-ndjson" };
/** How long a test waits for something the server does at once, at most, in ms. */
const PATIENCE_MS = 20_000;

function serve(...flags: string[]) {
  return serveLogs(CREDIT, ...flags);
}

/** Waits until `check` holds, polling every 50 ms, for {@link PATIENCE_MS} at most. */
async function eventually(what: string, check: () => Promise<boolean>): Promise<void> {
  const until = performance.now() + PATIENCE_MS;
  while (!(await check())) {
    if (performance.now() > until) throw new Error(`${what}: not within ${PATIENCE_MS} ms`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** A gate a body waits at until it is opened. */
function gate(): { wait: () => Promise<void>; open: () => void } {
  const { promise, resolve } = Promise.withResolvers<void>();
  return { wait: () => promise, open: () => resolve() };
}

/**
 * Posts one log of `count` credit traces per gate, each body held at its gate from trace 1000
 * on; once each answer's first entry has come, the rest of their lines.
 */
async function postHeld(
  origin: string,
  gates: readonly { wait: () => Promise<void> }[],
  count: number,
): Promise<AsyncGenerator<string>[]> {
  const answers = await Promise.all(gates.map((held) => {
    const body = creditBody(count, 500, (index) => index >= 1000 ? held.wait() : undefined);
    return postLog(origin, body, JSONL);
  }));
  assert.deepEqual(answers.map((a) => a.status), gates.map(() => 200));
  const lines = answers.map(answerLines);
  for (const log of lines) assert.equal(JSON.parse((await log.next()).value!).trace_index, 0);
  return lines;
}

const RUNS = 'petri_serve_ort_run_rows_count{gradient="false"}';

Deno.test("POST /batch: a client that hangs up mid-log stops the work at once", async () => {
  await using server = await serve();
  const sent = { traces: 0 };
  const stop = new AbortController();
  // Two million traces, made as the server reads them: far more than it scores before the end.
  const body = creditBody(2_000_000, 2000, undefined, sent);
  const response = await postLog(server.origin, body, JSONL, "", stop.signal);
  assert.equal(response.status, 200);
  let entries = 0;
  for await (const _ of answerLines(response)) {
    if (++entries === 20_000) break;
  }
  stop.abort();
  await eventually(
    "the log ends",
    async () => (await metric(server.origin, "petri_serve_batch_logs_in_progress")) === 0,
  );
  const runs = await metric(server.origin, RUNS);
  const read = sent.traces;
  await new Promise((resolve) => setTimeout(resolve, 1000));
  assert.equal(await metric(server.origin, RUNS), runs, "runs went on after the hang-up");
  assert.equal(sent.traces, read, "the body was still read after the hang-up");
  assert.ok(read < 2_000_000);
  const outcomes = (await (await fetch(`${server.origin}/metrics`)).text()).split("\n")
    .filter((line) => line.startsWith("petri_serve_batch_logs_total{"));
  assert.deepEqual(outcomes, ['petri_serve_batch_logs_total{outcome="client_gone"} 1']);
});

Deno.test("POST /batch: a log past --max-concurrent-logs gets 503 with Retry-After", async () => {
  await using server = await serve("--max-concurrent-logs", "1");
  const held = gate();
  const body = creditBody(5000, 1000, (index) => index >= 1000 ? held.wait() : undefined);
  const first = await postLog(server.origin, body, JSONL);
  assert.equal(first.status, 200);
  const lines = answerLines(first);
  assert.equal(JSON.parse((await lines.next()).value!).trace_index, 0);

  const refused = await postLog(server.origin, creditTrace(0), JSONL);
  assert.equal(refused.status, 503);
  assert.equal(refused.headers.get("retry-after"), "1");
  assert.match((await refused.json()).detail, /1 logs are being scored.*--max-concurrent-logs/);

  held.open();
  let last = "";
  for await (const line of lines) last = line;
  assert.equal(JSON.parse(last).trace_index, 4999);
  await eventually(
    "the slot is free",
    async () => (await metric(server.origin, "petri_serve_batch_logs_in_progress")) === 0,
  );
  const next = await postLog(server.origin, creditTrace(0), JSONL);
  assert.equal(next.status, 200);
  assert.equal(JSON.parse(await next.text()).trace_index, 0);
  assert.equal(
    await metric(server.origin, 'petri_serve_requests_shed_total{reason="logs_full"}'),
    1,
  );
});

Deno.test("POST /batch: /metrics counts the traces scored and the logs in progress", async () => {
  await using server = await serve();
  const count = (name: string) => metric(server.origin, name);
  const held = [gate(), gate()];
  // Both logs have entries out while their bodies wait.
  const lines = await postHeld(server.origin, held, 3000);
  assert.equal(await count("petri_serve_batch_logs_in_progress"), 2);
  const scored = await count("petri_serve_batch_traces_total");
  assert.ok(scored >= 2 && scored <= 2000, `${scored} traces scored of the 2000 sent`);
  for (const [index, log] of lines.entries()) {
    held[index]!.open();
    let entries = 1;
    for await (const _ of log) entries++;
    assert.equal(entries, 3000);
  }
  await eventually(
    "no log left",
    async () => (await count("petri_serve_batch_logs_in_progress")) === 0,
  );
  assert.equal(await count("petri_serve_batch_traces_total"), 6000);
  assert.equal(await count('petri_serve_batch_logs_total{outcome="complete"}'), 2);
  // A log cut by a malformed trace counts the entries it wrote, and its outcome.
  const good = Array.from({ length: 1000 }, (_, i) => creditTrace(i)).join("");
  const cut = await postLog(server.origin, `${good}{"attributes": oops\n`, JSONL);
  const record = JSON.parse((await cut.text()).trimEnd().split("\n").pop()!);
  assert.ok(record.incomplete && record.traces_written > 0);
  await eventually(
    "the cut log counted",
    async () => (await count('petri_serve_batch_logs_total{outcome="cut"}')) === 1,
  );
  assert.equal(await count("petri_serve_batch_traces_total"), 6000 + record.traces_written);
});

Deno.test("POST /batch: a malformed log at its start, in its middle and at its end", async (t) => {
  await using server = await serve();
  const good = Array.from({ length: 5000 }, (_, i) => creditTrace(i)).join("");

  await t.step("at its start: 400 naming the problem, nothing scored", async () => {
    const xes = await postLog(server.origin, "<log><trace>", { "content-type": LOG_TYPES.xes });
    assert.equal(xes.status, 400);
    assert.match((await xes.json()).detail, /^request body: malformed XML/);
    const json = await postLog(server.origin, '{"not": "a list"}', {
      "content-type": LOG_TYPES.json,
    });
    assert.equal(json.status, 400);
    assert.match((await json.json()).detail, /^request body: /);
  });

  await t.step("in its middle: batch's entries, then the final record", async () => {
    await withTempDir(async (dir) => {
      await Deno.writeTextFile(`${dir}/good.jsonl`, good);
      const cli = await batch([
        CREDIT,
        "--traces",
        `${dir}/good.jsonl`,
        "--output-format",
        "jsonl",
        "-q",
      ]);
      assert.equal(cli.code, 0, cli.stderr);
      const response = await postLog(server.origin, `${good}{"attributes": oops\n${good}`, JSONL);
      assert.equal(response.status, 200);
      const lines = (await response.text()).split("\n");
      assert.equal(lines.pop(), "");
      const record = JSON.parse(lines.pop()!);
      assert.deepEqual(Object.keys(record), ["error", "incomplete", "traces_written"]);
      assert.match(record.error, /^request body: line 5001/);
      assert.equal(record.incomplete, true);
      assert.equal(record.traces_written, lines.length);
      assert.ok(lines.length > 0 && lines.length <= 5000);
      // The entries before it are batch's, byte for byte.
      assert.deepEqual(lines, cli.stdout.split("\n").slice(0, lines.length));
    });
  });

  await t.step("in its middle, as JSON: still a JSON list, ending with the record", async () => {
    const list = good.trimEnd().split("\n");
    const text = `[${list.join(",")},{"attributes": oops}, ${list.join(",")}]`;
    const response = await postLog(server.origin, text, { "content-type": LOG_TYPES.json });
    assert.equal(response.status, 200);
    const entries = JSON.parse(await response.text());
    const record = entries.pop();
    assert.equal(record.incomplete, true);
    assert.match(record.error, /^request body: /);
    assert.equal(record.traces_written, entries.length);
    assert.deepEqual(entries.map((e: { trace_index: number }) => e.trace_index), [
      ...entries.keys(),
    ]);
  });

  await t.step("at its end: the entries, then the final record", async () => {
    const list = good.trimEnd().split("\n");
    const truncated = `[${list.join(",")}`; // no closing bracket
    const response = await postLog(server.origin, truncated, {
      "content-type": LOG_TYPES.json,
      accept: "application/x-ndjson",
    });
    assert.equal(response.status, 200);
    const lines = (await response.text()).trimEnd().split("\n").map((l) => JSON.parse(l));
    const record = lines.pop();
    assert.equal(record.incomplete, true);
    assert.match(record.error, /^request body: /);
    assert.equal(record.traces_written, lines.length);
    assert.ok(lines.every((entry, i) => entry.trace_index === i));
  });
});

Deno.test("POST /batch: the drain finishes a log that ends in time and cuts one that does not", async () => {
  const server = await serve("--drain-ms", "3000");
  try {
    const finishing = gate();
    const never = gate();
    const bodyA = creditBody(20_000, 1000, (i) => i >= 1000 ? finishing.wait() : undefined);
    const bodyB = creditBody(20_000, 1000, (i) => i >= 1000 ? never.wait() : undefined);
    const [a, b] = await Promise.all([
      postLog(server.origin, bodyA, JSONL),
      postLog(server.origin, bodyB, JSONL),
    ]);
    assert.deepEqual([a.status, b.status], [200, 200]);
    const textA = a.text();
    const textB = b.text();
    await eventually(
      "both logs are being scored",
      async () => (await metric(server.origin, "petri_serve_batch_traces_total")) >= 1000,
    );
    server.kill("SIGTERM");
    await new Promise((resolve) => setTimeout(resolve, 500));
    finishing.open();
    const linesA = (await textA).trimEnd().split("\n").map((l) => JSON.parse(l));
    assert.equal(linesA.length, 20_000, "the log that ends in time is whole");
    assert.ok(linesA.every((entry, i) => entry.trace_index === i));
    const linesB = (await textB).trimEnd().split("\n").map((l) => JSON.parse(l));
    const record = linesB.pop();
    assert.deepEqual(record, {
      error: "The server is shutting down",
      incomplete: true,
      traces_written: linesB.length,
    });
    const exit = await server.finished();
    assert.equal(exit.code, 0, exit.stderr);
  } finally {
    server.kill("SIGKILL");
    await server.finished();
  }
});

Deno.test("POST /batch under deno serve --parallel: SIGTERM mid-log ends the answer with the final record", async () => {
  // deno serve has no drain: its shutdown makes the bodies still arriving unreadable.
  const server = await startServerProcess(
    ["serve", "--parallel", "--allow-read", "--allow-env", "--allow-net", "adapter/deno/main.ts"],
    {
      env: {
        DENO_SERVE_ADDRESS: "tcp:127.0.0.1:0",
        PETRI_SERVE_BUNDLE: CREDIT,
        PETRI_SERVE_ACCESS_LOG: "off",
      },
    },
  );
  const held = [gate(), gate()];
  try {
    const lines = await postHeld(server.origin, held, 20_000);
    server.kill("SIGTERM");
    for (const log of lines) {
      const entries = [{ trace_index: 0 }];
      for await (const line of log) entries.push(JSON.parse(line));
      const record = entries.pop() as unknown as Record<string, unknown>;
      assert.deepEqual(Object.keys(record), ["error", "incomplete", "traces_written"]);
      assert.equal(record.incomplete, true);
      assert.equal(record.traces_written, entries.length);
      assert.ok(entries.length < 20_000);
      assert.ok(entries.every((entry, i) => entry.trace_index === i));
    }
    // The clients stop sending; the process then ends.
    for (const g of held) g.open();
    const exit = await server.finished();
    assert.equal(exit.code, 0, exit.stderr);
  } finally {
    for (const g of held) g.open();
    server.kill("SIGKILL");
    await server.finished();
  }
});
