/**
 * End-to-end tests of the playground in Debian's Chromium, once on WASM and once on WebGPU
 * (SwiftShader): the built site is served on 127.0.0.1 beside the HTTP service of the same
 * example model, the page runs each operation from its forms, and the numbers it shows must
 * equal the service's answers to the same requests (within 1e-6 on WASM, 1e-5 on WebGPU).
 * Screenshots go to `tests/artifacts/`.
 *
 * @module
 */

// Callbacks passed to page.evaluate run in the page: type them with the DOM's names.
/// <reference lib="dom" />

import assert from "node:assert/strict";
import { Buffer } from "node:buffer";
import type { Page } from "playwright-core";
import { compileBundle, loadBundle } from "../../core/bundle/mod.ts";
import { parseModelDescription } from "../../core/net/parse.ts";
import { counterfactual } from "../../core/ops/counterfactual.ts";
import { ORT } from "../ort.ts";
import { type BackendName, hasChromium, launchChromium } from "./browser.ts";
import {
  assertJsonClose,
  type Body,
  fillForm,
  type Kind,
  readAnswer,
  resultRuns,
  runOperation,
  selectOperation,
  waitForRun,
  waitReady,
} from "./page.ts";
import { EXAMPLE_ONNX, startSite } from "./site.ts";

const ARTIFACTS = new URL("../artifacts/", import.meta.url);
const TRIAGE = new URL(
  "../fixtures/conformance/triage_softmax_ste/model.json",
  import.meta.url,
);

/** Requests run on the page and sent to the service; each is entered into the form. */
const REQUESTS: Readonly<Record<Kind, Body>> = {
  forward: { input_marking: { p_submitted: 0.8 }, input_values: { p_submitted: 1200 } },
  anomaly: {
    input_marking: { p_submitted: 1 },
    input_values: { p_submitted: 800 },
    events: [{ name: "approve loan" }, { name: "no such step" }],
    attributes: { case_id: "loan-7" },
  },
  counterfactual: {
    input_marking: { p_submitted: 1 },
    input_values: { p_submitted: 5000 },
    flip_place: "p_submitted",
    target_transition: "t_approve",
    flip_channel: "value",
    search_range: [0, 10000],
    tolerance: 0.001,
  },
  sensitivity: {
    input_marking: { p_submitted: 1 },
    input_values: { p_submitted: 1500 },
    target_transition: "t_decline",
  },
};

/** Conformance exchange #78 of the triage STE model: t_escalate jumps from 0 to 1 near 0.798. */
const STE_JUMP: Body = {
  input_marking: { p_escalate_req: 0, p_ticket: 1, p_triaged: 0.92 },
  flip_place: "p_escalate_req",
  target_transition: "t_escalate",
};

const PASTED_EVENTS: Body = {
  ...REQUESTS.anomaly,
  events: [{ name: "decline loan", attributes: { amount: 800 } }, { name: "approve loan" }],
};

const TOLERANCE: Readonly<Record<BackendName, { atol: number; rtol: number }>> = {
  wasm: { atol: 1e-6, rtol: 0 },
  webgpu: { atol: 1e-5, rtol: 0 },
};

