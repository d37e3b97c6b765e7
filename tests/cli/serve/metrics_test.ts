/**
 * `GET /metrics` of a real `cli.ts serve` process, parsed line by line: every line is a
 * comment or a valid sample of a declared family, histograms are cumulative with `+Inf` equal
 * to `_count`, route labels are templates, 404 and 405 answers share one series, the build info
 * names the model, the `process_*` metrics are there, the counters move with the traffic, and
 * Prometheus's own checker (`promtool check metrics`, Debian's `prometheus` package) finds
 * nothing to say. Under `deno serve --parallel`, every scrape has every instance's series.
 *
 * @module
 */

import assert from "node:assert/strict";
import { startServerProcess } from "./server_process.ts";
import { complete, RawConnection } from "./raw_http.ts";

const PROMTOOL = "/usr/bin/promtool";

/** Runs `promtool check metrics` on `text`: its complaints, or "" when it has none. */
async function promtool(text: string): Promise<string> {
  const child = new Deno.Command(PROMTOOL, {
    args: ["check", "metrics"],
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const writer = child.stdin.getWriter();
  await writer.write(new TextEncoder().encode(text));
  await writer.close();
  const output = await child.output();
  const said = new TextDecoder().decode(output.stdout) + new TextDecoder().decode(output.stderr);
  return output.success ? said : `exit ${output.code}: ${said}`;
}

function hasPromtool(): boolean {
  try {
    return Deno.statSync(PROMTOOL).isFile;
  } catch {
    return false;
  }
}

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

/** `cli.ts serve` on the example, without the access log. */
const SERVE = ["run", "-A", "cli.ts", "serve", "--port", "0", "--access-log", "off"];

Deno.test("GET /metrics of cli.ts serve parses line by line and its counters follow the traffic", async () => {
  await using server = await startServerProcess(SERVE);
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
  await (await fetch(`${server.origin}/another/unknown/path`)).body?.cancel();
  await (await fetch(`${server.origin}/schema`, { method: "DELETE" })).body?.cancel();
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
    petri_serve_ort_in_place_runs_total: "counter",
    petri_serve_queue_rows: "gauge",
    petri_serve_queue_wait_seconds: "histogram",
    petri_serve_requests_shed_total: "counter",
    petri_serve_requests_in_flight: "gauge",
    petri_serve_requests_waiting: "gauge",
    petri_serve_held_body_bytes: "gauge",
    petri_serve_model_restarts_total: "counter",
    petri_serve_batch_logs_in_progress: "gauge",
    petri_serve_batch_logs_total: "counter",
    petri_serve_batch_traces_total: "counter",
    process_resident_memory_bytes: "gauge",
    petri_serve_build_info: "gauge",
    process_start_time_seconds: "gauge",
    process_cpu_seconds_total: "counter",
    process_open_fds: "gauge",
    process_max_fds: "gauge",
    process_virtual_memory_bytes: "gauge",
  });
  const requests = (s: readonly Sample[], method: string, route: string, status: string) =>
    find(s, "petri_serve_requests_total", { method, route, status });
  const moved = (method: string, route: string, status: string) =>
    requests(after.samples, method, route, status) -
    requests(before.samples, method, route, status);
  assert.equal(moved("POST", "/forward", "200"), 3);
  // 404 and 405 answers share one label set, whatever the path and method.
  assert.equal(moved("other", "unmatched", "404"), 2);
  assert.equal(moved("other", "unmatched", "405"), 2);
  assert.equal(moved("GET", "/playground/*", "200"), 1);
  const unmatched = after.samples.filter((s) =>
    s.name === "petri_serve_request_duration_seconds_count" &&
    (s.labels.get("route") === "unmatched" || s.labels.get("method") === "other")
  );
  assert.deepEqual(unmatched.map((s) => Object.fromEntries(s.labels)), [
    { method: "other", route: "unmatched" },
  ]);
  assert.equal(moved("GET", "/v2/models/{name}", "200"), 1);
  assert.equal(moved("GET", "/metrics", "200"), 1, "the first scrape is counted");
  const runs = (s: readonly Sample[]) =>
    find(s, "petri_serve_ort_run_rows_count", { gradient: "false" });
  assert.ok(runs(after.samples) - runs(before.samples) >= 4, "3 forward runs and the grid's");
  const rows = (s: readonly Sample[]) =>
    find(s, "petri_serve_ort_run_rows_sum", { gradient: "false" });
  assert.ok(rows(after.samples) - rows(before.samples) > 4, "the counterfactual ran many rows");
  const inPlace = (s: readonly Sample[]) => find(s, "petri_serve_ort_in_place_runs_total", {});
  // The first lone run is always in place; later ones leave when runs average over 0.5 ms (a busy CI).
  const inPlaceRuns = inPlace(after.samples) - inPlace(before.samples);
  assert.ok(inPlaceRuns >= 1, "a lone client's first run is made on the serving thread");
  assert.ok(inPlaceRuns <= runs(after.samples) - runs(before.samples), "in-place runs are runs");
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
  const sidecar = JSON.parse(
    await Deno.readTextFile(
      new URL(
        "../../../examples/credit_approval_coloured/credit_approval_coloured.onnx.meta.json",
        import.meta.url,
      ),
    ),
  );
  assert.equal(
    find(after.samples, "petri_serve_build_info", {
      version: "0.1.0",
      model: "credit_approval_coloured",
      model_sha256: sidecar.onnx_sha256,
    }),
    1,
  );
  const now = Date.now() / 1000;
  const started = find(after.samples, "process_start_time_seconds", {});
  assert.ok(started > now - 600 && started <= now, `started ${started}, now ${now}`);
  assert.ok(find(after.samples, "process_cpu_seconds_total", {}) > 0);
  assert.ok(find(after.samples, "process_open_fds", {}) > 3);
  assert.ok(
    find(after.samples, "process_max_fds", {}) >= find(after.samples, "process_open_fds", {}),
  );
  if (hasPromtool() || Deno.env.get("CI")) {
    const text = await (await fetch(`${server.origin}/metrics`)).text();
    assert.equal(await promtool(text), "", "promtool check metrics");
  }
  server.kill("SIGTERM");
  assert.equal((await server.finished()).code, 0);
});

