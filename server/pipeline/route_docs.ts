/**
 * The documentation of the model's own routes, which the route table carries: `GET /healthz`,
 * `GET /schema` and `GET /readyz`, and each operation's `POST` with its request and response
 * schemas and its errors, stating the limits this server enforces.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import * as z from "zod";
 * import { OPERATIONS } from "../../core/ops/mod.ts";
 * import { createSchemas } from "../../core/schemas/mod.ts";
 * import { operationDoc } from "./route_docs.ts";
 * const doc = operationDoc(OPERATIONS[0]!, createSchemas(z), { maxBytes: 1024, timeoutMs: 1000 });
 * assert.deepEqual(Object.keys(doc.POST!.responses), ["200", "400", "408", "413", "422"]);
 * ```
 *
 * @module
 */

import type { OperationTable } from "../../core/ops/mod.ts";
import type { Schemas } from "../../core/schemas/mod.ts";
import { jsonContent, objectSchema, type RouteDoc, TAGS } from "../http/mod.ts";
import { type BodyLimits, lateBodyDetail, tooLargeDetail } from "./body.ts";
import { requestLimitNote, type RequestLimits } from "./request_limits.ts";

/** `GET /healthz` and `GET /schema`, whose responses have zod schemas. */
export function modelDocs(schemas: Schemas): { healthz: RouteDoc; schema: RouteDoc } {
  const get = (operationId: string, summary: string, description: string, body: unknown) => ({
    GET: {
      tags: [TAGS.model.name],
      operationId,
      summary,
      description,
      responses: { 200: jsonContent(summary, body) },
    },
  });
  return {
    healthz: get(
      "healthz",
      "Liveness and the size of the net",
      "200 while the process serves (also while it drains: use /readyz to route traffic), " +
        "with the server's version and the numbers of places and transitions.",
      schemas.responses.health,
    ),
    schema: get(
      "schema",
      "Structure of the served net",
      "The places (sorted: the column order of the Open Inference Protocol's tensors), the " +
        "transitions with their labels, the initial marking, and whether the net has silent " +
        "transitions or structural guards.",
      schemas.responses.schema,
    ),
  };
}

/** An operation's `POST`: its body, its response and the errors 400, 408, 413 and 422. */
export function operationDoc(
  operation: OperationTable[number],
  { requests, responses }: Schemas,
  limits: BodyLimits & Partial<RequestLimits>,
): RouteDoc {
  const httpError = (description: string, detail: string) => ({
    description,
    content: { "application/json": { schema: responses.httpError, example: { detail } } },
  });
  return {
    POST: {
      tags: [TAGS.operations.name],
      operationId: operation.name,
      summary: operation.summary,
      description: operation.description,
      request: {
        body: {
          required: true,
          content: { "application/json": { schema: requests[operation.name] } },
        },
      },
      responses: {
        200: jsonContent(operation.summary, responses[operation.name]),
        400: httpError(operation.badRequest.description, operation.badRequest.detail),
        408: httpError("The body did not arrive in time", lateBodyDetail(limits.timeoutMs)),
        413: httpError(
          `The body is larger than the server's limit${requestLimitNote(operation.name, limits)}`,
          tooLargeDetail(limits.maxBytes),
        ),
        422: jsonContent(
          "The body is not JSON or does not match the request schema",
          responses.validationError,
        ),
      },
    },
  };
}

/** `GET /readyz`: 200, or 503 while draining. */
export const READYZ_DOC: RouteDoc = {
  GET: {
    tags: [TAGS.serving.name],
    operationId: "readyz",
    summary: "Readiness: loaded and warmed, and not draining",
    description: "200 once the model is loaded and warmed; 503 from the moment a drain begins " +
      "(SIGTERM), on every connection, so load balancers stop routing here before the socket " +
      "closes.",
    responses: {
      200: jsonContent("Ready", objectSchema({ status: { const: "ready" } }), {
        status: "ready",
      }),
      503: jsonContent(
        "Draining: stop routing here",
        objectSchema({ status: { const: "draining" } }),
        {
          status: "draining",
        },
      ),
    },
  },
};