for (const backend of ["wasm", "webgpu"] as const) {
  Deno.test({
    name: `playground (${backend})`,
    // Without Chromium the suite is skipped on a developer's machine; CI installs it (.ci/run).
    ignore: !hasChromium() && !Deno.env.get("CI"),
    async fn(t) {
      await using site = await startSite();
      await using browser = await launchChromium(backend);
      const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
      const foreign: string[] = [];
      const errors: string[] = [];
      page.on("request", (r) => {
        if (!r.url().startsWith(site.origin) && !r.url().startsWith("data:")) foreign.push(r.url());
      });
      page.on("pageerror", (e) => errors.push(e.message));
      const tolerance = TOLERANCE[backend];

      await t.step(`loads the example and draws the net on ${backend}`, async () => {
        await page.goto(site.pageUrl(backend));
        await waitReady(page);
        assert.equal(await page.evaluate(() => document.body.dataset.backend), backend);
        assert.equal(await page.locator(`input[name=backend][value=${backend}]`).isChecked(), true);
        const label = backend === "webgpu" ? "WebGPU" : "WASM";
        assert.match(await page.locator("#backend-status").textContent() ?? "", new RegExp(label));
        assert.equal(await page.locator("#net-svg .node.place").count(), 3);
        assert.equal(await page.locator("#net-svg .node.transition").count(), 2);
        assert.equal(await page.locator("#net-svg .edge.arc").count(), 4);
        // The first forward run coloured the nodes.
        assert.equal(await page.locator("#net-svg .node[data-value]").count(), 5);
      });

      await t.step("shows a node's id, label and value on hover", async () => {
        await page.locator("#net-svg .node[data-id=t_approve]").hover();
        const tooltip = page.locator("#net-tooltip");
        await tooltip.waitFor({ state: "visible" });
        const text = await tooltip.textContent() ?? "";
        assert.match(text, /t_approve/);
        assert.match(text, /approve loan/);
        assert.match(text, /activation: 0\.\d+/);
      });

      for (const kind of ["forward", "anomaly", "counterfactual", "sensitivity"] as const) {
        await t.step(`runs ${kind} on the example and matches the HTTP service`, async () => {
          await selectOperation(page, kind);
          await fillForm(page, kind, REQUESTS[kind]);
          await runOperation(page, kind);
          const served = await site.post(`/${kind}`, REQUESTS[kind]);
          assert.equal(served.status, 200);
          assertJsonClose(await readAnswer(page, kind), served.body, tolerance);
        });
      }

      await t.step("runs anomaly on pasted JSON events", async () => {
        await selectOperation(page, "anomaly");
        await fillForm(page, "anomaly", PASTED_EVENTS, { pasteEvents: true });
        await runOperation(page, "anomaly");
        const served = await site.post("/anomaly", PASTED_EVENTS);
        assertJsonClose(await readAnswer(page, "anomaly"), served.body, tolerance);
      });

      await t.step("draws the counterfactual curve and sensitivity bars", async () => {
        const served = (await site.post("/counterfactual", REQUESTS.counterfactual)).body as {
          counterfactual_input: number;
        };
        await selectOperation(page, "counterfactual");
        const boundary = page.locator("#result-counterfactual svg.chart-curve circle.boundary");
        const x = Number(await boundary.getAttribute("data-x"));
        assertJsonClose(x, served.counterfactual_input, tolerance);
        assert.equal(
          await page.locator("#result-counterfactual svg.chart-curve path.curve").count(),
          1,
        );
        await page.locator("#panel-counterfactual").screenshot({
          path: artifact(`playground-${backend}-counterfactual.png`),
        });

        const gradients = (await site.post("/sensitivity", REQUESTS.sensitivity)).body as {
          marking_gradients: Record<string, number>;
          value_gradients: Record<string, number>;
        };
        await selectOperation(page, "sensitivity");
        const bars = page.locator("#result-sensitivity svg.chart-bars rect.bar");
        const expected = Object.keys(gradients.marking_gradients).length +
          Object.keys(gradients.value_gradients).length;
        assert.equal(await bars.count(), expected);
        await page.screenshot({ path: artifact(`playground-${backend}.png`), fullPage: true });
      });

      await t.step("reports an invalid request as the service does", async () => {
        const body = { ...REQUESTS.counterfactual, tolerance: -1 };
        await selectOperation(page, "counterfactual");
        await fillForm(page, "counterfactual", body);
        const before = await resultRuns(page, "counterfactual");
        await page.locator("#counterfactual-run").click();
        const issues = page.locator("#counterfactual-issues");
        await issues.waitFor({ state: "visible" });
        const served = await site.post("/counterfactual", body);
        assert.equal(served.status, 422);
        const detail = (served.body as { detail: { msg: string }[] }).detail[0]!;
        assert.match(await issues.textContent() ?? "", new RegExp(escape(detail.msg)));
        assert.equal(
          await page.locator("#counterfactual-tolerance").getAttribute("aria-invalid"),
          "true",
        );
        assert.equal(await resultRuns(page, "counterfactual"), before);
        await fillForm(page, "counterfactual", REQUESTS.counterfactual);
      });

      await t.step("works from the keyboard, with labels and visible focus", async () => {
        await selectOperation(page, "forward");
        const unlabelled = await page.locator("main input, main select, main textarea")
          .evaluateAll((controls) =>
            controls.filter((c) => {
              const control = c as HTMLInputElement;
              return control.labels?.length === 0 && !control.getAttribute("aria-label");
            }).map((c) => c.outerHTML.slice(0, 80))
          );
        assert.deepEqual(unlabelled, []);
        const input = page.locator("#form-forward fieldset[data-field=input_marking]")
          .getByLabel("p_submitted", { exact: true });
        await input.focus();
        await page.keyboard.press("Shift+Tab");
        await page.keyboard.press("Tab");
        const outline = await page.evaluate(() => {
          const style = getComputedStyle(document.activeElement!);
          return `${style.outlineStyle} ${style.outlineWidth}`;
        });
        assert.match(outline, /^solid [1-9]/);
        await page.keyboard.press("Control+A");
        await page.keyboard.type("0.25");
        const before = await resultRuns(page, "forward");
        await page.keyboard.press("Enter");
        await waitForRun(page, "forward", before + 1);
        const served = await site.post("/forward", {
          input_marking: { p_submitted: 0.25 },
          input_values: REQUESTS.forward.input_values,
        });
        assertJsonClose(await readAnswer(page, "forward"), served.body, tolerance);
      });

      await t.step("fits a 360 px wide screen", async () => {
        await page.setViewportSize({ width: 360, height: 800 });
        const overflow = await page.evaluate(() => document.documentElement.scrollWidth);
        assert.ok(overflow <= 360, `the page is ${overflow} px wide`);
        await page.screenshot({ path: artifact(`playground-${backend}-360.png`), fullPage: true });
        await page.setViewportSize({ width: 1280, height: 900 });
      });

      if (backend === "webgpu") {
        await t.step("switches to WASM and back", async () => {
          await switchBackend(page, "wasm");
          const served = await site.post("/forward", REQUESTS.forward);
          await fillForm(page, "forward", REQUESTS.forward);
          await runOperation(page, "forward");
          assertJsonClose(await readAnswer(page, "forward"), served.body, TOLERANCE.wasm);
          await switchBackend(page, "webgpu");
        });
      } else {
        await t.step("offers WebGPU only when the browser has an adapter", async () => {
          const adapter = await page.evaluate(async () =>
            Boolean(
              await (navigator as { gpu?: { requestAdapter(): Promise<unknown> } }).gpu
                ?.requestAdapter(),
            )
          );
          assert.equal(
            await page.locator("input[name=backend][value=webgpu]").isDisabled(),
            !adapter,
          );
        });
      }

      await t.step("loads a second bundle picked with the file input", async () => {
        const triage = await compileBundle(
          parseModelDescription(JSON.parse(await Deno.readTextFile(TRIAGE))),
          { savedAt: new Date("2026-01-01T00:00:00Z") },
        );
        await page.locator("#bundle-files").setInputFiles([
          file("triage.onnx", triage.onnx),
          file("triage.onnx.meta.json", new TextEncoder().encode(triage.sidecar)),
        ]);
        await page.waitForFunction(() => document.body.dataset.model === "triage_softmax_ste");
        await waitForRun(page, "forward", 1);
        assert.equal(await page.locator("#net-svg .node").count(), 16);
        assert.equal(await page.locator("#net-svg .edge.inhibitor").count(), 1);
        assert.equal(await page.locator("#net-svg .node[data-value]").count(), 16);
        assert.equal(await page.locator("#bundle-error").isHidden(), true);
      });

      await t.step("draws a straight-through jump as a step at the boundary", async () => {
        const expected = await triageCounterfactual(STE_JUMP);
        await selectOperation(page, "counterfactual");
        await fillForm(page, "counterfactual", STE_JUMP);
        await runOperation(page, "counterfactual");
        const answer = await readAnswer(page, "counterfactual");
        assertJsonClose(answer, expected, tolerance);
        // PETRA reports the flip at 0.797882080078125, activation 0 -> 1.
        assert.equal(answer.found, true);
        assert.equal(answer.original_activation, 0);
        assert.equal(answer.counterfactual_activation, 1);
        assert.ok(Math.abs((answer.counterfactual_input as number) - 0.797882080078125) < 0.01);

        const chart = page.locator("#result-counterfactual svg.chart-curve");
        const step = chart.locator("line.step");
        assert.equal(await step.count(), 1);
        assertJsonClose(Number(await step.getAttribute("data-x")), answer.counterfactual_input, {
          atol: 0,
        });
        assert.equal(await step.getAttribute("data-from"), "0");
        assert.equal(await step.getAttribute("data-to"), "1");
        assert.equal(await chart.locator("circle.boundary.jump").count(), 1);
        assert.match(await chart.getAttribute("aria-label") ?? "", /decision flips at 0\.79/);
        // The curve itself rises vertically at the step: two consecutive points at the same x,
        // on either side of the 0.5 line, at the step's x.
        const [x1, half] = await Promise.all([
          step.getAttribute("x1"),
          chart.locator("line.half").getAttribute("y1"),
        ]);
        const d = await chart.locator("path.curve").getAttribute("d") ?? "";
        const points = [...d.matchAll(/[ML](-?[\d.]+) (-?[\d.]+)/g)].map((m) => [
          Number(m[1]),
          Number(m[2]),
        ]);
        const vertical = points.slice(1).filter(([x, y], i) => {
          const [px, py] = points[i]!;
          return Math.abs(x! - px!) < 0.02 && Math.abs(x! - Number(x1)) < 0.02 &&
            (py! - Number(half)) * (y! - Number(half)) < 0;
        });
        assert.equal(vertical.length, 1, `no vertical segment at x ${x1} in ${d}`);
        await page.locator("#panel-counterfactual").screenshot({
          path: artifact(`playground-${backend}-counterfactual-ste.png`),
        });
      });

      await t.step("shows bundle errors in plain words and keeps the loaded model", async () => {
        const onnx = await Deno.readFile(EXAMPLE_ONNX);
        const sidecar = JSON.parse(await Deno.readTextFile(`${EXAMPLE_ONNX.pathname}.meta.json`));
        const cases: [string, ReturnType<typeof file>[], RegExp][] = [
          ["missing sidecar", [file("credit.onnx", onnx)], /credit\.onnx\.meta\.json is missing/],
          [
            "hash mismatch",
            [
              file("credit.onnx", onnx),
              json("credit.onnx.meta.json", { ...sidecar, onnx_sha256: "0".repeat(64) }),
            ],
            /credit\.onnx does not match credit\.onnx\.meta\.json/,
          ],
          [
            "not a petri-serve bundle",
            [file("other.onnx", new Uint8Array([1, 2, 3])), json("other.onnx.meta.json", {})],
            /other\.onnx\.meta\.json has no format field/,
          ],
        ];
        for (const [what, files, message] of cases) {
          await page.locator("#bundle-files").setInputFiles(files);
          const error = page.locator("#bundle-error");
          await page.waitForFunction(
            (source) =>
              new RegExp(source).test(document.getElementById("bundle-error")!.textContent!),
            message.source,
          );
          assert.equal(await error.isVisible(), true, what);
          assert.match(await error.textContent() ?? "", /^Cannot load bundle: /);
          assert.equal(await page.locator("#net-svg .node").count(), 16, what);
        }
        await page.screenshot({ path: artifact(`playground-${backend}-error.png`) });
        await page.locator("#load-example").click();
        await page.waitForFunction(() =>
          document.body.dataset.model === "credit_approval_coloured"
        );
        assert.equal(await page.locator("#net-svg .node").count(), 5);
        assert.equal(await page.locator("#bundle-error").isHidden(), true);
      });

      await t.step("opens PETRA's own .pt bundle and gives PETRA's recorded answer", async () => {
        const folder = new URL("../fixtures/conformance/resource_lock/", import.meta.url);
        await page.locator("#bundle-files").setInputFiles([
          file("lock.pt", await Deno.readFile(new URL("model.pt", folder))),
          file("lock.pt.meta.json", await Deno.readFile(new URL("model.pt.meta.json", folder))),
        ]);
        await page.waitForFunction(() => document.body.dataset.model === "resource_lock_mutex");
        assert.equal(await page.locator("#net-svg .node").count(), 7);
        assert.equal(await page.locator("#net-svg .edge.inhibitor").count(), 2);
        assert.equal(await page.locator("#bundle-error").isHidden(), true);
        // Exchange 10 of the recording: a partial marking, compared exactly.
        const exchange = (await Deno.readTextFile(new URL("exchanges.jsonl", folder)))
          .split("\n").filter(Boolean).map((line) => JSON.parse(line))
          .find((e) => e.i === 10 && e.path === "/forward");
        assert.equal(exchange?.expect.compare, "exact");
        await selectOperation(page, "forward");
        await fillForm(page, "forward", exchange.body);
        await runOperation(page, "forward");
        assertJsonClose(await readAnswer(page, "forward"), exchange.petra.response, {
          atol: 1e-5,
          rtol: 1e-5,
        });
        const hostile = new URL("../fixtures/conformance/hostile_pt/", import.meta.url);
        await page.locator("#bundle-files").setInputFiles([
          file("exec_os_system.pt", await Deno.readFile(new URL("exec_os_system.pt", hostile))),
          file(
            "exec_os_system.pt.meta.json",
            await Deno.readFile(new URL("exec_os_system.pt.meta.json", hostile)),
          ),
        ]);
        await page.waitForFunction(() =>
          /pickle global 'posix system' is not allowed/.test(
            document.getElementById("bundle-error")!.textContent!,
          )
        );
        assert.match(
          await page.locator("#bundle-error").textContent() ?? "",
          /without running anything in it/,
        );
        assert.equal(await page.locator("#net-svg .node").count(), 7);
      });

      await t.step("made every request to its own origin", () => {
        assert.deepEqual(foreign, []);
        assert.deepEqual(errors, []);
      });
    },
  });
}

