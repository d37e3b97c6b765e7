/**
 * The serving routes in the OpenAPI document, beside the six operations: `/readyz`,
 * `/metrics`, `/redoc`, and the Open Inference Protocol v2 routes under `/v2`. Their bodies are
 * plain JSON Schema objects (they are not zod-validated requests).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import * as zodToOpenApi from "@asteasolutions/zod-to-openapi";
 * import { registerServingPaths } from "./openapi_serving.ts";
 * const registry = new zodToOpenApi.OpenAPIRegistry();
 * registerServingPaths(registry, { modelName: "loans", places: 3, transitions: 2 });
 * assert.equal(registry.definitions.length, 9); // /readyz, /metrics, /redoc and six under /v2
 * ```
 *
 * @module
 */

import { INPUTS, OUTPUTS } from "./oip.ts";
import type { ZodToOpenApiModule } from "./packages.ts";
import {
  FLOAT32_JSON_BYTES,
  type RequestLimits,
  resolveRequestLimits,
  tooManyRowsDetail,
} from "./request_limits.ts";

type Registry = InstanceType<ZodToOpenApiModule["OpenAPIRegistry"]>;

/** What the serving routes document: the OIP model name and the tensor widths. */
export interface ServingInfo {
  /** `{name}` in `/v2/models/{name}`. */
  readonly modelName: string;
  /** Number of places (P): the width of the place tensors. */
  readonly places: number;
  /** Number of transitions (T): the width of `transitions`. */
  readonly transitions: number;
  /** The limits infer's 413 states; default: the defaults. */
  readonly requestLimits?: RequestLimits | undefined;
}

const OIP_TAG = "Open Inference Protocol v2";
const SERVING_TAG = "Serving";

/**
 * Registers the serving routes on `registry`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import * as zodToOpenApi from "@asteasolutions/zod-to-openapi";
 * import { registerServingPaths } from "./openapi_serving.ts";
 * const registry = new zodToOpenApi.OpenAPIRegistry();
 * registerServingPaths(registry, { modelName: "m", places: 1, transitions: 1 });
 * const paths = registry.definitions.map((d) => d.type === "route" ? d.route.path : "");
 * assert.ok(paths.includes("/v2/models/{name}/infer"));
 * ```
 */
