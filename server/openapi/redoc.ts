/**
 * `/redoc`: the OpenAPI document in ReDoc (as PETRA's FastAPI app offers beside `/docs`),
 * self-hosted like `/docs`: the page is ours, and ReDoc's standalone bundle (the pinned `redoc`
 * npm package's `bundles/redoc.standalone.js`) is served from our origin at
 * `/redoc/redoc.standalone.js`. It is read with a text import on the first request for it, so
 * it needs no read permission and goes wherever the module graph goes (JSR, `deno compile`,
 * Deno Deploy), like Swagger UI's files in `./swagger_ui.ts`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { redocPage } from "./redoc.ts";
 * assert.ok(redocPage({ title: "Loans", version: "1.0.0" }).includes('spec-url="openapi.json"'));
 * ```
 *
 * @module
 */

import { type DocsAsset, lazyAsset } from "./swagger_ui.ts";
import { escapeHtml, pagePolicy } from "../http/mod.ts";

/**
 * The page's Content-Security-Policy: everything from our origin only. Styles are inline
 * (styled-components, which ReDoc cannot do without); search runs in a `blob:` worker.
 */
export const REDOC_CSP: string = pagePolicy({
  script: ["'self'"],
  style: ["'self'", "'unsafe-inline'"],
  img: ["'self'", "data:"],
  connect: ["'self'"],
  worker: ["'self'", "blob:"],
});

/**
 * ReDoc 2.5's side menu always shows Redocly's logo from this address (no option turns it
 * off); the served bundle asks for an empty `data:` image instead, which fails to draw, so
 * ReDoc hides it and the page requests nothing from another host.
 */
const REDOCLY_LOGO = "https://cdn.redoc.ly/redoc/logo-mini.svg";

/** ReDoc's files served under `/redoc/`, by file name. */
export const REDOC_ASSETS: ReadonlyMap<string, DocsAsset> = new Map([[
  "redoc.standalone.js",
  lazyAsset(
    "text/javascript; charset=utf-8",
    async () =>
      (await import("redoc/bundles/redoc.standalone.js", { with: { type: "text" } })).default
        .replaceAll(REDOCLY_LOGO, "data:,"),
  ),
]]);

/** The `/redoc` page. URLs are relative, so it also works under a path prefix. */
export function redocPage(info: { readonly title: string; readonly version: string }): string {
  const title = escapeHtml(`${info.title} ${info.version} - ReDoc`);
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title}</title>
<link rel="icon" href="favicon.ico">
<style>body { margin: 0; }</style>
</head>
<body>
<redoc spec-url="openapi.json" hide-hostname sanitize="true"></redoc>
<script src="redoc/redoc.standalone.js"></script>
</body>
</html>
`;
}

/** The `/redoc` response for `page` (from {@link redocPage}), with {@link REDOC_CSP}. */
export function redocResponse(page: string): Response {
  return new Response(page, {
    headers: { "content-type": "text/html; charset=utf-8", "content-security-policy": REDOC_CSP },
  });
}
