/**
 * `/docs` in Debian's Chromium: the example model served as `cli.ts serve` serves it
 * (`createApp` + `listen`), the page shows the title and version, lists the six operations,
 * links to the playground, runs POST /forward from "Try it out" with its example body, scores
 * an example log chosen in POST /batch's file upload, loads
 * nothing from anywhere but the server and asks it for nothing it lacks (the favicon is there),
 * and on a 390 px wide phone screen nothing overflows sideways. The screenshots go to
 * `tests/artifacts/docs.png` and `tests/artifacts/docs-390.png`.
 *
 * The page is opened under a host name that Chromium maps to 127.0.0.1: Swagger UI treats
 * `localhost` and `127.0.0.1` specially (no online-validator badge, which loads an image from
 * validator.swagger.io), so a name that is neither shows what a deployed `/docs` loads.
 *
 * @module
 */

// Callbacks passed to page.evaluate run in the page: type them with the DOM's names.
/// <reference lib="dom" />

import "../../ort.ts";
import assert from "node:assert/strict";
import * as ort from "onnxruntime-web";
import type { Locator } from "playwright-core";
import { PACKAGE_VERSION } from "../../../core/bundle/version.ts";
import { EXAMPLE_BUNDLE_URL, readBundle } from "../../../adapter/deno/bundle_files.ts";
import { listen } from "../../../adapter/deno/listen.ts";
import { createApp } from "../../../server/mod.ts";
import { hasChromium, launchChromium } from "../../web/browser.ts";

const ARTIFACTS = new URL("../../artifacts/", import.meta.url);
const HOST = "petri-serve.test";

const OPERATIONS = [
  "GET /healthz",
  "GET /schema",
  "POST /forward",
  "POST /anomaly",
  "POST /counterfactual",
  "POST /sensitivity",
  "POST /batch",
  "GET /readyz",
  "GET /metrics",
  "GET /",
  "GET /favicon.ico",
  "GET /openapi.json",
  "GET /docs",
  "GET /redoc",
  "GET /docs/{file}",
  "GET /redoc/{file}",
  "GET /v2/health/live",
  "GET /v2/health/ready",
  "GET /v2",
  "GET /v2/models/{name}",
  "GET /v2/models/{name}/ready",
  "GET /v2/models/{name}/versions/{version}",
  "GET /v2/models/{name}/versions/{version}/ready",
  "POST /v2/models/{name}/infer",
  "POST /v2/models/{name}/versions/{version}/infer",
];

