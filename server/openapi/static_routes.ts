/**
 * The app's static routes, each a `./static_asset.ts` (ETags, 304s, compressed copies): the
 * links page `/`, `/favicon.ico`, `/docs` and `/redoc` with their files, and `/openapi.json`
 * (built on the first request for it).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { staticRoutes } from "./static_routes.ts";
 * const identity = { name: "m", version: "1", scenario: null, sha256: null, savedAt: null };
 * const routes = staticRoutes({ title: "T", version: "1" }, identity, () => "{}");
 * assert.ok(routes.has("/favicon.ico") && routes.has("/docs/swagger-ui-bundle.js"));
 * const answer = await routes.get("/openapi.json")!.respond(new Request("http://localhost/"));
 * assert.equal(await answer.text(), "{}");
 * ```
 *
 * @module
 */

import { DOCS_ASSETS, DOCS_CSP, type DocsAsset, docsPage } from "./swagger_ui.ts";
import { faviconIco } from "./favicon.ts";
import { HOME_CSP, homePage } from "./home.ts";
import type { ModelIdentity } from "../pipeline/mod.ts";
import { REDOC_ASSETS, REDOC_CSP, redocPage } from "./redoc.ts";
import { REVALIDATE, StaticAsset } from "../http/mod.ts";

/**
 * The static routes by path, for the app titled `info` serving `identity`; `openApi` writes
 * the OpenAPI document's text.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { staticRoutes } from "./static_routes.ts";
 * const identity = { name: "m", version: "1", scenario: null, sha256: null, savedAt: null };
 * const routes = staticRoutes({ title: "T", version: "1" }, identity, () => "{}");
 * const page = await routes.get("/")!.respond(new Request("http://localhost/"));
 * assert.equal(page.headers.get("cache-control"), "no-cache");
 * await page.body?.cancel();
 * ```
 */
export function staticRoutes(
  info: { readonly title: string; readonly version: string },
  identity: ModelIdentity,
  openApi: () => string,
): Map<string, StaticAsset> {
  const page = (html: string, headers: Record<string, string> = {}) =>
    new StaticAsset({
      contentType: "text/html; charset=utf-8",
      cacheControl: REVALIDATE,
      headers,
      read: () => Promise.resolve(html),
    });
  return new Map([
    ["/", page(homePage(info, identity), { "content-security-policy": HOME_CSP })],
    ["/favicon.ico", favicon],
    [
      "/openapi.json",
      new StaticAsset({
        contentType: "application/json",
        cacheControl: REVALIDATE,
        read: () => Promise.resolve(openApi()),
      }),
    ],
    ["/docs", page(docsPage(info), { "content-security-policy": DOCS_CSP })],
    ["/redoc", page(redocPage(info), { "content-security-policy": REDOC_CSP })],
    ...[...DOCS_ASSETS].map(([name, asset]) => docsFile(`/docs/${name}`, asset)),
    ...[...REDOC_ASSETS].map(([name, asset]) => docsFile(`/redoc/${name}`, asset)),
  ]);
}

/** The favicon, drawn once per process; browsers keep it for a day. */
const favicon = new StaticAsset({
  contentType: "image/x-icon",
  cacheControl: "public, max-age=86400",
  read: () => Promise.resolve(faviconIco()),
});

/** A Swagger UI or ReDoc file at `path`: cached for a day (its URL has no version in it). */
function docsFile(path: string, asset: DocsAsset): [string, StaticAsset] {
  return [
    path,
    new StaticAsset({
      contentType: asset.contentType,
      cacheControl: "public, max-age=86400",
      read: () => asset.load(),
    }),
  ];
}
