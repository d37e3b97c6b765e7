/**
 * Scoring whole event logs in the playground, in Debian's Chromium on WASM and on WebGPU: for
 * every conformance model (its PETRA `.pt` pair, picked in the page) and every log format it
 * has (JSON, CSV, XES; and JSONL made from its JSON, XES and JSON gzipped), the page scores the log in its worker and the
 * JSON it downloads is `cli.ts batch`'s output on the same bundle and log, byte for byte. The
 * JSONL and CSV downloads, the error entries, the table's order, a trace's detail and the
 * net's residual colours are checked against the same output; cancelling stops the run; and
 * no request the page (or its worker) makes carries the log.
 *
 * @module
 */

// Callbacks passed to page.evaluate run in the page: type them with the DOM's names.
/// <reference lib="dom" />

import assert from "node:assert/strict";
import type { Page, Request } from "playwright-core";
import { RECORDED_MODELS } from "../conformance/fixtures.ts";
import { assertMatchesPetra, batch, CONFORMANCE } from "../cli/batch/helpers.ts";
import { hasChromium, launchChromium } from "./browser.ts";
import {
  csvCells,
  downloadResult,
  openBundleFiles,
  scoreLogFile,
  startLog,
  waitLogEnd,
} from "./log_page.ts";
import { waitReady } from "./page.ts";
import { startSite } from "./site.ts";

/** A log's batch entry, as `JSON.parse` reads it. */
interface Entry {
  readonly attributes: Record<string, string>;
  readonly trace_index: number;
  readonly trace_score?: number;
  readonly per_transition_residuals?: Record<string, number>;
  readonly error?: string;
}

/** PETRA's three formats, JSONL (made from the JSON log), and two of them gzipped. */
const LOGS = [
  "traces.json",
  "traces.csv",
  "traces.xes",
  "traces.jsonl",
  "traces.xes.gz",
  "traces.json.gz",
] as const;

/** A temporary directory for the gzipped logs and the large log, shared by both backends. */
const DIR = await Deno.makeTempDir({ prefix: "petri_log_scoring_" });
addEventListener("unload", () => Deno.removeSync(DIR, { recursive: true }));

/**
 * The path of `log` of conformance model `model`; the JSONL log (one trace of the JSON log a
 * line) and `.gz` files are made on first use.
 */
async function logPath(model: string, log: string): Promise<string> {
  if (log === "traces.jsonl") {
    const path = `${DIR}/${model}.traces.jsonl`;
    const json = await Deno.readTextFile(new URL(`${model}/traces.json`, CONFORMANCE));
    const lines = (JSON.parse(json) as unknown[]).map((trace) => JSON.stringify(trace) + "\n");
    await Deno.writeTextFile(path, lines.join(""));
    return path;
  }
  const source = new URL(`${model}/${log.replace(/\.gz$/, "")}`, CONFORMANCE).pathname;
  if (!log.endsWith(".gz")) return source;
  const path = `${DIR}/${model}.${log}`;
  try {
    await Deno.stat(path);
  } catch {
    await using file = await Deno.open(source);
    await file.readable.pipeThrough(new CompressionStream("gzip")).pipeTo(
      (await Deno.create(path)).writable,
    );
  }
  return path;
}

function ptFiles(model: string): string[] {
  const folder = new URL(`${model}/`, CONFORMANCE).pathname;
  return [`${folder}model.pt`, `${folder}model.pt.meta.json`];
}

/** The scenario name the page shows for a model (its sidecar's `scenario_name`). */
function scenario(model: string): string {
  const sidecar = JSON.parse(Deno.readTextFileSync(ptFiles(model)[1]!));
  return sidecar.scenario_name;
}

const outputs = new Map<string, string>();

/** `cli.ts batch MODEL.pt --traces LOG [--output-format FORMAT]`'s standard output. */
async function cliOutput(model: string, log: string, format = "json"): Promise<string> {
  const key = `${model}/${log}/${format}`;
  const known = outputs.get(key);
  if (known !== undefined) return known;
  const result = await batch([
    ptFiles(model)[0]!,
    "--traces",
    await logPath(model, log),
    "--output-format",
    format,
    "--quiet",
  ]);
  assert.equal(result.code, 0, result.stderr);
  outputs.set(key, result.stdout);
  return result.stdout;
}

/** A credit log of `count` JSON traces, large enough to cancel while it is being scored. */
async function largeLog(count: number): Promise<string> {
  const path = `${DIR}/large_${count}.json`;
  await using file = await Deno.create(path);
  const encoder = new TextEncoder();
  for (let start = 0; start < count; start += 10_000) {
    let text = start === 0 ? "[" : "";
    for (let i = start; i < Math.min(count, start + 10_000); i++) {
      text += `${i === 0 ? "" : ","}\n{"attributes": {"case_id": "large-${i}", ` +
        `"amount": "${100 * (1 + (i % 150))}"}, "events": ["approve loan"]}`;
    }
    if (start + 10_000 >= count) text += "\n]\n";
    await file.write(encoder.encode(text));
  }
  return path;
}

