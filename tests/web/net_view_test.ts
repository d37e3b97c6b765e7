/**
 * The playground's net view on real-sized nets, in Debian's Chromium: the 59-place net of the
 * `batch` benchmark (`bench/wide_net.ts`) and a 300-place layered net, at 1280×800 and on a
 * 390×844 phone. The drawing fills its width with legible labels, zooms and pans by buttons,
 * wheel, drag and keyboard, fits, and follows keyboard focus from node to node; hover and focus
 * name a node; the forms list the places that matter (any other found by a search), prefilled
 * from the sidecar's input specs; and no
 * page (the playground, /redoc) scrolls sideways at 390 px. Screenshots of the log view and of
 * the 59-place net at both sizes go to `tests/artifacts/`.
 *
 * @module
 */

// Callbacks passed to page.evaluate run in the page: type them with the DOM's names.
/// <reference lib="dom" />

import assert from "node:assert/strict";
import type { Page } from "playwright-core";
import { compileBundle } from "../../core/bundle/mod.ts";
import type { PetriModel } from "../../core/net/types.ts";
import { writeBundle } from "../../adapter/deno/bundle_files.ts";
import { netStructure } from "../../core/net/structure.ts";
import { layeredModel } from "../../bench/layered_net.ts";
import { wideModel } from "../../bench/wide_net.ts";
import { CONFORMANCE } from "../conformance/fixtures.ts";
import { hasChromium, launchChromium } from "./browser.ts";
import { openBundleFiles, scoreLogFile } from "./log_page.ts";
import { waitReady } from "./page.ts";
import { startSite } from "./site.ts";

const ARTIFACTS = new URL("../artifacts/", import.meta.url);

/** The views the tests look at. */
const DESKTOP = { width: 1280, height: 800 };
const PHONE = { width: 390, height: 844 };

/** Labels are hidden below this zoom (web/net_view.ts's LABEL_MIN_SCALE). */
const LABEL_MIN_SCALE = 0.45;

/** Compiles `model` under `name` into `dir`; returns the two files' paths. */
async function bundleFiles(dir: string, name: string, model: PetriModel): Promise<string[]> {
  const path = `${dir}/${name}.onnx`;
  const bundle = await compileBundle({ ...model, scenarioName: name }, { savedAt: new Date(0) });
  await writeBundle(path, bundle);
  return [path, `${path}.meta.json`];
}

/** The 300-place net, its first-layer places read from attributes like the 59-place one. */
function net300(): PetriModel {
  const model = layeredModel(300, { layers: 12 });
  const sources = [...model.net.initialMarking.keys()];
  return {
    ...model,
    inputMarkingSpec: new Map(sources.map((place, i) => [place, { attribute: `x${i}` }])),
  };
}

interface ViewState {
  scale: number;
  /** The drawing's box on screen. */
  box: { left: number; right: number; top: number; bottom: number; width: number };
  /** The viewport's box on screen. */
  view: { left: number; right: number; top: number; bottom: number; width: number };
  labelsHidden: boolean;
  /** The on-screen height of the first label's glyphs. */
  labelPx: number;
}

function viewState(page: Page): Promise<ViewState> {
  return page.evaluate(() => {
    const svg = document.querySelector<SVGSVGElement>("#net-svg")!;
    const layer = svg.querySelector("g.zoom-layer")!;
    const rect = (e: Element) => {
      const r = e.getBoundingClientRect();
      return { left: r.left, right: r.right, top: r.top, bottom: r.bottom, width: r.width };
    };
    const label = svg.querySelector("text.label")!;
    const scale = Number(svg.dataset.scale);
    return {
      scale,
      box: rect(layer),
      view: rect(svg.parentElement!),
      labelsHidden: svg.classList.contains("labels-hidden"),
      labelPx: parseFloat(getComputedStyle(label).fontSize) * scale,
    };
  });
}

async function noSidewaysScroll(page: Page, where: string): Promise<void> {
  const [scrollWidth, clientWidth, scrolled] = await page.evaluate(() => {
    scrollTo(10_000, scrollY);
    const x = scrollX;
    scrollTo(0, scrollY);
    return [document.documentElement.scrollWidth, document.documentElement.clientWidth, x];
  });
  assert.ok(scrollWidth <= clientWidth, `${where}: ${scrollWidth} px wide in ${clientWidth}`);
  assert.equal(scrolled, 0, `${where} scrolls sideways`);
}

