/**
 * Driving the playground page in tests: filling a request form from a request body (the same
 * JSON the test sends to the HTTP service), running an operation, and reading the answer back
 * from the result tables' `data-*` attributes as JSON.
 *
 * @example
 * ```ts
 * import { fillForm, readAnswer, runOperation } from "./page.ts";
 * declare const page: import("playwright-core").Page;
 * await fillForm(page, "forward", { input_marking: { p_submitted: 1 } });
 * await runOperation(page, "forward");
 * const answer = await readAnswer(page, "forward"); // { transition_activations: {...}, ... }
 * ```
 *
 * @module
 */

// Callbacks passed to page.evaluate run in the page: type them with the DOM's names.
/// <reference lib="dom" />

import { AssertionError } from "node:assert/strict";
import type { Page } from "playwright-core";

/** An operation of the page. */
export type Kind = "forward" | "anomaly" | "counterfactual" | "sensitivity";

/** A request body as JSON. */
export type Body = Readonly<Record<string, unknown>>;

/**
 * Waits until the page has loaded a model and shown its first forward result.
 *
 * @example
 * ```ts
 * import { waitReady } from "./page.ts";
 * declare const page: import("playwright-core").Page;
 * await waitReady(page);
 * ```
 */
export async function waitReady(page: Page): Promise<void> {
  await page.waitForFunction(
    () =>
      document.body.dataset.state === "error" ||
      document.querySelector("#result-forward")?.getAttribute("data-run") === "1",
    null,
    { timeout: 60_000 },
  );
  const state = await page.evaluate(() => document.body.dataset.state);
  if (state !== "ready") {
    const error = await page.locator("#bundle-error").textContent();
    throw new AssertionError({ message: `The page did not load its model: ${error}` });
  }
}

/**
 * Shows the form of `kind` (the operation radio button).
 *
 * @example
 * ```ts
 * import { selectOperation } from "./page.ts";
 * declare const page: import("playwright-core").Page;
 * await selectOperation(page, "sensitivity");
 * ```
 */
export async function selectOperation(page: Page, kind: Kind): Promise<void> {
  await page.locator(`input[name=operation][value=${kind}]`).check();
  await page.locator(`#panel-${kind}`).waitFor({ state: "visible" });
}

/**
 * Enters `body` into the form of `kind`, field by field, as a user would: place rows by their
 * labels (found by the search box in a large net), choices by value, events typed one per row (or pasted as JSON with `pasteEvents`).
 *
 * @example
 * ```ts
 * import { fillForm } from "./page.ts";
 * declare const page: import("playwright-core").Page;
 * await fillForm(page, "anomaly", { input_marking: {}, events: [{ name: "x" }] }, {
 *   pasteEvents: true,
 * });
 * ```
 */
export async function fillForm(
  page: Page,
  kind: Kind,
  body: Body,
  options: { pasteEvents?: boolean } = {},
): Promise<void> {
  const form = page.locator(`#form-${kind}`);
  for (const field of ["input_marking", "input_values"]) {
    const set = form.locator(`fieldset[data-field=${field}]`);
    await set.locator(`#${kind}-${field}-mode-list`).check();
    for (const input of await set.locator(".map-rows input").all()) await input.fill("");
    const values = (body[field] ?? {}) as Record<string, number>;
    // A large net lists only some places: the others are found by their id.
    const search = set.getByLabel("Find a place");
    const searchable = await search.count() > 0;
    for (const [place, value] of Object.entries(values)) {
      if (searchable) await search.fill(place);
      await set.getByLabel(place, { exact: true }).fill(String(value));
    }
    if (searchable) await search.fill("");
  }
  for (const field of ["flip_place", "target_transition", "flip_channel"]) {
    if (typeof body[field] === "string") {
      await form.locator(`#${kind}-${field}`).selectOption(body[field] as string);
    }
  }
  if (Array.isArray(body.search_range)) {
    await form.locator(`#${kind}-search_range-0`).fill(String(body.search_range[0]));
    await form.locator(`#${kind}-search_range-1`).fill(String(body.search_range[1]));
  }
  if (typeof body.tolerance === "number") {
    await form.locator(`#${kind}-tolerance`).fill(String(body.tolerance));
  }
  if (body.attributes !== undefined) {
    await form.locator(`#${kind}-attributes`).fill(JSON.stringify(body.attributes));
  }
  if (Array.isArray(body.events)) {
    const events = body.events as { name: string }[];
    if (options.pasteEvents) {
      await form.locator(`#${kind}-events-mode-json`).check();
      await form.locator(`#${kind}-events-json`).fill(JSON.stringify(events));
    } else {
      await form.locator(`#${kind}-events-mode-typed`).check();
      const rows = form.locator(`#${kind}-events-rows li`);
      while (await rows.count() > 0) await rows.first().getByRole("button").click();
      for (const event of events) {
        await form.locator(`#${kind}-events-add`).click();
        await page.keyboard.type(event.name);
      }
    }
  }
}

