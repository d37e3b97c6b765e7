/**
 * The OpenAPI 3.1 document of the six endpoints, generated from the zod schemas with
 * @asteasolutions/zod-to-openapi (passed in: the server loads it lazily).
 *
 * @example
 * ```ts
 * import * as z from "zod";
 * import * as zodToOpenApi from "@asteasolutions/zod-to-openapi";
 * import { createSchemas } from "../core/schemas.ts";
 * import { buildOpenApiDocument } from "./openapi.ts";
 * const document = buildOpenApiDocument(createSchemas(z), zodToOpenApi, {
 *   title: "Petri-net Inference REST API",
 *   version: "0.1.0",
 *   description: "Six endpoints",
 * }, { maxBytes: 1 << 20, timeoutMs: 30_000 });
 * Object.keys(document.paths); // ["/healthz", "/schema", "/forward", ...]
 * ```
 *
 * @module
 */

import type { Schemas } from "../core/schemas.ts";
import type { ZodToOpenApiModule } from "./packages.ts";
import { type BodyLimits, lateBodyDetail, tooLargeDetail } from "./body.ts";
import { registerServingPaths, type ServingInfo } from "./openapi_serving.ts";

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
 * Generates the document: every operation with its request body, its answer and its error
 * answers (400, 408, 413 and 422 for the POST operations, with the limits the server enforces),
 * and with `serving`, the serving routes (`./openapi_serving.ts`).
 *
 * @example
 * ```ts
 * import type { Schemas } from "../core/schemas.ts";
 * import type { ZodToOpenApiModule } from "./packages.ts";
 * import { buildOpenApiDocument } from "./openapi.ts";
 * declare const schemas: Schemas;
 * declare const zodToOpenApi: ZodToOpenApiModule;
 * const doc = buildOpenApiDocument(schemas, zodToOpenApi, {
 *   title: "t",
 *   version: "1",
 *   description: "d",
 * }, { maxBytes: 1024, timeoutMs: 30_000 });
 * doc.openapi; // "3.1.0"
 * ```
 */
export function buildOpenApiDocument(
  schemas: Schemas,
  zodToOpenApi: ZodToOpenApiModule,
  info: ApiInfo,
  limits: BodyLimits,
  serving?: ServingInfo,
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

  const get = (path: string, operationId: string, summary: string, body: unknown) =>
    registry.registerPath({
      method: "get",
      path,
      operationId,
      summary,
      responses: { 200: json(summary, body) },
    });
  get("/healthz", "healthz", "Liveness and the size of the net", responses.health);
  get("/schema", "schema", "Structure of the served net", responses.schema);

  const post = (
    path: string,
    operationId: string,
    summary: string,
    description: string,
    request: unknown,
    body: unknown,
    badRequest: { readonly description: string; readonly detail: string },
  ) =>
    registry.registerPath({
      method: "post",
      path,
      operationId,
      summary,
      description,
      request: {
        body: { required: true, content: { "application/json": { schema: request as never } } },
      },
      responses: {
        200: json(summary, body),
        400: httpError(badRequest.description, badRequest.detail),
        408: httpError("The body did not arrive in time", lateBodyDetail(limits.timeoutMs)),
        413: httpError(
          "The body is larger than the server's limit",
          tooLargeDetail(limits.maxBytes),
        ),
        422: json(
          "The body is not JSON or does not match the request schema",
          responses.validationError,
        ),
      },
    });
  const unknownIds = {
    description: "An id in input_marking or input_values is not a place of the net",
    detail: "input_marking has ids that are not in the net's place set: 'p_x'",
  };
  post(
    "/forward",
    "forward",
    "Activations of every transition and place for one input marking",
    "Runs the model once (batch size 1). Supplied places are clamped; absent source places " +
      "take their initial-marking default.",
    requests.forward,
    responses.forward,
    unknownIds,
  );
  post(
    "/anomaly",
    "anomaly",
    "Residuals and a score for one trace",
    "Predicts the firing of every scored transition under the request's marking and values " +
      "and compares it with the transitions the events name; trace_score is the sum of the " +
      "residuals.",
    requests.anomaly,
    responses.anomaly,
    unknownIds,
  );
  post(
    "/counterfactual",
    "counterfactual",
    "The smallest change of one input that flips a transition's firing decision",
    "Searches search_range for the input at flip_place (on flip_channel) nearest the " +
      "original input where the target's activation crosses 0.5, smoothly or in a jump: a " +
      "probe within tolerance of 0.5, else the first input found past the crossing. No " +
      "crossing is not an error: the answer is found false.",
    requests.counterfactual,
    responses.counterfactual,
    {
      description: "flip_place is not a place, target_transition is not a transition (checked " +
        "in that order), or an input id is not a place; or, on a bundle compiled before the " +
        "place_values output, a value-channel search that does not supply flip_place's value",
      detail: "flip_place 'p_x' is not in the net's place set",
    },
  );
  post(
    "/sensitivity",
    "sensitivity",
    "Gradients of one transition's activation with respect to every input",
    "Exact gradients at the base point, for every supplied place and every source place.",
    requests.sensitivity,
    responses.sensitivity,
    {
      description: "target_transition is not a transition, or an input id is not a place",
      detail: "target_transition 't_x' is not in the net's transition set",
    },
  );

  if (serving) registerServingPaths(registry, serving);
  const generator = new OpenApiGeneratorV31(registry.definitions);
  return generator.generateDocument({
    openapi: "3.1.0",
    info: { title: info.title, version: info.version, description: info.description },
  }) as unknown as OpenApiDocument;
}
