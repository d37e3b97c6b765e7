/**
 * `GET /metrics` of a real `cli.ts serve` process, parsed line by line: every line is a
 * comment or a valid sample of a declared family, histograms are cumulative with `+Inf` equal
 * to `_count`, route labels are templates, and the counters move with the traffic.
 *
 * @module
 */

import assert from "node:assert/strict";
import { startServerProcess } from "./server_process.ts";

interface Sample {
  readonly name: string;
  readonly labels: ReadonlyMap<string, string>;
  readonly value: number;
}

const NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/;
const SAMPLE = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/;
const LABEL = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"(,|$)/y;

/** Parses the text format; throws on any line that is neither a comment nor a sample. */
function parseMetrics(text: string): { types: Map<string, string>; samples: Sample[] } {
  assert.ok(text.endsWith("\n"), "the text ends with a newline");
  const types = new Map<string, string>();
  const samples: Sample[] = [];
  for (const line of text.slice(0, -1).split("\n")) {
    if (line.startsWith("# ")) {
      const [, kind, name, ...rest] = line.split(" ");
      assert.ok(kind === "HELP" || kind === "TYPE", line);
      assert.match(name!, NAME, line);
      if (kind === "TYPE") {
        assert.ok(["counter", "gauge", "histogram"].includes(rest[0]!), line);
        assert.equal(types.has(name!), false, `one TYPE per family: ${line}`);
        types.set(name!, rest[0]!);
      } else {
        assert.ok(rest.join(" ").length > 0, line);
      }
      continue;
    }
    const match = SAMPLE.exec(line);
    assert.ok(match, `a valid sample line: ${JSON.stringify(line)}`);
    const [, name, labelText, valueText] = match;
    const labels = new Map<string, string>();
    if (labelText) {
      LABEL.lastIndex = 0;
      while (LABEL.lastIndex < labelText.length) {
        const label = LABEL.exec(labelText);
        assert.ok(label, `valid labels: ${line}`);
        labels.set(label[1]!, label[2]!);
      }
    }
    const value = valueText === "+Inf" ? Infinity : Number(valueText);
    assert.ok(!Number.isNaN(value), `a number: ${line}`);
    const family = name!.replace(/_(bucket|sum|count)$/, "");
    assert.ok(types.has(name!) || types.get(family) === "histogram", `declared: ${line}`);
    samples.push({ name: name!, labels, value });
  }
  return { types, samples };
}

function find(samples: readonly Sample[], name: string, labels: Record<string, string>): number {
  const hit = samples.find((s) =>
    s.name === name && s.labels.size === Object.keys(labels).length &&
    Object.entries(labels).every(([k, v]) => s.labels.get(k) === v)
  );
  return hit?.value ?? 0;
}

function checkHistograms(types: Map<string, string>, samples: readonly Sample[]): void {
  for (const [family, type] of types) {
    if (type !== "histogram") continue;
    const groups = new Map<string, Sample[]>();
    for (const s of samples.filter((s) => s.name === `${family}_bucket`)) {
      const key = JSON.stringify([...s.labels].filter(([k]) => k !== "le"));
      groups.set(key, [...groups.get(key) ?? [], s]);
    }
    for (const [key, buckets] of groups) {
      const labels = Object.fromEntries(JSON.parse(key));
      const bounds = buckets.map((b) => b.labels.get("le")!);
      assert.equal(bounds.at(-1), "+Inf", `${family}${key} ends with +Inf`);
      const les = bounds.map((b) => b === "+Inf" ? Infinity : Number(b));
      for (let i = 1; i < buckets.length; i++) {
        assert.ok(les[i]! > les[i - 1]!, `${family}${key} bounds ascend`);
        assert.ok(buckets[i]!.value >= buckets[i - 1]!.value, `${family}${key} is cumulative`);
      }
      assert.equal(buckets.at(-1)!.value, find(samples, `${family}_count`, labels), key);
      assert.ok(find(samples, `${family}_sum`, labels) >= 0);
    }
  }
}

