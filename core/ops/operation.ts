/**
 * One row of the operations table: what the routes, the OpenAPI document, the request parser and
 * the playground's forms need to know about an operation, beside the function that computes it.
 *
 * @module
 */

import type { AnySchema, ObjectSchema } from "./zod_types.ts";
import type { SchemaKit } from "./schema_kit.ts";
import type { OpsModel, Runner } from "./model.ts";

/** The 400 responses of an operation, for its documentation: when they happen, and one example. */
export interface BadRequest {
  /** When the operation refuses a well-formed request. */
  readonly description: string;
  /** An example `detail` message. */
  readonly detail: string;
}

/** One operation: its name, its `POST` path, its documentation, its schemas and its function. */
export interface Operation<Name extends string = string, Request = never, Response = unknown> {
  /** Identifier: `operationId`, key of the schema sets, the playground's panel. */
  readonly name: Name;
  /** The `POST` route. */
  readonly path: `/${string}`;
  /** One line for the OpenAPI document and the 200 response. */
  readonly summary: string;
  /** A paragraph for the OpenAPI document. */
  readonly description: string;
  /** The 400 cases. */
  readonly badRequest: BadRequest;
  /** The request body's schema. */
  requestSchema(kit: SchemaKit): ObjectSchema;
  /** The response's schema. */
  responseSchema(kit: SchemaKit): AnySchema;
  /**
   * Runs the operation on a validated request; its model runs go through `runner`.
   * @default {model}
   */
  run(model: OpsModel, request: Request, runner?: Runner): Promise<Response>;
}

/** Any operation, whatever its request and response types. */
// deno-lint-ignore no-explicit-any
export type AnyOperation = Operation<string, any, unknown>;

/** The request type of an operation. */
export type RequestOf<O> = O extends Operation<string, infer R, unknown> ? R : never;

/**
 * Returns `operation` as given; it exists to infer the record's types at its definition.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { defineOperation } from "./operation.ts";
 * const echo = defineOperation({
 *   name: "echo",
 *   path: "/echo",
 *   summary: "The marking back",
 *   description: "Returns the supplied marking.",
 *   badRequest: { description: "Never", detail: "" },
 *   requestSchema: (kit) => kit.z.object({ input_marking: kit.marking }),
 *   responseSchema: (kit) => kit.z.object({ input_marking: kit.marking }),
 *   run: (_model, request: { input_marking: ReadonlyMap<string, number> }) =>
 *     Promise.resolve({ input_marking: request.input_marking }),
 * });
 * assert.equal(echo.name, "echo");
 * ```
 */
export function defineOperation<Name extends string, Request, Response>(
  operation: Operation<Name, Request, Response>,
): Operation<Name, Request, Response> {
  return operation;
}
