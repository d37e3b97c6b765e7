/**
 * The OpenAPI 3.1 document, built from the route table: each route carries its own
 * documentation (`RouteDoc`), and the document lists them in the table's order, generated with
 * @asteasolutions/zod-to-openapi (passed in: the server loads it lazily). It stays clean under
 * Redocly's `recommended` rules and Spectral's `oas` ruleset: every operation has a tag, a
 * summary and a description; `servers` is this server, relative to the document; `security`
 * is empty (no authentication); a tuple (`prefixItems`) also states its `items`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import * as zodToOpenApi from "@asteasolutions/zod-to-openapi";
 * import { buildOpenApiDocument } from "./document.ts";
 * const ping = {
 *   tags: ["Serving"],
 *   operationId: "ping",
 *   summary: "Ping",
 *   description: "Answers pong.",
 *   responses: { 200: { description: "Pong" } },
 * };
 * const document = buildOpenApiDocument(zodToOpenApi, {
 *   title: "Petri-net Inference REST API",
 *   version: "0.1.0",
 *   description: "One route",
 * }, [{ template: "/ping", docs: { GET: ping } }, { template: "/hidden" }]);
 * assert.deepEqual(Object.keys(document.paths), ["/ping"]);
 * assert.deepEqual((document.tags as { name: string }[]).map((tag) => tag.name), ["Serving"]);
 * ```
 *
 * @module
 */

import { type RouteDoc, TAGS } from "../http/mod.ts";
import type { ZodToOpenApiModule } from "../pipeline/mod.ts";
import { PACKAGE_LICENSE } from "../../core/bundle/mod.ts";

/** The `info` block of the document. */
export interface ApiInfo {
  readonly title: string;
  readonly version: string;
  readonly description: string;
}

/** An OpenAPI document (a JSON object); `paths` maps each path to its operations. */
export interface OpenApiDocument {
  readonly openapi: string;
  readonly info: ApiInfo;
  readonly paths: Readonly<Record<string, unknown>>;
  readonly [key: string]: unknown;
}

/** A route as the document sees it: its template and, if documented, its documentation. */
export interface DocumentedRoute {
  readonly template: string;
  readonly docs?: RouteDoc | undefined;
}

/**
 * Generates the document of `routes`, in their order; routes that share one documentation
 * (the files of one folder) give one entry, and an undocumented route none.
 */
export function buildOpenApiDocument(
  zodToOpenApi: ZodToOpenApiModule,
  info: ApiInfo,
  routes: Iterable<DocumentedRoute>,
): OpenApiDocument {
  const { OpenAPIRegistry, OpenApiGeneratorV31 } = zodToOpenApi;
  const registry = new OpenAPIRegistry();
  const seen = new Set<RouteDoc>();
  const used = new Set<string>();
  for (const { template, docs } of routes) {
    if (docs === undefined || seen.has(docs)) continue;
    seen.add(docs);
    for (const method of ["GET", "POST"] as const) {
      const doc = docs[method];
      if (doc === undefined) continue;
      for (const tag of doc.tags) used.add(tag);
      registry.registerPath({
        method: method === "GET" ? "get" : "post",
        path: docs.path ?? template,
        ...doc,
        tags: [...doc.tags],
      } as never);
    }
  }
  const generator = new OpenApiGeneratorV31(registry.definitions);
  const document = generator.generateDocument({
    openapi: "3.1.0",
    info: {
      title: info.title,
      version: info.version,
      description: info.description,
      license: { name: `${PACKAGE_LICENSE} License`, identifier: PACKAGE_LICENSE },
      contact: { name: "petri-serve authors" },
    },
    // Relative to the document's URL: whatever address (or prefix) the server is reached at.
    servers: [{ url: ".", description: "This server" }],
    security: [],
    tags: Object.values(TAGS).filter((tag) => used.has(tag.name)),
  }) as unknown as OpenApiDocument;
  tuplesWithItems(document);
  return document;
}

/**
 * Gives every tuple schema (`prefixItems` without `items`, as zod-to-openapi writes a
 * `z.tuple`) its `items`: the shared item schema when all positions have the same one, else
 * `false` (no items past the tuple's). Both are exact in JSON Schema 2020-12, and tools that
 * read `items` only (and Spectral's `array-items` rule) then see the element type.
 */
function tuplesWithItems(node: unknown): void {
  if (Array.isArray(node)) {
    for (const item of node) tuplesWithItems(item);
    return;
  }
  if (typeof node !== "object" || node === null) return;
  const schema = node as Record<string, unknown>;
  const prefix = schema.prefixItems;
  if (Array.isArray(prefix) && !("items" in schema)) {
    const texts = new Set(prefix.map((item) => JSON.stringify(item)));
    schema.items = texts.size === 1 ? structuredClone(prefix[0]) : false;
  }
  for (const value of Object.values(schema)) tuplesWithItems(value);
}