export function registerServingPaths(registry: Registry, info: ServingInfo): void {
  const json = (description: string, schema: object, example?: unknown) => ({
    description,
    content: {
      "application/json": {
        schema: schema as never,
        ...(example === undefined ? {} : { example }),
      },
    },
  });
  const object = (properties: Record<string, object>) => ({
    type: "object",
    properties,
    required: Object.keys(properties),
  });
  const oipError = (description: string, example: string) =>
    json(description, object({ error: { type: "string" } }), { error: example });
  const get = (
    path: string,
    tags: string[],
    operationId: string,
    summary: string,
    responses: Record<string, unknown>,
    extra: Record<string, unknown> = {},
  ) =>
    registry.registerPath({
      method: "get",
      path,
      tags,
      operationId,
      summary,
      responses: responses as never,
      ...extra,
    });

  get("/readyz", [SERVING_TAG], "readyz", "Readiness: loaded and warmed, and not draining", {
    200: json("Ready", object({ status: { const: "ready" } }), { status: "ready" }),
    503: json("Draining: stop routing here", object({ status: { const: "draining" } }), {
      status: "draining",
    }),
  });
  get("/metrics", [SERVING_TAG], "metrics", "Prometheus metrics (text format 0.0.4)", {
    200: {
      description: "Request counts and durations, ORT run sizes and durations, queue depth, memory",
      content: { "text/plain; version=0.0.4": { schema: { type: "string" } } },
    },
  });
  get("/redoc", [SERVING_TAG], "redoc", "This document in ReDoc", {
    200: {
      description: "The ReDoc page",
      content: { "text/html": { schema: { type: "string" } } },
    },
  });

  get("/v2/health/live", [OIP_TAG], "oipLive", "Liveness", {
    200: json("Live", object({ live: { type: "boolean" } }), { live: true }),
  });
  get("/v2/health/ready", [OIP_TAG], "oipReady", "Readiness (503 while draining)", {
    200: json("Ready", object({ ready: { type: "boolean" } }), { ready: true }),
    503: json("Draining", object({ ready: { type: "boolean" } }), { ready: false }),
  });
  get("/v2", [OIP_TAG], "oipServer", "Server metadata", {
    200: json(
      "Server metadata",
      object({
        name: { type: "string" },
        version: { type: "string" },
        extensions: { type: "array", items: { type: "string" } },
      }),
    ),
  });

  const name = {
    parameters: [{
      name: "name",
      in: "path" as const,
      required: true,
      description: "The model's name: the bundle's scenario_name",
      schema: { type: "string", example: info.modelName },
    }] as never[],
  };
  const unknown = oipError(
    "No model of that name",
    `Unknown model "x": this server serves "${info.modelName}"`,
  );
  const tensorMeta = {
    type: "object",
    properties: {
      name: { type: "string" },
      datatype: { const: "FP32" },
      shape: { type: "array", items: { type: "integer" } },
    },
    required: ["name", "datatype", "shape"],
  };
  get("/v2/models/{name}", [OIP_TAG], "oipModel", "Model metadata: inputs and outputs", {
    200: json(
      "Model metadata; -1 is the batch dimension",
      object({
        name: { type: "string" },
        versions: { type: "array", items: { type: "string" } },
        platform: { type: "string" },
        inputs: { type: "array", items: tensorMeta },
        outputs: { type: "array", items: tensorMeta },
      }),
    ),
    404: unknown,
  }, name);
  get("/v2/models/{name}/ready", [OIP_TAG], "oipModelReady", "Model readiness", {
    200: json("Ready", object({ name: { type: "string" }, ready: { type: "boolean" } })),
    503: json("Draining", object({ name: { type: "string" }, ready: { type: "boolean" } })),
    404: unknown,
  }, name);

  const P = info.places;
  const limits = info.requestLimits ??
    resolveRequestLimits({}, { places: P, transitions: info.transitions });
  const tensor = {
    ...tensorMeta,
    properties: {
      ...tensorMeta.properties,
      shape: { ...tensorMeta.properties.shape, minItems: 2, maxItems: 2 },
      data: { type: "array", description: "Row-major numbers (flat, or nested rows)" },
    },
    required: [...tensorMeta.required, "data"],
  };
  const inferRequest = {
    type: "object",
    properties: {
      id: { type: "string" },
      inputs: {
        type: "array",
        description: `Any of ${INPUTS.join(", ")}, each FP32 [B, P] with ` +
          "columns in /schema's place order; an absent input is zeros; masks hold 0 or 1",
        items: tensor,
      },
      outputs: {
        type: "array",
        description: "Which outputs to return (default both)",
        items: object({ name: { enum: [...OUTPUTS] } }),
      },
    },
    required: ["inputs"],
  };
  const oneHot = Array.from({ length: P }, (_, i) => i === P - 1 ? 1 : 0);
  registry.registerPath({
    method: "post",
    path: "/v2/models/{name}/infer",
    tags: [OIP_TAG],
    operationId: "oipInfer",
    summary: "Transition and place activations for a batch of rows",
    description: "The rows join the same run queue as the other operations. Returns " +
      `transitions [B, ${info.transitions}] and places [B, ${P}].`,
    ...name,
    request: {
      body: {
        required: true,
        content: {
          "application/json": {
            schema: inferRequest as never,
            example: {
              inputs: [
                { name: "marking", datatype: "FP32", shape: [1, P], data: oneHot },
                { name: "marking_mask", datatype: "FP32", shape: [1, P], data: oneHot },
              ],
            },
          },
        },
      },
    },
    responses: {
      200: json(
        "The outputs",
        object({
          model_name: { type: "string" },
          model_version: { type: "string" },
          outputs: { type: "array", items: tensor },
        }),
      ),
      400: oipError(
        "A tensor has the wrong name, datatype, shape or data",
        "Input marking has " +
          `shape [1,${P + 1}], expected [B, ${P}] with B >= 1`,
      ),
      404: unknown,
      413: oipError(
        "The body is larger than the server's limit, the rows (B) are more than the limit of " +
          `${limits.maxRequestRows}, or the answer could be larger than the limit of ` +
          `${limits.maxResponseBytes} bytes (estimated at ${FLOAT32_JSON_BYTES} bytes per number)`,
        tooManyRowsDetail(limits.maxRequestRows + 1, limits.maxRequestRows),
      ),
      422: oipError(
        "A number that FP32 cannot hold: in an input's data (1e999, which JSON parsing makes " +
          "Infinity, or beyond ±3.4e38), or in an output (the model's float32 arithmetic " +
          "overflowed on a row's inputs); no output tensor holds null",
        "Input marking data[0] is not a finite number (a JSON number such as 1e999 overflows " +
          "to Infinity)",
      ),
    } as never,
  });
}
