/**
 * Driving the playground's event-log section in tests and benchmarks: opening a bundle from
 * files, picking a log, waiting for the scoring to end, and downloading a result, as a user
 * would (the file input found by its accessible name, the download button by its name).
 *
 * @example
 * ```ts
 * import { downloadResult, openBundleFiles, scoreLogFile } from "./log_page.ts";
 * declare const page: import("playwright-core").Page;
 * await openBundleFiles(page, ["model.pt", "model.pt.meta.json"], "paint_shop");
 * await scoreLogFile(page, "traces.xes");
 * const json = await downloadResult(page, "json");
 * ```
 *
 * @module
 */

// Callbacks passed to page.evaluate run in the page: type them with the DOM's names.
/// <reference lib="dom" />

import { AssertionError } from "node:assert/strict";
import type { Page } from "playwright-core";

/** The download buttons' accessible names, by format. */
export const DOWNLOAD_NAMES = {
  json: /^Download JSON \(/,
  jsonl: /^Download JSONL/,
  csv: /^Download CSV/,
} as const;

/** The log section's final states. */
export type LogState = "done" | "error" | "cancelled";

/**
 * Opens a bundle by picking its files, and waits until the page shows scenario `model`.
 *
 * @example
 * ```ts
 * import { openBundleFiles } from "./log_page.ts";
 * declare const page: import("playwright-core").Page;
 * await openBundleFiles(page, ["a.onnx", "a.onnx.meta.json"], "credit_approval_coloured");
 * ```
 */
export async function openBundleFiles(
  page: Page,
  files: readonly string[],
  model: string,
): Promise<void> {
  // Marked first, so that the model already shown (maybe the same scenario) is not taken for
  // the new one.
  await page.evaluate(() => {
    document.body.dataset.state = "picking";
    document.body.dataset.model = "";
  });
  await page.setInputFiles("#bundle-files", [...files]);
  await page.waitForFunction(
    (m) => {
      const { state, model } = document.body.dataset;
      if (state === "picking" || state === "loading") return false;
      return state === "error" || model === m || !document.getElementById("bundle-error")!.hidden;
    },
    model,
    { timeout: 60_000 },
  );
  const shown = await page.evaluate(
    () => [document.body.dataset.state, document.body.dataset.model],
  );
  if (shown[0] !== "ready" || shown[1] !== model) {
    const error = await page.locator("#bundle-error").textContent();
    throw new AssertionError({ message: `The page did not load ${model}: ${error}` });
  }
}

/**
 * Picks `path` in the event-log file input (found by its accessible name) and waits until the
 * log section is done (or failed, or was cancelled); returns that state.
 *
 * @example
 * ```ts
 * import { scoreLogFile } from "./log_page.ts";
 * declare const page: import("playwright-core").Page;
 * (await scoreLogFile(page, "traces.json")) === "done";
 * ```
 */
export async function scoreLogFile(
  page: Page,
  path: string,
  options: { timeout?: number } = {},
): Promise<LogState> {
  await startLog(page, path);
  return await waitLogEnd(page, options.timeout);
}

/**
 * Picks `path` in the event-log file input and returns at once (scoring starts by itself for
 * a log whose format and columns are known).
 *
 * @example
 * ```ts
 * import { startLog } from "./log_page.ts";
 * declare const page: import("playwright-core").Page;
 * await startLog(page, "big.json");
 * ```
 */
export async function startLog(page: Page, path: string): Promise<void> {
  // Mark the section so that a finished earlier run is not taken for this one.
  await page.evaluate(() => document.querySelector("#log")!.setAttribute("data-state", "picked"));
  await page.getByLabel(/event log/).setInputFiles(path);
}

/**
 * Waits until the log section leaves its running states; returns the final state.
 *
 * @example
 * ```ts
 * import { waitLogEnd } from "./log_page.ts";
 * declare const page: import("playwright-core").Page;
 * await waitLogEnd(page, 120_000);
 * ```
 */
export async function waitLogEnd(page: Page, timeout = 60_000): Promise<LogState> {
  await page.waitForFunction(
    () =>
      ["done", "error", "cancelled"].includes(
        document.querySelector<HTMLElement>("#log")!.dataset.state!,
      ),
    null,
    { timeout, polling: 100 },
  );
  return await page.locator("#log").getAttribute("data-state") as LogState;
}

/**
 * Clicks the download button of `format` and returns the downloaded file's text.
 *
 * @example
 * ```ts
 * import { downloadResult } from "./log_page.ts";
 * declare const page: import("playwright-core").Page;
 * const csv = await downloadResult(page, "csv");
 * ```
 */
export async function downloadResult(
  page: Page,
  format: keyof typeof DOWNLOAD_NAMES,
  options: { timeout?: number } = {},
): Promise<string> {
  const [download] = await Promise.all([
    page.waitForEvent("download", { timeout: options.timeout ?? 60_000 }),
    page.getByRole("button", { name: DOWNLOAD_NAMES[format] }).click(),
  ]);
  const path = await download.path();
  const text = await Deno.readTextFile(path);
  await download.delete();
  return text;
}

/**
 * The cells of one CSV line (RFC 4180 quoting).
 *
 * @example
 * ```ts
 * import { csvCells } from "./log_page.ts";
 * csvCells('a,"b ""c""",d'); // ["a", 'b "c"', "d"]
 * ```
 */
export function csvCells(line: string): string[] {
  const cells: string[] = [];
  let at = 0;
  while (at <= line.length) {
    if (line[at] === '"') {
      let text = "";
      at++;
      for (;;) {
        const end = line.indexOf('"', at);
        text += line.slice(at, end);
        at = end + 1;
        if (line[at] === '"') {
          text += '"';
          at++;
        } else break;
      }
      cells.push(text);
      at++;
    } else {
      const end = line.indexOf(",", at);
      const stop = end === -1 ? line.length : end;
      cells.push(line.slice(at, stop));
      at = stop + 1;
    }
  }
  return cells;
}
