/**
 * The functions and classes of `server/openapi/` one at a time, each on the case its
 * documentation names.
 *
 * @module
 */

import assert from "node:assert/strict";
import { faviconIco } from "../../../server/openapi/favicon.ts";
import { HOME_CSP, homePage } from "../../../server/openapi/home.ts";
import {
  REDOC_ASSETS,
  REDOC_CSP,
  redocPage,
  redocResponse,
} from "../../../server/openapi/redoc.ts";
import { mountDoc, staticRoutes } from "../../../server/openapi/static_routes.ts";
import { DOCS_ASSETS, DOCS_CSP, docsPage, lazyAsset } from "../../../server/openapi/swagger_ui.ts";

Deno.test("favicon.ts: faviconIco", () => {
  const ico = faviconIco();
  const view = new DataView(ico.buffer);
  assert.equal(view.getUint32(6 + 8, true), ico.length - 22); // the image's byte count
  assert.equal(view.getUint32(6 + 12, true), 22); // where the image starts
});

Deno.test("home.ts: HOME_CSP", () => {
  assert.ok(HOME_CSP.startsWith("default-src 'none'; style-src 'sha256-"));
});

Deno.test("home.ts: homePage", () => {
  const html = homePage(
    { title: "A <b>", version: "1" },
    { name: "m", version: "1", scenario: null, sha256: null, savedAt: null },
  );
  assert.ok(html.includes("A &lt;b&gt;"));
});

Deno.test("redoc.ts: REDOC_CSP", () => {
  assert.ok(REDOC_CSP.startsWith("default-src 'none'; script-src 'self'"));
});

Deno.test("redoc.ts: REDOC_ASSETS", async () => {
  const script = await REDOC_ASSETS.get("redoc.standalone.js")?.load();
  assert.ok(script!.length > 500_000); // about 1.1 MB
});

Deno.test("redoc.ts: redocPage", () => {
  assert.ok(redocPage({ title: "Loans <beta>", version: "1" }).includes("Loans &lt;beta&gt;"));
});

Deno.test("redoc.ts: redocResponse", async () => {
  const response = redocResponse(redocPage({ title: "t", version: "1" }));
  assert.equal(response.headers.get("content-type"), "text/html; charset=utf-8");
  assert.ok((await response.text()).startsWith("<!doctype html>"));
});

Deno.test("static_routes.ts: staticRoutes", async () => {
  const identity = { name: "m", version: "1", scenario: null, sha256: null, savedAt: null };
  const routes = staticRoutes({ title: "T", version: "1" }, identity, () => "{}");
  const page = await routes.get("/")!.asset.respond(new Request("http://localhost/"));
  assert.equal(page.headers.get("cache-control"), "no-cache");
  await page.body?.cancel();
});

Deno.test("static_routes.ts: mountDoc", () => {
  assert.equal(mountDoc("/playground").path, "/playground/{path}");
});

Deno.test("swagger_ui.ts: DOCS_CSP", () => {
  assert.match(DOCS_CSP, /script-src 'self' 'sha256-/);
});

Deno.test("swagger_ui.ts: DOCS_ASSETS", async () => {
  const css = await DOCS_ASSETS.get("swagger-ui.css")!.load();
  assert.ok(css.length > 100_000); // about 190 kB
});

Deno.test("swagger_ui.ts: lazyAsset", async () => {
  let imports = 0;
  const asset = lazyAsset("text/plain", () => Promise.resolve(`text ${++imports}`));
  assert.equal(await asset.load(), "text 1");
  assert.equal(await asset.load(), "text 1"); // imported once
});

Deno.test("swagger_ui.ts: docsPage", () => {
  const html = docsPage({ title: "Loans <beta>", version: "1.2.0" });
  assert.deepEqual(html.includes("Loans &lt;beta&gt;"), true);
});
