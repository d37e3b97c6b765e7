/**
 * An accessibility check of the playground with axe-core (npm), injected into the page in
 * Debian's Chromium: the page with a log scored, its results table, a trace's detail and the
 * net coloured by it, at 1280×800 and at 390×844. The test fails on any serious or critical
 * violation; every violation found is written to `tests/artifacts/axe-playground.json`. It also
 * checks the accessible names the issue asks for: the log's file input names "event log", and
 * the JSON download is a button named with "Download" and "JSON".
 *
 * @module
 */

// Callbacks passed to page.evaluate run in the page: type them with the DOM's names.
/// <reference lib="dom" />

import assert from "node:assert/strict";
import axe from "axe-core";
import type { Page } from "playwright-core";
import { CONFORMANCE } from "../conformance/fixtures.ts";
import { hasChromium, launchChromium } from "./browser.ts";
import { openBundleFiles, scoreLogFile } from "./log_page.ts";
import { waitReady } from "./page.ts";
import { startSite } from "./site.ts";

const REPORT = new URL("../artifacts/axe-playground.json", import.meta.url);

/** One axe violation, as the report keeps it. */
interface Violation {
  readonly id: string;
  readonly impact: string | null;
  readonly help: string;
  readonly targets: readonly string[];
}

async function axeViolations(page: Page): Promise<Violation[]> {
  if (!await page.evaluate(() => "axe" in globalThis)) {
    await page.addScriptTag({ content: axe.source });
  }
  return await page.evaluate(async () => {
    const run = (globalThis as unknown as {
      axe: { run(context: Document, options: object): Promise<{ violations: unknown[] }> };
    }).axe.run;
    const { violations } = await run(document, { resultTypes: ["violations"] });
    return (violations as {
      id: string;
      impact: string | null;
      help: string;
      nodes: { target: string[] }[];
    }[]).map((v) => ({
      id: v.id,
      impact: v.impact,
      help: v.help,
      targets: v.nodes.map((n) => n.target.join(" ")),
    }));
  });
}

Deno.test({
  name: "the playground passes axe-core with a scored log, on a desktop and a phone",
  ignore: !hasChromium() && !Deno.env.get("CI"),
  async fn() {
    await using site = await startSite();
    await using browser = await launchChromium("wasm");
    // axe-core is injected as an inline script, which the page's own CSP refuses (as it should).
    const page = await browser.newPage({ viewport: { width: 1280, height: 800 }, bypassCSP: true });
    await page.goto(site.pageUrl("wasm"));
    await waitReady(page);
    // The names the issue asks for.
    assert.equal(await page.getByLabel(/event log/).getAttribute("type"), "file");
    const folder = new URL("credit_approval_coloured/", CONFORMANCE).pathname;
    await openBundleFiles(
      page,
      [`${folder}model.pt`, `${folder}model.pt.meta.json`],
      "credit_approval_coloured",
    );
    assert.equal(await scoreLogFile(page, `${folder}traces.json`), "done");
    const download = page.getByRole("button", { name: /Download JSON \(/ });
    assert.match(await download.textContent() ?? "", /Download.*JSON/);
    await page.locator("#log-table tbody tr button").first().click();
    await page.locator("#trace-detail").waitFor();

    const report: Record<string, Violation[]> = {};
    report["1280x800"] = await axeViolations(page);
    await page.setViewportSize({ width: 390, height: 844 });
    await page.locator("#log-filter").selectOption("errors");
    await page.locator("#log-table tbody tr[data-error]").first().waitFor();
    report["390x844"] = await axeViolations(page);
    await Deno.mkdir(new URL(".", REPORT), { recursive: true });
    await Deno.writeTextFile(REPORT, JSON.stringify(report, null, 2) + "\n");
    for (const [view, violations] of Object.entries(report)) {
      const serious = violations.filter((v) => v.impact === "serious" || v.impact === "critical");
      assert.deepEqual(serious, [], `${view}: serious violations (see ${REPORT.pathname})`);
    }
  },
});
