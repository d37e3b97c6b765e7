/**
 * The OpenAPI 3.1 document of the six endpoints, generated from the zod schemas with
 * @asteasolutions/zod-to-openapi (passed in: the server loads it lazily), and of every other
 * route (`./serving_paths.ts`). It is kept clean under Redocly's `recommended` rules and
 * Spectral's `oas` ruleset (`tests/server/openapi_lint_test.ts`): every operation has a tag,
 * a summary and a description; the license and contact come from the repository (`deno.json`,
 * `LICENSE`); `servers` is this server, relative to the document; `security` is empty (the API
 * has no authentication); a tuple (`prefixItems`) also states its `items`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import * as z from "zod";
 * import * as zodToOpenApi from "@asteasolutions/zod-to-openapi";
 * import { createSchemas } from "../../core/schemas.ts";
 * import { buildOpenApiDocument } from "./document.ts";
 * const document = buildOpenApiDocument(createSchemas(z), zodToOpenApi, {
 *   title: "Petri-net Inference REST API",
 *   version: "0.1.0",
 *   description: "Six endpoints",
 * }, { maxBytes: 1 << 20, timeoutMs: 30_000 });
 * assert.deepEqual(Object.keys(document.paths).slice(0, 3), ["/healthz", "/schema", "/forward"]);
 * ```
 *
 * @module
 */

import { OPERATIONS, type OperationTable } from "../../core/ops/operations.ts";
import type { Schemas } from "../../core/schemas.ts";
import {
  type BodyLimits,
  lateBodyDetail,
  requestLimitNote,
  type RequestLimits,
  tooLargeDetail,
  type ZodToOpenApiModule,
} from "../pipeline/mod.ts";
import { registerServingPaths, type ServingInfo, TAGS } from "./serving_paths.ts";
import { PACKAGE_LICENSE } from "../../core/version.ts";

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

/**
 * Generates the document: the fixed `GET` endpoints, then every row of the operations table
 * with its request body, its answer and its error answers (400, 408, 413 and 422, with the
 * limits the server enforces), and with `serving`, the serving routes (`./serving_paths.ts`).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import * as z from "zod";
 * import * as zodToOpenApi from "@asteasolutions/zod-to-openapi";
 * import { OPERATIONS } from "../../core/ops/operations.ts";
 * import { createSchemas } from "../../core/schemas.ts";
 * import { buildOpenApiDocument } from "./document.ts";
 * // Documenting only the first operation of the table.
 * const only = OPERATIONS.slice(0, 1);
 * const doc = buildOpenApiDocument(createSchemas(z, only), zodToOpenApi, {
 *   title: "t",
 *   version: "1",
 *   description: "d",
 * }, { maxBytes: 1024, timeoutMs: 30_000 }, undefined, only);
 * assert.equal(doc.openapi, "3.1.0");
 * assert.deepEqual(Object.keys(doc.paths), ["/healthz", "/schema", "/forward"]);
 * ```
 */
export function buildOpenApiDocument(
  schemas: Schemas,
  zodToOpenApi: ZodToOpenApiModule,
  info: ApiInfo,
  limits: BodyLimits & Partial<RequestLimits>,
  serving?: ServingInfo,
  operations: OperationTable = OPERATIONS,
): OpenApiDocument {
  const { OpenAPIRegistry, OpenApiGeneratorV31 } = zodToOpenApi;
  const { requests, responses } = schemas;
  const registry = new OpenAPIRegistry();
  const json = (description: string, schema: unknown) => ({
    description,
    content: { "application/json": { schema: schema as never } },
  });
  const httpError = (description: string, detail: string) => ({
    description,
    content: {
      "application/json": { schema: responses.httpError as never, example: { detail } },
    },
  });

  const get = (
    path: string,
    operationId: string,
    summary: string,
    description: string,
    body: unknown,
  ) =>
    registry.registerPath({
      method: "get",
      path,
      tags: [TAGS.model.name],
      operationId,
      summary,
      description,
      responses: { 200: json(summary, body) },
    });
  get(
    "/healthz",
    "healthz",
    "Liveness and the size of the net",
    "200 while the process serves (also while it drains: use /readyz to route traffic), with " +
      "the server's version and the numbers of places and transitions.",
    responses.health,
  );
  get(
    "/schema",
    "schema",
    "Structure of the served net",
    "The places (sorted: the column order of the Open Inference Protocol's tensors), the " +
      "transitions with their labels, the initial marking, and whether the net has silent " +
      "transitions or structural guards.",
    responses.schema,
  );

  for (const operation of operations) {
    registry.registerPath({
      method: "post",
      path: operation.path,
      tags: [TAGS.operations.name],
      operationId: operation.name,
      summary: operation.summary,
      description: operation.description,
      request: {
        body: {
          required: true,
          content: { "application/json": { schema: requests[operation.name] as never } },
        },
      },
      responses: {
        200: json(operation.summary, responses[operation.name]),
        400: httpError(operation.badRequest.description, operation.badRequest.detail),
        408: httpError("The body did not arrive in time", lateBodyDetail(limits.timeoutMs)),
        413: httpError(
          `The body is larger than the server's limit${requestLimitNote(operation.name, limits)}`,
          tooLargeDetail(limits.maxBytes),
        ),
        422: json(
          "The body is not JSON or does not match the request schema",
          responses.validationError,
        ),
      },
    });
  }

  if (serving) registerServingPaths(registry, serving);
  const generator = new OpenApiGeneratorV31(registry.definitions);
  const used = new Set(
    registry.definitions.flatMap((d) => d.type === "route" ? d.route.tags ?? [] : []),
  );
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