Deno.test({
  name: "/docs shows the API, runs POST /forward from Try it out, loads nothing from outside",
  // Without Chromium the test is skipped on a developer's machine; CI installs it (.ci/run).
  ignore: !hasChromium() && !Deno.env.get("CI"),
  async fn(t) {
    await using model = await readBundle(ort, EXAMPLE_BUNDLE_URL);
    const title = model.sidecar.scenario_name!;
    const app = await createApp(model, {
      title,
      version: PACKAGE_VERSION,
      description: model.sidecar.scenario_description!,
    });
    const running = listen(app, { hostname: "127.0.0.1", port: 0 });
    try {
      const port = new URL(running.url).port;
      const origin = `http://${HOST}:${port}`;
      await using browser = await launchChromium("wasm", [
        `--host-resolver-rules=MAP ${HOST} 127.0.0.1`,
      ]);
      const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
      const requested: string[] = [];
      const errors: string[] = [];
      const failed: string[] = [];
      page.on("request", (request) => requested.push(request.url()));
      page.on("response", (response) => {
        if (response.status() >= 400) failed.push(`${response.status()} ${response.url()}`);
      });
      page.on("pageerror", (error) => errors.push(error.message));
      // Anything for another host is recorded above and never reaches the network.
      const onlyThisServer = (tab: typeof page) =>
        tab.route(
          "**/*",
          (route) =>
            new URL(route.request().url()).host === `${HOST}:${port}`
              ? route.continue()
              : route.abort(),
        );
      await onlyThisServer(page);

      await page.goto(`${origin}/docs`);
      await page.locator(".opblock").first().waitFor({ timeout: 30_000 });

      await t.step("shows the title and the version", async () => {
        assert.equal(await page.locator("header h1").textContent(), title);
        assert.match(await page.locator("header p").textContent() ?? "", /Version 0\.1\.0/);
        assert.equal(
          await page.locator(".info h1.title").first().innerText().then(firstLine),
          title,
        );
        assert.equal(
          (await page.locator(".info h1.title pre.version").first().textContent())?.trim(),
          PACKAGE_VERSION,
        );
        assert.match(await page.title(), new RegExp(`^${title} ${PACKAGE_VERSION}`));
      });

      await t.step("lists the six operations and the serving routes", async () => {
        const listed = await page.locator(".opblock").evaluateAll((blocks) =>
          blocks.map((block) => {
            const method = block.querySelector(".opblock-summary-method")?.textContent ?? "";
            const path = block.querySelector(".opblock-summary-path")?.getAttribute("data-path");
            return `${method} ${path}`;
          })
        );
        assert.deepEqual(listed, OPERATIONS);
      });

      await t.step("links to the playground", async () => {
        const href = await page.locator("header a", { hasText: "playground" }).evaluate(
          (a) => (a as HTMLAnchorElement).href,
        );
        assert.equal(href, `${origin}/playground/`);
      });

      await t.step("runs POST /forward with its example body from Try it out", async () => {
        const block = page.locator(".opblock-post", {
          has: page.locator('.opblock-summary-path[data-path="/forward"]'),
        });
        await block.locator(".opblock-summary").click();
        await block.getByRole("button", { name: "Try it out" }).click();
        const example = JSON.parse(await block.locator("textarea.body-param__text").inputValue());
        assert.deepEqual(example, {
          input_marking: { p_submitted: 1 },
          input_values: { p_submitted: 5000 },
        });
        const shown = await execute<{ transition_activations: object }>(block);
        assert.deepEqual(Object.keys(shown.transition_activations).sort(), [
          "t_approve",
          "t_decline",
        ]);
        const served = await fetch(`${running.url}/forward`, {
          method: "POST",
          body: JSON.stringify(example),
        });
        assert.deepEqual(shown, await served.json(), "the answer the server gives directly");
        await page.screenshot({ path: new URL("docs.png", ARTIFACTS).pathname, fullPage: true });
      });

      await t.step("offers POST /batch a file upload, and scores the file chosen", async () => {
        const block = page.locator(".opblock-post", {
          has: page.locator('.opblock-summary-path[data-path="/batch"]'),
        });
        await block.locator(".opblock-summary").click();
        await block.getByRole("button", { name: "Try it out" }).click();
        const log = new URL(
          "../../../examples/credit_approval_coloured/loans.xes",
          import.meta.url,
        );
        await block.locator('input[type="file"]').setInputFiles(log.pathname);
        const shown = await execute<{ trace_index: number }[]>(block);
        const traces = (await Deno.readTextFile(log)).match(/<trace>/g)!.length;
        assert.deepEqual(shown.map((entry) => entry.trace_index), [
          ...Array(traces).keys(),
        ]);
      });

      await t.step("loads nothing from outside the server, with no page errors", () => {
        const foreign = requested.filter((url) =>
          !url.startsWith("data:") && new URL(url).host !== `${HOST}:${port}`
        );
        assert.deepEqual(foreign, []);
        assert.ok(requested.includes(`${origin}/docs/swagger-ui-bundle.js`), requested.join());
        assert.ok(requested.includes(`${origin}/forward`), requested.join());
        assert.deepEqual(failed, [], "every request of the page is answered");
        assert.deepEqual(errors, []);
      });

      await t.step(
        "the page's icon is served (headless Chromium does not fetch it itself)",
        async () => {
          const href = await page.evaluate(() =>
            document.querySelector<HTMLLinkElement>("link[rel=icon]")!.href
          );
          assert.equal(href, `${origin}/favicon.ico`);
          const icon = await fetch(`${running.url}/favicon.ico`);
          assert.equal(icon.status, 200);
          assert.equal(icon.headers.get("content-type"), "image/x-icon");
          await icon.body?.cancel();
        },
      );

      await t.step("at 390 px wide nothing overflows sideways", async () => {
        const phone = await browser.newPage({ viewport: { width: 390, height: 844 } });
        await onlyThisServer(phone);
        await phone.goto(`${origin}/docs`);
        await phone.locator(".opblock").first().waitFor({ timeout: 30_000 });
        const widths = await phone.evaluate(() => ({
          scroll: document.documentElement.scrollWidth,
          client: document.documentElement.clientWidth,
        }));
        await phone.screenshot({ path: new URL("docs-390.png", ARTIFACTS).pathname });
        assert.equal(widths.scroll, widths.client, JSON.stringify(widths));
        await phone.close();
      });
    } finally {
      await running.stop();
    }
  },
});

/** Runs the operation of `block` ("Execute"), checks it answered 200, and parses what it shows. */
async function execute<T>(block: Locator): Promise<T> {
  await block.getByRole("button", { name: "Execute" }).click();
  const answer = block.locator(".live-responses-table tr.response");
  await answer.waitFor({ timeout: 30_000 });
  assert.equal((await answer.locator(".response-col_status").textContent())?.trim(), "200");
  return JSON.parse(
    await answer.locator(".response-col_description pre.microlight").first().innerText(),
  );
}

function firstLine(text: string): string {
  return text.split("\n")[0]!.trim();
}
