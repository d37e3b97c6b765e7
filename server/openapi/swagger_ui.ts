/**
 * `/docs`: our own small page (title and version visible) running Swagger UI on
 * `/openapi.json`, with Swagger UI's stylesheet and script served from our origin at
 * `/docs/swagger-ui.css` and `/docs/swagger-ui-bundle.js`.
 *
 * The two files are read from the swagger-ui-dist npm package with text imports
 * (`import(..., { with: { type: "text" } })`, stable since Deno 2.8). They go through Deno's
 * module loader, so they resolve wherever Deno keeps npm packages (its global cache or a
 * `node_modules` directory), need no read permission, are rewritten like any other import
 * when the package is published to JSR, and are part of the module graph for `deno compile`
 * and Deno Deploy. They are imported on the first request for them, not at start-up.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { docsPage } from "./swagger_ui.ts";
 * assert.deepEqual(docsPage({ title: "Petri-net Inference REST API", version: "0.1.0" }).includes("0.1.0"), true);
 * ```
 *
 * @module
 */

import { cspHash, escapeHtml, pagePolicy } from "../http/mod.ts";

/** The page's inline style block. */
const STYLE = `
  body { margin: 0; font-family: sans-serif; }
  header { padding: 1rem 1.5rem 0; }
  header h1 { margin: 0; font-size: 1.5rem; overflow-wrap: anywhere; }
  header p { margin: 0.25rem 0 0; color: #555; }
  /* Narrow screens: a long model name breaks instead of pushing the page sideways. */
  .swagger-ui .info .title { overflow-wrap: anywhere; }
  @media (max-width: 480px) {
    header { padding: 1rem 1rem 0; }
    .swagger-ui .info .title { font-size: 24px; }
  }
`;

/** The page's inline script, which starts Swagger UI on the OpenAPI document. */
const SCRIPT = `
  window.ui = SwaggerUIBundle({
    url: new URL("openapi.json", document.baseURI).href,
    dom_id: "#swagger-ui",
    presets: [SwaggerUIBundle.presets.apis],
    layout: "BaseLayout",
    deepLinking: true,
    // No badge from validator.swagger.io: the page asks nothing of another host.
    validatorUrl: null,
  });
`;

/**
 * The page's Content-Security-Policy: Swagger UI's files and the page's two inline blocks by
 * hash; requests (the document, "Try it out") to the app only; images from the app or
 * `data:` URLs (Swagger UI's icons).
 */
export const DOCS_CSP: string = pagePolicy({
  script: ["'self'", await cspHash(SCRIPT)],
  style: ["'self'", await cspHash(STYLE)],
  img: ["'self'", "data:"],
  connect: ["'self'"],
});

/** A static file served under `/docs/` (or `/redoc/`). */
export interface DocsAsset {
  readonly contentType: string;
  /** The file's text, imported on first use. */
  load(): Promise<string>;
}

/** The Swagger UI files served under `/docs/`, by file name. */
export const DOCS_ASSETS: ReadonlyMap<string, DocsAsset> = new Map([
  [
    "swagger-ui.css",
    lazyAsset(
      "text/css; charset=utf-8",
      async () =>
        (await import("swagger-ui-dist/swagger-ui.css", { with: { type: "text" } })).default,
    ),
  ],
  [
    "swagger-ui-bundle.js",
    lazyAsset(
      "text/javascript; charset=utf-8",
      async () =>
        (await import("swagger-ui-dist/swagger-ui-bundle.js", { with: { type: "text" } }))
          .default,
    ),
  ],
]);

/**
 * A static file whose text `importText` gives, imported on the first {@link DocsAsset.load}
 * and kept; a failed import is retried by the next load. `/docs` and `/redoc` serve theirs so.
 */
export function lazyAsset(contentType: string, importText: () => Promise<string>): DocsAsset {
  let text: Promise<string> | undefined;
  return {
    contentType,
    load() {
      text ??= importText().catch((error) => {
        text = undefined; // let a later request try again
        throw error;
      });
      return text;
    },
  };
}

/**
 * The `/docs` page. URLs are relative (`docs/...`, `openapi.json`), so the page also works
 * when the app is mounted under a path prefix.
 */
export function docsPage(info: { readonly title: string; readonly version: string }): string {
  const title = escapeHtml(info.title);
  const version = escapeHtml(info.version);
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title} ${version} - API docs</title>
<link rel="icon" href="favicon.ico">
<link rel="stylesheet" href="docs/swagger-ui.css">
<style>${STYLE}</style>
</head>
<body>
<header>
<h1>${title}</h1>
<p>Version ${version} &middot; <a href="openapi.json">openapi.json</a> &middot; <a href="redoc">ReDoc</a> &middot; <a href="playground/">playground</a></p>
</header>
<div id="swagger-ui"></div>
<script src="docs/swagger-ui-bundle.js"></script>
<script>${SCRIPT}</script>
</body>
</html>
`;
}