/** Every request the page and its workers make, from the moment it is called. */
function recordRequests(page: Page): Request[] {
  const requests: Request[] = [];
  page.on("request", (request) => requests.push(request));
  return requests;
}

for (const backend of ["wasm", "webgpu"] as const) {
  Deno.test({
    name: `log scoring in the playground (${backend})`,
    ignore: !hasChromium() && !Deno.env.get("CI"),
    async fn(t) {
      await using site = await startSite();
      await using browser = await launchChromium(backend);
      const page = await browser.newPage({
        viewport: { width: 1280, height: 900 },
        acceptDownloads: true,
      });
      const errors: string[] = [];
      page.on("pageerror", (e) => errors.push(e.message));
      const requests = recordRequests(page);
      await page.goto(site.pageUrl(backend));
      await waitReady(page);
      assert.equal(await page.evaluate(() => document.body.dataset.backend), backend);

      await t.step(
        "every conformance model and log format: the JSON download is batch's",
        async () => {
          assert.ok(RECORDED_MODELS.length >= 5);
          for (const model of RECORDED_MODELS) {
            await openBundleFiles(page, ptFiles(model), scenario(model));
            for (const log of LOGS) {
              assert.equal(await scoreLogFile(page, await logPath(model, log)), "done", log);
              const json = await downloadResult(page, "json");
              assert.equal(json, await cliOutput(model, log), `${model}/${log}: the JSON download`);
            }
          }
        },
      );

      const model = "credit_approval_coloured";
      const expected = JSON.parse(await cliOutput(model, "traces.json")) as Entry[];

      await t.step(
        "JSONL is batch's; CSV has a row per trace, a column per transition",
        async () => {
          await openBundleFiles(page, ptFiles(model), scenario(model));
          assert.equal(await scoreLogFile(page, await logPath(model, "traces.json")), "done");
          assert.equal(
            await downloadResult(page, "jsonl"),
            await cliOutput(model, "traces.json", "jsonl"),
          );
          const lines = (await downloadResult(page, "csv")).split("\r\n");
          assert.equal(lines.pop(), "");
          const header = lines.shift()!.split(",");
          const ids = Object.keys(
            expected.find((e) => e.per_transition_residuals)!
              .per_transition_residuals!,
          );
          const keys = [...new Set(expected.flatMap((e) => Object.keys(e.attributes)))].sort();
          assert.deepEqual(header, [
            "trace_index",
            "trace_score",
            "error",
            ...keys.map((k) => `attribute:${k}`),
            ...ids,
          ]);
          assert.equal(lines.length, expected.length);
          lines.forEach((line, i) => {
            const cells = csvCells(line);
            const entry = expected[i]!;
            assert.equal(Number(cells[0]), entry.trace_index);
            keys.forEach((k, j) => assert.equal(cells[3 + j], entry.attributes[k] ?? ""));
            if (entry.error !== undefined) {
              assert.deepEqual([cells[1], cells[2]], ["", entry.error]);
              return;
            }
            assert.equal(Number(cells[1]), entry.trace_score);
            ids.forEach((id, j) => {
              const cell = cells[3 + keys.length + j];
              assert.equal(Number(cell), entry.per_transition_residuals![id]);
            });
          });
        },
      );

      await t.step("error entries are shown as such", async () => {
        const failed = expected.filter((e) => e.error !== undefined);
        assert.ok(failed.length > 0, "the log has error entries");
        assert.equal(
          await page.locator("#log").getAttribute("data-errors"),
          String(failed.length),
        );
        await page.locator("#log-filter").selectOption("errors");
        await page.waitForFunction(
          (n) =>
            document.querySelectorAll("#log-table tbody tr[data-error]").length === n &&
            document.querySelectorAll("#log-table tbody tr").length === n,
          failed.length,
        );
        const shown = await page.locator("#log-table tbody tr").evaluateAll((rows) =>
          rows.map((row) => [
            Number((row as HTMLElement).dataset.index),
            row.querySelector("[data-field=error]")?.textContent,
            row.querySelector(".badge")?.textContent,
          ])
        );
        assert.deepEqual(shown, failed.map((e) => [e.trace_index, e.error, "error"]));
        await page.getByRole("button", { name: `Show trace ${failed[0]!.trace_index}` }).click();
        await page.locator("#trace-detail").getByText("Not scored:").waitFor();
        await page.locator("#log-filter").selectOption("all");
        // The table is drawn again once the worker sends the page: the scored rows are back.
        await page.locator("#log-table tbody tr:not([data-error])").first().waitFor();
      });

      await t.step(
        "the table lists the most anomalous first; a trace shows its events and colours the net",
        async () => {
          const scored = expected.filter((e) => e.error === undefined)
            .sort((a, b) => b.trace_score! - a.trace_score! || a.trace_index - b.trace_index);
          await page.waitForFunction(() =>
            document.querySelector("#log-table th[aria-sort=descending]")?.textContent === "Score"
          );
          const rows = await page.locator("#log-table tbody tr").evaluateAll((trs) =>
            trs.map((tr) => Number((tr as HTMLElement).dataset.index))
          );
          assert.deepEqual(rows.slice(0, scored.length), scored.map((e) => e.trace_index));
          // Error entries come last.
          assert.deepEqual(
            rows.slice(scored.length),
            expected.filter((e) => e.error !== undefined).map((e) => e.trace_index),
          );
          const top = scored[0]!;
          await page.getByRole("button", { name: `Show trace ${top.trace_index}`, exact: true })
            .click();
          const detail = page.locator(`#trace-detail[data-index="${top.trace_index}"]`);
          await detail.waitFor();
          const log = JSON.parse(
            await Deno.readTextFile(await logPath(model, "traces.json")),
          ) as { events: { name: string }[] }[];
          assert.deepEqual(
            await detail.locator(".event-list li strong").allTextContents(),
            log[top.trace_index]!.events.map((e) => e.name),
          );
          const coloured = await page.locator("#net-svg .node.transition").evaluateAll((nodes) =>
            nodes.map((n) => [
              (n as SVGElement).dataset.id,
              (n as SVGElement).dataset.measure,
              Number((n as SVGElement).dataset.value),
            ])
          );
          assert.deepEqual(
            Object.fromEntries(coloured.map(([id, measure, value]) => [id, [measure, value]])),
            Object.fromEntries(
              Object.entries(top.per_transition_residuals!).map(([id, r]) => [id, ["residual", r]]),
            ),
          );
          // Sorting by trace index, then back.
          await page.getByRole("button", { name: "Trace", exact: true }).click();
          await page.waitForFunction(() =>
            document.querySelector("#log-table tbody tr")?.getAttribute("data-index") === "0"
          );
        },
      );

      if (backend === "webgpu") {
        await t.step("scored on WebGPU: batch's layout, numbers within 1e-5", async () => {
          await page.getByLabel("Score on").selectOption("webgpu");
          await page.evaluate(() =>
            document.querySelector("#log")!.setAttribute("data-state", "x")
          );
          await page.getByRole("button", { name: "Score the log" }).click();
          assert.equal(await waitLogEnd(page), "done");
          assertMatchesPetra(
            await downloadResult(page, "json"),
            await cliOutput(model, "traces.json"),
          );
          await page.getByLabel("Score on").selectOption("wasm");
        });
      }

      await t.step("cancel stops the run; the worker scores the next log", async () => {
        const large = await largeLog(1_000_000);
        await startLog(page, large);
        await page.getByRole("button", { name: "Cancel" }).click();
        assert.equal(await waitLogEnd(page, 10_000), "cancelled");
        assert.equal(await page.locator("#log-progress").isHidden(), true);
        const text = await page.locator("#log-progress-text").textContent();
        assert.doesNotMatch(text ?? "", /^100% read/, "it was cancelled before the end");
        await page.waitForTimeout(500);
        assert.equal(await page.locator("#log-progress-text").textContent(), text);
        assert.equal(await scoreLogFile(page, await logPath(model, "traces.csv")), "done");
        assert.equal(await downloadResult(page, "json"), await cliOutput(model, "traces.csv"));
      });

      await t.step("no request carries the log: all are GETs of the site's own files", async () => {
        const logs = await Promise.all(
          RECORDED_MODELS.flatMap((m) => LOGS.map((l) => logPath(m, l))),
        );
        assert.ok(requests.length > 0);
        const origin = `${site.origin}/playground/`;
        for (const request of requests) {
          const url = request.url();
          if (url.startsWith("blob:") || url.startsWith("data:")) continue;
          assert.equal(request.method(), "GET", url);
          assert.equal(request.postDataBuffer(), null, url);
          assert.ok(url.startsWith(origin), `${url} is not one of the site's files`);
          assert.doesNotMatch(url, /traces|large_|case-|\.xes|\.csv|\.jsonl/, url);
        }
        // The worker's own requests are recorded too: on the WebGPU page only the worker (on
        // WASM) fetches ORT's plain WASM build.
        const urls = requests.map((r) => r.url());
        assert.ok(urls.some((u) => u.endsWith("/score_worker.js")), "the worker script");
        if (backend === "webgpu") {
          // ORT's plain WASM build (its name may carry a content hash), not the asyncify one.
          const plain = /\/ort\/ort-wasm-simd-threaded(-[A-Z0-9]+)?\.wasm$/;
          assert.ok(urls.some((u) => plain.test(u)), urls.join());
        }
        assert.ok(logs.length > 0);
      });

      assert.deepEqual(errors, []);
    },
  });
}
