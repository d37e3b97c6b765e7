/**
 * The zod schemas of the HTTP surface: one source for request validation, the OpenAPI
 * document, `/docs` and the playground's forms. zod is imported on demand, so a program that
 * never validates a request never loads it.
 *
 * @module
 */

import { defineSchemas, type SchemaSet, type ZodModule } from "./define.ts";
import type { OperationTable } from "../ops/operations.ts";
import {
  parseRequestWith,
  type ParseResult,
  type RequestKind,
  type RequestTypes,
} from "./parse.ts";

export type {
  AnySchema,
  ObjectSchema,
  RequestSchemas,
  ResponseSchemas,
  SchemaSet,
  ZodModule,
} from "./define.ts";
export { parseWithSchema } from "./parse.ts";
export type { ParseResult, RequestKind, RequestTypes } from "./parse.ts";
export { fromZodIssues, jsonInvalid, missingBody } from "./issues.ts";
export type { ValidationIssue, ZodIssueLike } from "./issues.ts";

/** The schemas, and the request parser built on them. */
export interface Schemas extends SchemaSet {
  /**
   * Validates a parsed JSON body as the request of `kind`: id-keyed maps become `Map`s, issues
   * are FastAPI-shaped with `loc` starting at `"body"`.
   */
  parseRequest<K extends RequestKind>(kind: K, json: unknown): ParseResult<RequestTypes[K]>;
}

/**
 * Builds the schemas with an already loaded zod module, for the operations of `operations`
 * (by default the built-in table).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import * as z from "zod";
 * import { createSchemas } from "./mod.ts";
 * const schemas = createSchemas(z);
 * const marking = schemas.requests.forward.shape.input_marking!;
 * assert.equal(marking.safeParse({ p_submitted: 1 }).success, true);
 * assert.equal(marking.safeParse({ p_submitted: "1" }).success, false);
 * ```
 */
export function createSchemas(z: ZodModule, operations?: OperationTable): Schemas {
  const set = defineSchemas(z, operations);
  return {
    requests: set.requests,
    responses: set.responses,
    parseRequest: (kind, json) => parseRequestWith(set, kind, json),
  };
}

/**
 * Imports zod (with `importZod`, by default a dynamic `import("zod")`) and builds the schemas.
 *
 * @throws whatever `importZod` throws when zod cannot be loaded.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { loadSchemas } from "./mod.ts";
 * const schemas = await loadSchemas();
 * const result = schemas.parseRequest("counterfactual", {
 *   input_marking: { p_submitted: 1 },
 *   flip_place: "p_submitted",
 *   target_transition: "t_approve",
 * });
 * assert.ok(result.success);
 * assert.deepEqual(result.data.search_range, [0, 1]); // defaults are filled in
 * assert.equal(schemas.parseRequest("sensitivity", {}).success, false);
 * ```
 */
export async function loadSchemas(
  importZod: () => Promise<ZodModule> = () => import("zod"),
): Promise<Schemas> {
  return createSchemas(await importZod());
}
