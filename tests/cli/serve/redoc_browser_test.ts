/**
 * `/redoc` in Debian's Chromium: the example model served as `cli.ts serve` serves it
 * (`createApp` + `listen`); ReDoc renders every operation of `/openapi.json`, and the page loads
 * nothing from anywhere but the server. The screenshot goes to `tests/artifacts/redoc.png`.
 * As in `docs_browser_test.ts`, the page is opened under a host name that Chromium maps to
 * 127.0.0.1, so it behaves as a deployed page would.
 *
 * @module
 */

// Callbacks passed to page.evaluate run in the page: type them with the DOM's names.
/// <reference lib="dom" />

import "../../ort.ts";
import assert from "node:assert/strict";
import * as ort from "onnxruntime-web";
import { PACKAGE_VERSION } from "../../../core/bundle/version.ts";
import { EXAMPLE_BUNDLE_URL, readBundle } from "../../../adapter/deno/bundle_files.ts";
import { listen } from "../../../adapter/deno/listen.ts";
import { createApp } from "../../../server/mod.ts";
import { hasChromium, launchChromium } from "../../web/browser.ts";

const ARTIFACTS = new URL("../../artifacts/", import.meta.url);
const HOST = "petri-serve.test";

Deno.test({
  name: "/redoc renders every operation of /openapi.json and loads nothing from outside",
  ignore: !hasChromium() && !Deno.env.get("CI"),
  async fn() {
    await using model = await readBundle(ort, EXAMPLE_BUNDLE_URL);
    const title = model.sidecar.scenario_name!;
    const app = await createApp(model, { title, version: PACKAGE_VERSION });
    const running = listen(app, { hostname: "127.0.0.1", port: 0 });
    try {
      const port = new URL(running.url).port;
      const origin = `http://${HOST}:${port}`;
      const doc = await (await fetch(`${running.url}/openapi.json`)).json();
      const operations = Object.values(doc.paths as Record<string, Record<string, unknown>>)
        .flatMap((methods) => Object.values(methods)) as { summary: string; operationId: string }[];

      await using browser = await launchChromium("wasm", [
        `--host-resolver-rules=MAP ${HOST} 127.0.0.1`,
      ]);
      const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
      const requested: string[] = [];
      const errors: string[] = [];
      page.on("request", (request) => requested.push(request.url()));
      page.on("pageerror", (error) => errors.push(error.message));
      const blocked: string[] = [];
      page.on("requestfailed", (request) => {
        if (request.failure()?.errorText === "csp") blocked.push(request.url());
      });
      // Anything for another host that gets this far would go out: record it, abort it.
      const outgoing: string[] = [];
      await page.route("**/*", (route) => {
        const url = route.request().url();
        if (new URL(url).host === `${HOST}:${port}`) return route.continue();
        outgoing.push(url);
        return route.abort();
      });

      await page.goto(`${origin}/redoc`);
      await page.locator("[data-section-id*='operation/']").first().waitFor({ timeout: 60_000 });
      assert.equal(await page.title(), `${title} ${PACKAGE_VERSION} - ReDoc`);
      assert.equal((await page.locator("h1").first().textContent())?.startsWith(title), true);
      const sections = await page.locator("[data-section-id*='operation/']").evaluateAll(
        (nodes) => nodes.map((node) => node.getAttribute("data-section-id") ?? ""),
      );
      // Tagged operations have two anchors (with and without the tag): compare the ids.
      const rendered = new Set(sections.map((id) => id.slice(id.lastIndexOf("operation/") + 10)));
      assert.deepEqual([...rendered].sort(), operations.map((o) => o.operationId).sort());
      const headings = new Set(
        (await page.locator("[data-section-id*='operation/'] h2").allTextContents())
          .map((h) => h.trim()),
      );
      // Summaries repeat (the routes with and without the model's version): compare the sets.
      assert.deepEqual([...headings].sort(), [...new Set(operations.map((o) => o.summary))].sort());
      await page.screenshot({ path: new URL("redoc.png", ARTIFACTS).pathname });

      // ReDoc's side menu asks for Redocly's logo on cdn.redoc.ly; the page's policy stops it
      // inside the browser (failure "csp"), so it never reaches the network.
      const foreign = requested.filter((url) =>
        !url.startsWith("data:") && !url.startsWith("blob:") &&
        new URL(url).host !== `${HOST}:${port}` && !blocked.includes(url)
      );
      assert.deepEqual(foreign, []);
      assert.deepEqual(outgoing, []);
      assert.ok(requested.includes(`${origin}/redoc/redoc.standalone.js`), requested.join());
      assert.ok(requested.includes(`${origin}/openapi.json`), requested.join());
      assert.deepEqual(errors, []);
    } finally {
      await running.stop();
    }
  },
});