/**
 * Clicks the form's Run button and waits for its result panel to show a new answer.
 *
 * @example
 * ```ts
 * import { runOperation } from "./page.ts";
 * declare const page: import("playwright-core").Page;
 * await runOperation(page, "counterfactual");
 * ```
 */
export async function runOperation(page: Page, kind: Kind): Promise<void> {
  const before = await resultRuns(page, kind);
  await page.locator(`#${kind}-run`).click();
  await waitForRun(page, kind, before + 1);
}

/**
 * How many answers the result panel of `kind` has shown.
 *
 * @example
 * ```ts
 * import { resultRuns } from "./page.ts";
 * declare const page: import("playwright-core").Page;
 * await resultRuns(page, "forward"); // 1 after the page's first forward run
 * ```
 */
export async function resultRuns(page: Page, kind: Kind): Promise<number> {
  return Number(await page.locator(`#result-${kind}`).getAttribute("data-run"));
}

/**
 * Waits until the result panel of `kind` has shown `runs` answers; fails early with the form's
 * issues when it shows some instead.
 *
 * @example
 * ```ts
 * import { waitForRun } from "./page.ts";
 * declare const page: import("playwright-core").Page;
 * await waitForRun(page, "forward", 2);
 * ```
 */
export async function waitForRun(page: Page, kind: Kind, runs: number): Promise<void> {
  await page.waitForFunction(
    ([kind, runs]) => {
      const issues = document.getElementById(`${kind}-issues`);
      if (issues && !issues.hidden) return true;
      return Number(document.getElementById(`result-${kind}`)?.dataset.run) >= Number(runs);
    },
    [kind, runs] as const,
    { timeout: 60_000 },
  );
  const issues = page.locator(`#${kind}-issues`);
  if (await issues.isVisible()) {
    throw new AssertionError({ message: `${kind} did not run: ${await issues.textContent()}` });
  }
}

/**
 * The answer of `kind` as the page shows it, rebuilt as JSON from the result tables: each
 * cell's `data-field` (and `data-key` for maps) and `data-value`.
 *
 * @example
 * ```ts
 * import { readAnswer } from "./page.ts";
 * declare const page: import("playwright-core").Page;
 * const { trace_score } = await readAnswer(page, "anomaly") as { trace_score: number };
 * ```
 */
export async function readAnswer(page: Page, kind: Kind): Promise<Record<string, unknown>> {
  const cells = await page.locator(`#result-${kind} td[data-field]`).evaluateAll((tds) =>
    tds.map((td) => {
      const data = (td as HTMLElement).dataset;
      return [data.field!, data.key, data.value!] as const;
    })
  );
  const answer: Record<string, unknown> = {};
  for (const [field, key, value] of cells) {
    const parsed = JSON.parse(value);
    if (key === undefined) {
      answer[field] = parsed;
    } else {
      const map = (answer[field] ??= {}) as Record<string, unknown>;
      map[key] = parsed;
    }
  }
  return answer;
}

/**
 * Asserts that two JSON values are equal, numbers within `atol + rtol·|expected|`.
 *
 * @example
 * ```ts
 * import { assertJsonClose } from "./page.ts";
 * assertJsonClose({ a: 0.1 + 0.2 }, { a: 0.3 }, { atol: 1e-9 });
 * ```
 */
export function assertJsonClose(
  actual: unknown,
  expected: unknown,
  tolerance: { atol: number; rtol?: number },
  path = "$",
): void {
  const fail = (what: string) =>
    new AssertionError({
      message: `${path}: ${what}`,
      actual,
      expected,
      operator: "assertJsonClose",
    });
  if (typeof expected === "number") {
    if (typeof actual !== "number") throw fail(`expected a number, got ${JSON.stringify(actual)}`);
    const limit = tolerance.atol + (tolerance.rtol ?? 0) * Math.abs(expected);
    if (!(Math.abs(actual - expected) <= limit)) {
      throw fail(`${actual} differs from ${expected} by more than ${limit}`);
    }
    return;
  }
  if (expected === null || typeof expected !== "object") {
    if (actual !== expected) {
      throw fail(`${JSON.stringify(actual)} !== ${JSON.stringify(expected)}`);
    }
    return;
  }
  if (typeof actual !== "object" || actual === null) throw fail("expected an object");
  const actualKeys = Object.keys(actual).sort();
  const expectedKeys = Object.keys(expected).sort();
  if (actualKeys.join("\n") !== expectedKeys.join("\n")) {
    throw fail(`keys ${JSON.stringify(actualKeys)} differ from ${JSON.stringify(expectedKeys)}`);
  }
  for (const key of expectedKeys) {
    assertJsonClose(
      (actual as Record<string, unknown>)[key],
      (expected as Record<string, unknown>)[key],
      tolerance,
      `${path}.${key}`,
    );
  }
}
