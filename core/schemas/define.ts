/**
 * The zod schemas of every request and response, with their defaults, descriptions and
 * examples. They describe the wire format (id-keyed maps are `z.record`s, as the OpenAPI
 * document and the playground's forms show them); reading a body into `Map`s is `parse.ts`'s
 * job, because zod drops a `"__proto__"` key from records.
 *
 * @module
 */

import type { OperationName, OperationTable } from "../ops/operations.ts";
import { OPERATIONS } from "../ops/operations.ts";
import { type SchemaKit, schemaKit } from "../ops/schema_kit.ts";
import type { AnySchema, ObjectSchema, ZodModule } from "../ops/zod_types.ts";

export type { AnySchema, ObjectSchema, ZodModule } from "../ops/zod_types.ts";

/** The request body of each operation of the table, by name. */
export type RequestSchemas = { readonly [K in OperationName]: ObjectSchema };

/** The response of each operation of the table, by name, plus the fixed endpoints and errors. */
export type ResponseSchemas = { readonly [K in OperationName]: AnySchema } & {
  /** `GET /healthz`'s response. */
  readonly health: ObjectSchema;
  /** `GET /schema`'s response. */
  readonly schema: ObjectSchema;
  /** `{"detail": "..."}`: 400, 404, 405, 408, 413. */
  readonly httpError: ObjectSchema;
  /** `{"detail": [issue, ...]}`: 422, FastAPI's shape. */
  readonly validationError: ObjectSchema;
};

/** Every schema of the HTTP surface. */
export interface SchemaSet {
  /** The request bodies (of the built-in operations, and of any added by a custom table). */
  readonly requests: RequestSchemas & Readonly<Record<string, ObjectSchema>>;
  /** The response and error bodies. */
  readonly responses: ResponseSchemas & Readonly<Record<string, AnySchema>>;
}

/**
 * Builds the schemas with the given zod module: each operation's request and response from the
 * operations table (by default {@link OPERATIONS}), plus the fixed endpoints and the error
 * bodies. Cached per module and table, so schema ids are registered once.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import * as z from "zod";
 * import { defineSchemas } from "./define.ts";
 * const { requests } = defineSchemas(z);
 * const parsed = requests.counterfactual.parse({
 *   input_marking: {},
 *   flip_place: "p_submitted",
 *   target_transition: "t_approve",
 * });
 * assert.equal(parsed.tolerance, 0.001);
 * ```
 */
export function defineSchemas(
  z: ZodModule,
  operations: OperationTable = OPERATIONS,
): SchemaSet {
  const requests: Record<string, ObjectSchema> = {};
  const answers: Record<string, AnySchema> = {};
  for (const operation of operations) {
    const { request, response } = operationSchemas(z, operation);
    requests[operation.name] = request;
    answers[operation.name] = response;
  }
  return {
    requests: requests as SchemaSet["requests"],
    responses: { ...answers, ...fixedSchemas(z) } as SchemaSet["responses"],
  };
}

// zod registers schema ids globally: each schema is built once per zod module.
const kits = new WeakMap<ZodModule, SchemaKit>();
const built = new WeakMap<ZodModule, WeakMap<object, OperationSchemas>>();
const fixed = new WeakMap<ZodModule, FixedSchemas>();

interface OperationSchemas {
  readonly request: ObjectSchema;
  readonly response: AnySchema;
}

function operationSchemas(z: ZodModule, operation: OperationTable[number]): OperationSchemas {
  let kit = kits.get(z);
  if (!kit) kits.set(z, kit = schemaKit(z));
  let byOperation = built.get(z);
  if (!byOperation) built.set(z, byOperation = new WeakMap());
  let schemas = byOperation.get(operation);
  if (!schemas) {
    schemas = { request: operation.requestSchema(kit), response: operation.responseSchema(kit) };
    byOperation.set(operation, schemas);
  }
  return schemas;
}

interface FixedSchemas {
  readonly health: ObjectSchema;
  readonly schema: ObjectSchema;
  readonly httpError: ObjectSchema;
  readonly validationError: ObjectSchema;
}

function fixedSchemas(z: ZodModule): FixedSchemas {
  let set = fixed.get(z);
  if (!set) fixed.set(z, set = buildFixed(z));
  return set;
}

/** The schemas of the endpoints that are not operations, and of the error bodies. */
function buildFixed(z: ZodModule): FixedSchemas {
  const health = z.object({
    status: z.literal("ok").meta({ description: 'Always "ok"' }),
    version: z.string().meta({
      description: "The version the application was built with",
      example: "0.1.0",
    }),
    n_places: z.int().nonnegative().meta({ description: "Number of places", example: 3 }),
    n_transitions: z.int().nonnegative().meta({
      description: "Number of transitions",
      example: 2,
    }),
  }).meta({ id: "HealthResponse", description: "Liveness and the size of the net" });

  const schema = z.object({
    places: z.array(z.string()).meta({
      description: "All place ids, sorted",
      example: ["p_approved", "p_declined", "p_submitted"],
    }),
    transitions: z.record(z.string(), z.string()).meta({
      description: "Transition id -> label, sorted by id; the label is the id when the " +
        "transition has none",
      example: { t_approve: "approve loan", t_decline: "decline loan" },
    }),
    initial_marking: z.record(z.string(), z.number()).meta({
      description: "Token counts of the initial marking, by place id",
      example: {},
    }),
    has_silent_transitions: z.boolean().meta({
      description: "True when the net has at least one silent transition",
    }),
    has_structural_guards: z.boolean().meta({
      description: "True when at least one transition has a structural guard",
    }),
  }).meta({ id: "SchemaResponse", description: "The structure of the served net" });

  const httpError = z.object({
    detail: z.string().meta({
      description: "What went wrong",
      example: "flip_place 'p_x' is not in the net's place set",
    }),
  }).meta({ id: "HTTPError", description: "An error with a message" });

  const issue = z.object({
    type: z.string().meta({ description: "Error type, as pydantic names it", example: "missing" }),
    loc: z.array(z.union([z.string(), z.int()])).meta({
      description: 'Where: "body", then keys and indexes',
      example: ["body", "input_marking"],
    }),
    msg: z.string().meta({ example: "Field required" }),
    input: z.unknown().optional().meta({ description: "The offending value" }),
    ctx: z.record(z.string(), z.unknown()).optional().meta({ description: "Details" }),
  }).meta({ id: "ValidationIssue", description: "One problem with the request body" });
  const validationError = z.object({ detail: z.array(issue) }).meta({
    id: "HTTPValidationError",
    description: "The body is not valid JSON or does not match the request schema",
  });

  return { health, schema, httpError, validationError };
}
