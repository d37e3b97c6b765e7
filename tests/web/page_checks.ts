/**
 * Checks of a whole page in the browser, for any page the server sends: every request it (and
 * its workers) makes, recorded with those a content security policy blocked; whether every
 * control can be reached (scrolled into view, not covered, in the tab order); and whether any
 * chart text or caption is clipped.
 *
 * @example
 * ```ts
 * import { recordRequests, unreachableControls } from "./page_checks.ts";
 * declare const context: import("playwright-core").BrowserContext;
 * declare const page: import("playwright-core").Page;
 * const requests = await recordRequests(context);
 * await page.goto("http://127.0.0.1:8000/playground/");
 * requests.foreign("127.0.0.1:8000"); // []
 * (await unreachableControls(page)).failures; // []
 * ```
 *
 * @module
 */

// Callbacks passed to page.evaluate run in the page: type them with the DOM's names.
/// <reference lib="dom" />

import type { BrowserContext, Page } from "playwright-core";

/** The requests of every page and worker of a browser context. */
export interface RequestLog {
  /** Every URL requested (`data:` and `blob:` URLs left out), in order. */
  readonly urls: readonly string[];
  /** The URLs a content security policy stopped before they left. */
  readonly blocked: readonly string[];
  /** The requested URLs whose host is not `host` (`name:port`). */
  foreign(host: string): string[];
  /** Forgets what was recorded so far. */
  clear(): void;
}

/**
 * Records every request of `context` (its pages and their workers), and aborts any to another
 * host than `onlyHost` when given, so that nothing reaches the network.
 *
 * @example
 * ```ts
 * import { recordRequests } from "./page_checks.ts";
 * declare const context: import("playwright-core").BrowserContext;
 * const log = await recordRequests(context);
 * log.urls.length; // 0 before any page loads
 * ```
 */
export async function recordRequests(
  context: BrowserContext,
  onlyHost?: string,
): Promise<RequestLog> {
  const urls: string[] = [];
  const blocked: string[] = [];
  const local = (url: string) => url.startsWith("data:") || url.startsWith("blob:");
  context.on("request", (request) => {
    if (!local(request.url())) urls.push(request.url());
  });
  context.on("requestfailed", (request) => {
    if (request.failure()?.errorText === "csp") blocked.push(request.url());
  });
  if (onlyHost !== undefined) {
    await context.route("**/*", (route) => {
      const url = route.request().url();
      return local(url) || new URL(url).host === onlyHost ? route.continue() : route.abort();
    });
  }
  return {
    urls,
    blocked,
    foreign: (host) => urls.filter((url) => new URL(url).host !== host),
    clear() {
      urls.length = 0;
      blocked.length = 0;
    },
  };
}

/**
 * The visible controls of `root` (links, buttons, inputs, selects, text areas, disclosure
 * summaries, focusable regions) that cannot be reached: each is scrolled into view (inside any
 * scrolling box too) and must then lie within the window, be the element found at its centre
 * (or hold it, or be labelled by it), and be in the tab order. Returns how many were checked
 * and a line per failure.
 *
 * @example
 * ```ts
 * import { unreachableControls } from "./page_checks.ts";
 * declare const page: import("playwright-core").Page;
 * await unreachableControls(page, "main"); // { checked: 120, failures: [] }
 * ```
 */
export function unreachableControls(
  page: Page,
  root = "body",
): Promise<{ checked: number; failures: string[] }> {
  return page.evaluate((root) => {
    // Elements with tabindex -1 are focused by script only (a section, the net's other nodes).
    const selector =
      "a[href], button, input, select, textarea, summary, [tabindex]:not([tabindex='-1'])";
    const failures: string[] = [];
    const name = (e: Element) =>
      `${e.tagName.toLowerCase()}${e.id ? `#${e.id}` : ""}` +
      `${e.getAttribute("aria-label") ? `[${e.getAttribute("aria-label")}]` : ""}` +
      `${e.textContent?.trim() ? ` “${e.textContent.trim().slice(0, 30)}”` : ""}`;
    const controls = [...document.querySelector(root)!.querySelectorAll<HTMLElement>(selector)]
      .filter((e) => e.getClientRects().length > 0 && getComputedStyle(e).visibility !== "hidden");
    for (const control of controls) {
      // Focused first: a skip link shows itself only then.
      control.focus({ preventScroll: true });
      control.scrollIntoView({ block: "center", inline: "center" });
      const box = control.getBoundingClientRect();
      const inWindow = box.width > 0 && box.height > 0 && box.left >= -1 && box.top >= -1 &&
        box.right <= innerWidth + 1 && box.bottom <= innerHeight + 1;
      if (!inWindow) {
        failures.push(`${name(control)} lies outside the window: ${JSON.stringify(box)}`);
        continue;
      }
      // A radio or a check box is hit through its label as often as not.
      const at = document.elementFromPoint(box.left + box.width / 2, box.top + box.height / 2);
      const labels = control instanceof HTMLInputElement ? [...control.labels ?? []] : [];
      const hit = at !== null &&
        (control.contains(at) || at.contains(control) || labels.some((l) => l.contains(at)));
      if (!hit) failures.push(`${name(control)} is covered by ${at ? name(at) : "nothing"}`);
      const disabled = (control as HTMLButtonElement).disabled === true;
      if (!disabled && control.tabIndex < 0) {
        failures.push(`${name(control)} is not in the tab order`);
      }
      control.blur();
    }
    scrollTo(0, 0);
    return { checked: controls.length, failures };
  }, root);
}

/**
 * The chart texts drawn outside their SVG's drawing (clipped), and the captions and axis
 * labels wider than their box. Returns a line per clipped text.
 *
 * @example
 * ```ts
 * import { clippedTexts } from "./page_checks.ts";
 * declare const page: import("playwright-core").Page;
 * await clippedTexts(page); // []
 * ```
 */
export function clippedTexts(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const clipped: string[] = [];
    for (const chart of document.querySelectorAll<SVGSVGElement>("svg.chart")) {
      if (chart.getClientRects().length === 0) continue;
      const view = chart.viewBox.baseVal;
      for (const text of chart.querySelectorAll<SVGTextElement>("text")) {
        const box = text.getBBox();
        const inside = box.x >= view.x - 0.5 && box.y >= view.y - 0.5 &&
          box.x + box.width <= view.x + view.width + 0.5 &&
          box.y + box.height <= view.y + view.height + 0.5;
        if (!inside) clipped.push(`“${text.textContent}” in ${chart.getAttribute("aria-label")}`);
      }
    }
    for (const caption of document.querySelectorAll<HTMLElement>("figcaption, .axis-label")) {
      if (caption.getClientRects().length === 0) continue;
      if (caption.scrollWidth > caption.clientWidth + 1) clipped.push(`“${caption.textContent}”`);
    }
    return clipped;
  });
}
