/**
 * The app's static routes, each a `StaticAsset` (ETags, 304s, compressed copies) with its
 * documentation: the links page `/`, `/favicon.ico`, `/docs` and `/redoc` with their files,
 * and `/openapi.json` (built on the first request for it).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { staticRoutes } from "./static_routes.ts";
 * const identity = { name: "m", version: "1", scenario: null, sha256: null, savedAt: null };
 * const routes = staticRoutes({ title: "T", version: "1" }, identity, () => "{}");
 * assert.ok(routes.has("/favicon.ico") && routes.has("/docs/swagger-ui-bundle.js"));
 * const response = await routes.get("/openapi.json")!.asset.respond(new Request("http://localhost/"));
 * assert.equal(await response.text(), "{}");
 * ```
 *
 * @module
 */

import { DOCS_ASSETS, DOCS_CSP, type DocsAsset, docsPage } from "./swagger_ui.ts";
import { faviconIco } from "./favicon.ts";
import { HOME_CSP, homePage } from "./home.ts";
import type { ModelIdentity } from "../pipeline/mod.ts";
import { REDOC_ASSETS, REDOC_CSP, redocPage } from "./redoc.ts";
import {
  jsonContent,
  type MethodDoc,
  pathParameter,
  REVALIDATE,
  type RouteDoc,
  StaticAsset,
  TAGS,
} from "../http/mod.ts";

/** A static route: what it serves and how the OpenAPI document shows it. */
export interface StaticRoute {
  readonly asset: StaticAsset;
  readonly docs: RouteDoc;
}

/**
 * The static routes by path, for the app titled `info` serving `identity`; `openApi` writes
 * the OpenAPI document's text.
 */
export function staticRoutes(
  info: { readonly title: string; readonly version: string },
  identity: ModelIdentity,
  openApi: () => string,
): Map<string, StaticRoute> {
  const page = (html: string, headers: Record<string, string> = {}) =>
    new StaticAsset({
      contentType: "text/html; charset=utf-8",
      cacheControl: REVALIDATE,
      headers,
      read: () => Promise.resolve(html),
    });
  const docsFiles = filesDoc("/docs", [...DOCS_ASSETS.keys()], "docsFile", "Swagger UI");
  const redocFiles = filesDoc("/redoc", [...REDOC_ASSETS.keys()], "redocFile", "ReDoc");
  return new Map([
    [
      "/",
      {
        asset: page(homePage(info, identity), { "content-security-policy": HOME_CSP }),
        docs: get(
          "home",
          "Links page",
          "A small HTML page with the served model's identity and links to the documentation, " +
            "the playground, the metrics and the probes.",
          { 200: file("The page", "text/html"), 304: NOT_MODIFIED },
        ),
      },
    ],
    [
      "/favicon.ico",
      {
        asset: favicon,
        docs: get("favicon", "The icon", "A 32×32 icon: a Petri-net place holding a token.", {
          200: file("The icon", "image/x-icon"),
          304: NOT_MODIFIED,
        }),
      },
    ],
    [
      "/openapi.json",
      {
        asset: new StaticAsset({
          contentType: "application/json",
          cacheControl: REVALIDATE,
          read: () => Promise.resolve(openApi()),
        }),
        docs: get(
          "openapi",
          "This document",
          "The OpenAPI 3.1 document of this server, generated from the request and answer " +
            "schemas.",
          { 200: jsonContent("The document", { type: "object" }), 304: NOT_MODIFIED },
        ),
      },
    ],
    [
      "/docs",
      {
        asset: page(docsPage(info), { "content-security-policy": DOCS_CSP }),
        docs: get(
          "docs",
          "This document in Swagger UI",
          "The interactive API explorer; its script and stylesheet come from this server " +
            "(/docs/).",
          { 200: file("The page", "text/html"), 304: NOT_MODIFIED },
        ),
      },
    ],
    [
      "/redoc",
      {
        asset: page(redocPage(info), { "content-security-policy": REDOC_CSP }),
        docs: get(
          "redoc",
          "This document in ReDoc",
          "The API reference; its script comes from this server (/redoc/).",
          { 200: file("The page", "text/html"), 304: NOT_MODIFIED },
        ),
      },
    ],
    ...[...DOCS_ASSETS].map(([name, asset]) => docsFile(`/docs/${name}`, asset, docsFiles)),
    ...[...REDOC_ASSETS].map(([name, asset]) => docsFile(`/redoc/${name}`, asset, redocFiles)),
  ]);
}

/**
 * The documentation of a handler mounted at `prefix` (the playground), documented as
 * `{prefix}/{path}`.
 */
export function mountDoc(prefix: string): RouteDoc {
  return {
    path: `${prefix}/{path}`,
    ...get(
      "playground",
      "The playground",
      `The playground's page and files (${prefix} redirects to ${prefix}/ with 308): it runs ` +
        "the model in the browser (ONNX Runtime Web). " +
        "Files whose names hold a content hash are cached for a year (immutable); the page, " +
        "main.js and the stylesheet are revalidated on each use.",
      {
        200: file("The file (index.html for a directory)", "text/html"),
        304: NOT_MODIFIED,
        404: NOT_FOUND,
      },
      [
        pathParameter("path", "A file of the playground; empty for the page", {
          type: "string",
          example: "index.html",
        }),
      ],
    ),
  };
}

const NOT_MODIFIED = { description: "Not Modified: the ETag or the date matched" };
const NOT_FOUND = jsonContent(
  "No such file",
  { type: "object", properties: { detail: { type: "string" } }, required: ["detail"] },
  { detail: "Not Found" },
);

/** A `GET` of the documentation's tag. */
function get(
  operationId: string,
  summary: string,
  description: string,
  responses: Record<string, unknown>,
  parameters?: readonly object[],
): { GET: MethodDoc } {
  return {
    GET: {
      tags: [TAGS.documentation.name],
      operationId,
      summary,
      description,
      responses,
      ...(parameters === undefined ? {} : { parameters }),
    },
  };
}

function file(description: string, type: string) {
  return { description, content: { [type]: { schema: { type: "string" } } } };
}

/** One entry, `{prefix}/{file}`, for all the files under `prefix`. */
function filesDoc(prefix: string, names: string[], operationId: string, what: string): RouteDoc {
  return {
    path: `${prefix}/{file}`,
    ...get(
      operationId,
      `${what}'s files`,
      `The script and stylesheet ${prefix} loads, served from this server (cached for a day).`,
      { 200: file("The file", "text/javascript"), 304: NOT_MODIFIED, 404: NOT_FOUND },
      [pathParameter("file", "The file's name", { type: "string", enum: names })],
    ),
  };
}

/** The favicon, drawn once per process; browsers keep it for a day. */
const favicon = new StaticAsset({
  contentType: "image/x-icon",
  cacheControl: "public, max-age=86400",
  read: () => Promise.resolve(faviconIco()),
});

/** A Swagger UI or ReDoc file at `path`: cached for a day (its URL has no version in it). */
function docsFile(path: string, asset: DocsAsset, docs: RouteDoc): [string, StaticRoute] {
  return [
    path,
    {
      asset: new StaticAsset({
        contentType: asset.contentType,
        cacheControl: "public, max-age=86400",
        read: () => asset.load(),
      }),
      docs,
    },
  ];
}