function artifact(name: string): string {
  Deno.mkdirSync(ARTIFACTS, { recursive: true });
  return decodeURIComponent(new URL(name, ARTIFACTS).pathname);
}

Deno.test({
  name: "the net view on 59- and 300-place nets, on a desktop and a phone",
  ignore: !hasChromium() && !Deno.env.get("CI"),
  async fn(t) {
    const dir = await Deno.makeTempDir({ prefix: "petri_net_view_" });
    try {
      const wide = await bundleFiles(dir, "wide59", wideModel());
      const large = await bundleFiles(dir, "wide300", net300());
      await using site = await startSite();
      await using browser = await launchChromium("wasm");
      const page = await browser.newPage({ viewport: DESKTOP });
      const errors: string[] = [];
      page.on("pageerror", (e) => errors.push(e.message));
      await page.goto(site.pageUrl("wasm"));
      await waitReady(page);

      await t.step("59 places: the drawing fills the width, labels legible", async () => {
        await openBundleFiles(page, wide, "wide59");
        assert.equal(await page.locator("#net-svg .node.place").count(), 59);
        const state = await viewState(page);
        assert.ok(state.box.width >= 0.95 * state.view.width, JSON.stringify(state));
        assert.equal(state.labelsHidden, false);
        assert.ok(state.labelPx >= 7.5, `labels are ${state.labelPx} px`);
        await noSidewaysScroll(page, "the playground with the 59-place net");
      });

      await t.step("zooms and pans by buttons, wheel, drag and keyboard; fits", async () => {
        await page.locator("#net").scrollIntoViewIfNeeded();
        const start = await viewState(page);
        await page.getByRole("button", { name: "Zoom in" }).click();
        assertClose((await viewState(page)).scale, start.scale * 1.25);
        await page.getByRole("button", { name: "Zoom out" }).click();
        assertClose((await viewState(page)).scale, start.scale);
        // The wheel zooms around the pointer: the drawing point under it stays under it.
        const at = { x: start.view.left + 300, y: start.view.top + 200 };
        const drawingPoint = (s: ViewState) => ({
          x: (at.x - s.box.left) / s.scale,
          y: (at.y - s.box.top) / s.scale,
        });
        const before = drawingPoint(await viewState(page));
        await page.mouse.move(at.x, at.y);
        await page.mouse.wheel(0, -300);
        await page.waitForFunction((s) =>
          Number(
            document.querySelector<SVGSVGElement>("#net-svg")!
              .dataset.scale,
          ) > s, start.scale);
        const zoomed = await viewState(page);
        assert.ok(zoomed.scale > start.scale * 1.5, `the wheel zoomed to ${zoomed.scale}`);
        const after = drawingPoint(zoomed);
        assert.ok(
          Math.hypot(after.x - before.x, after.y - before.y) < 2,
          "anchored at the pointer",
        );
        // Dragging moves the drawing with the pointer.
        await page.mouse.move(at.x, at.y);
        await page.mouse.down();
        await page.mouse.move(at.x - 80, at.y - 40, { steps: 5 });
        await page.mouse.up();
        const dragged = await viewState(page);
        assertClose(dragged.box.left, zoomed.box.left - 80, 1);
        assertClose(dragged.box.top, zoomed.box.top - 40, 1);
        // Keys on the drawing: arrows pan, + and - zoom, 0 fits it whole.
        await page.locator(".net-viewport").focus();
        await page.keyboard.press("ArrowRight");
        assertClose((await viewState(page)).box.left, dragged.box.left - 60, 1);
        await page.keyboard.press("-");
        assertClose((await viewState(page)).scale, dragged.scale / 1.25);
        await page.keyboard.press("0");
        const fitted = await viewState(page);
        for (const side of ["left", "top"] as const) {
          assert.ok(fitted.box[side] >= fitted.view[side] - 1, `fits: ${side}`);
        }
        for (const side of ["right", "bottom"] as const) {
          assert.ok(fitted.box[side] <= fitted.view[side] + 1, `fits: ${side}`);
        }
        await page.getByRole("button", { name: "Fit the net to the view" }).click();
        assertClose((await viewState(page)).scale, fitted.scale);
      });

      await t.step(
        "hover and keyboard focus name a node; focus moves and is kept in view",
        async () => {
          const node = page.locator("#net-svg .node.transition").first();
          const id = await node.getAttribute("data-id");
          await node.hover();
          const tooltip = page.locator("#net-tooltip");
          await tooltip.waitFor({ state: "visible" });
          const text = await tooltip.textContent() ?? "";
          assert.match(text, new RegExp(`transition ${id}`));
          assert.match(text, /label: /);
          assert.match(text, /activation: \d/);
          // Zoom in, then walk the nodes with the keyboard to the last one: it is brought in view.
          for (let i = 0; i < 4; i++) await page.getByRole("button", { name: "Zoom in" }).click();
          await page.locator("#net-svg .node[tabindex='0']").focus();
          await page.keyboard.press("End");
          const focused = await page.evaluate(() => {
            const element = document.activeElement as SVGGElement;
            const box = element.getBoundingClientRect();
            const view = document.querySelector(".net-viewport")!.getBoundingClientRect();
            return {
              id: element.dataset.id,
              inside: box.left >= view.left && box.right <= view.right && box.top >= view.top &&
                box.bottom <= view.bottom,
            };
          });
          assert.ok(focused.inside, `${focused.id} is in view`);
          assert.equal(await tooltip.getAttribute("data-id"), focused.id);
          assert.equal(await tooltip.isVisible(), true);
          await page.keyboard.press("ArrowLeft");
          assert.notEqual(
            await page.evaluate(() => (document.activeElement as SVGGElement).dataset.id),
            focused.id,
          );
        },
      );

      await t.step(
        "the forms list the places that matter, prefilled from the sidecar's specs",
        async () => {
          const set = page.locator("#form-forward fieldset[data-field=input_marking]");
          const inputs = set.locator(".map-rows input");
          // The net's inputs: the places the sidecar reads, and those no arc fills.
          const { net } = wideModel();
          const listed = new Set([
            ...wideModel().inputMarkingSpec.keys(),
            ...netStructure(net).sourcePlaces,
          ]);
          assert.equal(await inputs.count(), listed.size);
          // Any other place is found by its id.
          await set.getByLabel("Find a place").fill(net.places.at(-1)!);
          assert.equal(await inputs.count(), 1);
          await set.getByLabel("Find a place").fill("");
          // The wide net reads its first-layer places from x0 … x6.
          const sources = [...wideModel().inputMarkingSpec.keys()];
          for (const [i, place] of sources.entries()) {
            const input = set.getByLabel(place, { exact: true });
            assert.equal(await input.getAttribute("placeholder"), `attribute x${i}`);
            assert.match(
              await page.locator(`#${await input.getAttribute("id")}-source`).textContent() ?? "",
              new RegExp(`from attribute x${i}$`),
            );
          }
          // PETRA's triage model sets p_ticket to the constant 1: its box starts at 1.
          const folder = new URL("triage_softmax_ste/", CONFORMANCE).pathname;
          await openBundleFiles(
            page,
            [`${folder}model.pt`, `${folder}model.pt.meta.json`],
            "triage_softmax_ste",
          );
          const triage = page.locator("#form-forward fieldset[data-field=input_marking]");
          assert.equal(await triage.locator(".map-rows input").count(), 9);
          assert.equal(await triage.getByLabel("p_ticket", { exact: true }).inputValue(), "1");
          assert.equal(await triage.getByLabel("p_triaged", { exact: true }).inputValue(), "");
          assert.equal(
            await triage.getByLabel("p_triaged", { exact: true }).getAttribute("placeholder"),
            "attribute severity",
          );
          for (const input of await triage.locator(".map-rows input").all()) {
            assert.equal(await input.isVisible(), true);
          }
        },
      );

      await t.step("300 places: laid out, legible at the start, every node reachable", async () => {
        await openBundleFiles(page, large, "wide300");
        assert.equal(await page.locator("#net-svg .node").count(), 300 + 220);
        const state = await viewState(page);
        assert.ok(state.box.width >= 0.95 * state.view.width);
        assert.ok(state.scale >= LABEL_MIN_SCALE, `starts at ${state.scale}`);
        assert.ok(state.labelPx >= 7.5, `labels are ${state.labelPx} px`);
        await page.locator("#net-svg .node[tabindex='0']").focus();
        await page.keyboard.press("End");
        const inside = await page.evaluate(() => {
          const box = document.activeElement!.getBoundingClientRect();
          const view = document.querySelector(".net-viewport")!.getBoundingClientRect();
          return box.top >= view.top && box.bottom <= view.bottom;
        });
        assert.ok(inside, "the last node was brought into view");
        await noSidewaysScroll(page, "the playground with the 300-place net");
      });

      await t.step(
        "screenshots of the log view and the 59-place net, desktop and phone",
        async () => {
          const credit = new URL("credit_approval_coloured/", CONFORMANCE).pathname;
          for (const [name, size] of [["1280x800", DESKTOP], ["390x844", PHONE]] as const) {
            await page.setViewportSize(size);
            await openBundleFiles(
              page,
              [`${credit}model.pt`, `${credit}model.pt.meta.json`],
              "credit_approval_coloured",
            );
            assert.equal(await scoreLogFile(page, `${credit}traces.json`), "done");
            await page.locator("#log-table tbody tr button").first().click();
            await page.locator("#log").screenshot({ path: artifact(`log-view-${name}.png`) });
            await noSidewaysScroll(page, `the log view at ${name}`);
            await openBundleFiles(page, wide, "wide59");
            await page.locator("#net").screenshot({ path: artifact(`net-59-${name}.png`) });
            await noSidewaysScroll(page, `the 59-place net at ${name}`);
          }
        },
      );

      await t.step("at 390 px: the phone lays the net top to bottom, legibly", async () => {
        const state = await viewState(page);
        assert.equal(state.labelsHidden, false);
        assert.ok(state.labelPx >= 7.5, `labels are ${state.labelPx} px`);
        // Top to bottom: the transitions' bars lie across the flow.
        const bar = await page.locator("#net-svg .node.transition rect").first().evaluate((r) => [
          Number(r.getAttribute("width")),
          Number(r.getAttribute("height")),
        ]);
        assert.ok(bar[0]! > bar[1]!, `a bar is ${bar[0]}×${bar[1]}`);
      });

      await t.step(
        "no sideways scroll at 390 px: every operation's answer, and /redoc",
        async () => {
          await openBundleFiles(page, wide, "wide59");
          for (const kind of ["forward", "anomaly", "counterfactual", "sensitivity"]) {
            await page.locator(`input[name=operation][value=${kind}]`).check();
            const runs = Number(await page.locator(`#result-${kind}`).getAttribute("data-run"));
            await page.locator(`#${kind}-run`).click();
            await page.waitForFunction(
              ([k, n]) =>
                Number(document.getElementById(`result-${k}`)?.dataset.run) > Number(n) ||
                !document.getElementById(`${k}-issues`)!.hidden,
              [kind, runs] as const,
            );
            await noSidewaysScroll(page, `the playground after ${kind}`);
            // Tables fit too: none is wider than its scroll box.
            const clipped = await page.locator(`#result-${kind} .table-wrap`).evaluateAll((ws) =>
              ws.filter((w) => w.scrollWidth > w.clientWidth + 1).length
            );
            assert.equal(clipped, 0, `${kind}: a table is clipped`);
          }
          await page.goto(`${site.origin}/redoc`);
          await page.locator("h1").first().waitFor();
          await page.waitForTimeout(1000);
          await noSidewaysScroll(page, "/redoc");
        },
      );

      assert.deepEqual(errors, []);
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  },
});

function assertClose(actual: number, expected: number, atol = 1e-3): void {
  assert.ok(
    Math.abs(actual - expected) <= atol + 1e-3 * Math.abs(expected),
    `${actual} is not ${expected}`,
  );
}