async function switchBackend(page: Page, name: BackendName): Promise<void> {
  const before = await resultRuns(page, "forward");
  await page.locator(`input[name=backend][value=${name}]`).check();
  await page.waitForFunction((name) => document.body.dataset.backend === name, name);
  await waitForRun(page, "forward", before + 1);
}

/** The counterfactual answer of core/ops on the triage model, as the page shows it (JSON). */
async function triageCounterfactual(body: Body): Promise<Record<string, unknown>> {
  const bundle = await compileBundle(
    parseModelDescription(JSON.parse(await Deno.readTextFile(TRIAGE))),
    { savedAt: new Date("2026-01-01T00:00:00Z") },
  );
  await using model = await loadBundle(ORT, {
    ...bundle,
    onnxName: "triage.onnx",
    sidecarName: "triage.onnx.meta.json",
  });
  const map = (value: unknown) => new Map(Object.entries(value as Record<string, number>));
  return {
    ...await counterfactual(model, {
      input_marking: map(body.input_marking),
      flip_place: body.flip_place as string,
      target_transition: body.target_transition as string,
    }),
  };
}

function file(name: string, bytes: Uint8Array) {
  return { name, mimeType: "application/octet-stream", buffer: Buffer.from(bytes) };
}

function json(name: string, value: unknown) {
  return { name, mimeType: "application/json", buffer: Buffer.from(JSON.stringify(value)) };
}

function artifact(name: string): string {
  Deno.mkdirSync(ARTIFACTS, { recursive: true });
  return decodeURIComponent(new URL(name, ARTIFACTS).pathname);
}

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}