Deno.test("GET /metrics of cli.ts serve parses line by line and its counters follow the traffic", async () => {
  await using server = await startServerProcess([
    "run",
    "-A",
    "cli.ts",
    "serve",
    "--port",
    "0",
    "--access-log",
    "off",
  ]);
  const scrape = async () => {
    const response = await fetch(`${server.origin}/metrics`);
    assert.equal(response.status, 200);
    assert.equal(response.headers.get("content-type"), "text/plain; version=0.0.4; charset=utf-8");
    return parseMetrics(await response.text());
  };
  const before = await scrape();
  checkHistograms(before.types, before.samples);

  const forward = { input_marking: { p_submitted: 1 }, input_values: { p_submitted: 7000 } };
  for (let i = 0; i < 3; i++) {
    const response = await fetch(`${server.origin}/forward`, {
      method: "POST",
      body: JSON.stringify(forward),
    });
    assert.equal(response.status, 200);
    await response.body?.cancel();
  }
  await (await fetch(`${server.origin}/no/such/path`)).body?.cancel();
  await (await fetch(`${server.origin}/playground/index.html`)).body?.cancel();
  await (await fetch(`${server.origin}/forward`, { method: "BREW" })).body?.cancel();
  await (await fetch(`${server.origin}/v2/models/credit_approval_coloured`)).body?.cancel();
  const counterfactual = await fetch(`${server.origin}/counterfactual`, {
    method: "POST",
    body: JSON.stringify({
      input_marking: { p_submitted: 1 },
      input_values: { p_submitted: 5000 },
      target_transition: "t_approve",
      flip_place: "p_submitted",
      flip_channel: "value",
      search_range: [0, 20000],
    }),
  });
  assert.equal(counterfactual.status, 200, await counterfactual.clone().text());
  await counterfactual.body?.cancel();

  const after = await scrape();
  checkHistograms(after.types, after.samples);
  assert.deepEqual(Object.fromEntries(after.types), {
    petri_serve_requests_total: "counter",
    petri_serve_request_duration_seconds: "histogram",
    petri_serve_ort_run_rows: "histogram",
    petri_serve_ort_run_duration_seconds: "histogram",
    petri_serve_queue_rows: "gauge",
    petri_serve_queue_wait_seconds: "histogram",
    petri_serve_requests_shed_total: "counter",
    petri_serve_requests_in_flight: "gauge",
    petri_serve_requests_waiting: "gauge",
    petri_serve_held_body_bytes: "gauge",
    petri_serve_model_restarts_total: "counter",
    process_resident_memory_bytes: "gauge",
  });
  const requests = (s: readonly Sample[], method: string, route: string, status: string) =>
    find(s, "petri_serve_requests_total", { method, route, status });
  const moved = (method: string, route: string, status: string) =>
    requests(after.samples, method, route, status) -
    requests(before.samples, method, route, status);
  assert.equal(moved("POST", "/forward", "200"), 3);
  assert.equal(moved("GET", "unmatched", "404"), 1);
  assert.equal(moved("GET", "/playground/*", "200"), 1);
  assert.equal(moved("other", "/forward", "405"), 1, "unknown methods share one label");
  assert.equal(moved("GET", "/v2/models/{name}", "200"), 1);
  assert.equal(moved("GET", "/metrics", "200"), 1, "the first scrape is counted");
  const runs = (s: readonly Sample[]) =>
    find(s, "petri_serve_ort_run_rows_count", { gradient: "false" });
  assert.ok(runs(after.samples) - runs(before.samples) >= 4, "3 forward runs and the grid's");
  const rows = (s: readonly Sample[]) =>
    find(s, "petri_serve_ort_run_rows_sum", { gradient: "false" });
  assert.ok(rows(after.samples) - rows(before.samples) > 4, "the counterfactual ran many rows");
  assert.equal(
    find(after.samples, "petri_serve_request_duration_seconds_count", {
      method: "POST",
      route: "/forward",
    }),
    3,
  );
  assert.equal(find(after.samples, "petri_serve_queue_rows", {}), 0, "nothing waits when idle");
  const waits = (s: readonly Sample[]) => find(s, "petri_serve_queue_wait_seconds_count", {});
  assert.ok(waits(after.samples) >= 4, "each request's rows waited once per run");
  assert.equal(find(after.samples, "petri_serve_requests_in_flight", {}), 0);
  assert.equal(find(after.samples, "petri_serve_held_body_bytes", {}), 0, "all released");
  assert.equal(find(after.samples, "petri_serve_model_restarts_total", {}), 0);
  assert.ok(find(after.samples, "process_resident_memory_bytes", {}) > 10_000_000);
  server.kill("SIGTERM");
  assert.equal((await server.finished()).code, 0);
});