Deno.test("deno serve --parallel: every scrape has every instance's series, labelled instance_id, and they add up to the traffic", async () => {
  await using server = await startServerProcess(
    ["serve", "--parallel", "--allow-read", "--allow-env", "--allow-net", "adapter/deno/main.ts"],
    { env: { DENO_SERVE_ADDRESS: "tcp:127.0.0.1:0", DENO_JOBS: "2" } },
  );
  const port = Number(new URL(server.origin).port);
  const instances = (samples: readonly Sample[], route: string) =>
    new Set(
      samples.filter((s) =>
        s.name === "petri_serve_requests_total" && s.labels.get("route") === route
      ).map((s) => s.labels.get("instance_id")),
    ).size;
  // The first stderr line comes from the first instance; on a busy machine the second starts
  // later. /readyz on new connections until a scrape shows both answered it.
  for (let i = 0; i < 200; i++) {
    using probe = await RawConnection.open(port);
    assert.equal(complete(await probe.request("GET", "/readyz")).status, 200);
    using scrape = await RawConnection.open(port);
    const { samples } = parseMetrics(complete(await scrape.request("GET", "/metrics")).body);
    if (instances(samples, "/readyz") === 2) break;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  // One connection per request: the kernel spreads connections over the instances.
  const REQUESTS = 60;
  for (let i = 0; i < REQUESTS; i++) {
    using connection = await RawConnection.open(port);
    assert.equal(complete(await connection.request("GET", "/healthz")).status, 200);
  }
  const healthz = (samples: readonly Sample[]) =>
    samples.filter((s) =>
      s.name === "petri_serve_requests_total" && s.labels.get("route") === "/healthz"
    );
  for (let scrape = 0; scrape < 4; scrape++) {
    using connection = await RawConnection.open(port);
    const text = complete(await connection.request("GET", "/metrics")).body;
    const { types, samples } = parseMetrics(text);
    checkHistograms(types, samples);
    const counts = healthz(samples);
    // Both instances took some of the 60 connections, and each scrape shows both.
    assert.equal(new Set(counts.map((s) => s.labels.get("instance_id"))).size, 2, text);
    assert.equal(counts.reduce((n, s) => n + s.value, 0), REQUESTS, `scrape ${scrape}`);
    // Process-wide metrics and the build info once, without the label.
    assert.equal(samples.filter((s) => s.name === "process_cpu_seconds_total").length, 1);
    assert.equal(samples.filter((s) => s.name === "petri_serve_build_info").length, 1);
    if (hasPromtool() || Deno.env.get("CI")) assert.equal(await promtool(text), "");
  }
  server.kill("SIGTERM");
  assert.equal((await server.finished()).code, 0);
});

Deno.test("cli.ts serve runs a lone client's requests in place and shares worker runs among concurrent clients", async () => {
  await using server = await startServerProcess(SERVE);
  const scrape = async () => parseMetrics(await (await fetch(`${server.origin}/metrics`)).text());
  const post = async () => {
    const response = await fetch(`${server.origin}/forward`, {
      method: "POST",
      body: JSON.stringify({ input_marking: { p_submitted: 1 } }),
    });
    assert.equal(response.status, 200);
    await response.body?.cancel();
  };
  const counts = ({ samples }: { samples: readonly Sample[] }) => ({
    runs: find(samples, "petri_serve_ort_run_rows_count", { gradient: "false" }),
    rows: find(samples, "petri_serve_ort_run_rows_sum", { gradient: "false" }),
    inPlace: find(samples, "petri_serve_ort_in_place_runs_total", {}),
  });
  const start = counts(await scrape());
  for (let i = 0; i < 20; i++) await post();
  const lone = counts(await scrape());
  assert.equal(lone.rows - start.rows, 20);
  // In place while such runs stay short: on a busy machine some go to the worker instead.
  assert.ok(lone.inPlace - start.inPlace >= 1, "a lone client's runs go in place");

  // 16 clients, each sending its next request once its answer is in.
  await Promise.all(Array.from({ length: 16 }, async () => {
    for (let i = 0; i < 25; i++) await post();
  }));
  const crowd = counts(await scrape());
  const runs = crowd.runs - lone.runs;
  assert.equal(crowd.rows - lone.rows, 400);
  assert.ok(runs < 400, `${runs} runs for 400 rows: requests shared runs`);
  assert.ok(crowd.inPlace - lone.inPlace < runs, "runs went to the worker");
});
