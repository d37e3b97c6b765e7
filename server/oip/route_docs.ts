/**
 * The Open Inference Protocol's routes in the OpenAPI document, by route template, with and
 * without the model's version. Their bodies are plain JSON Schema objects (the requests are
 * checked by hand, not by zod).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { oipDocs } from "./route_docs.ts";
 * const docs = oipDocs({ modelName: "loans", modelVersion: "1", places: 3, transitions: 2 });
 * assert.equal(docs["/v2/models/{name}/infer"]?.POST?.operationId, "oipInfer");
 * ```
 *
 * @module
 */

import {
  jsonContent as json,
  objectSchema as object,
  pathParameter,
  type RouteDoc,
  TAGS,
} from "../http/mod.ts";
import {
  FLOAT32_JSON_BYTES,
  type RequestLimits,
  resolveRequestLimits,
  tooManyRowsDetail,
} from "../pipeline/mod.ts";
import { INPUTS, OUTPUTS } from "./tensors.ts";

/** What the documentation states about the served model. */
export interface OipDocInfo {
  /** `{name}` in `/v2/models/{name}`. */
  readonly modelName: string;
  /** `{version}` in `/v2/models/{name}/versions/{version}`. */
  readonly modelVersion: string;
  /** Number of places (P): the width of the place tensors. */
  readonly places: number;
  /** Number of transitions (T): the width of `transitions`. */
  readonly transitions: number;
  /** The limits infer's 413 states; default: the defaults. */
  readonly requestLimits?: RequestLimits | undefined;
}

const OIP = [TAGS.oip.name];

/** Each documented route's documentation, by template. */
export function oipDocs(info: OipDocInfo): Record<string, RouteDoc> {
  const docs: Record<string, RouteDoc> = {};
  const get = (
    path: string,
    operationId: string,
    summary: string,
    description: string,
    responses: Record<string, unknown>,
    parameters?: readonly object[],
  ) => {
    docs[path] = {
      GET: {
        tags: OIP,
        operationId,
        summary,
        description,
        responses,
        ...(parameters === undefined ? {} : { parameters }),
      },
    };
  };
  const oipError = (description: string, example: string) =>
    json(description, object({ error: { type: "string" } }), { error: example });

  get(
    "/v2/health/live",
    "oipLive",
    "Liveness",
    "200 while the process serves, also while it drains.",
    { 200: json("Live", object({ live: { type: "boolean" } }), { live: true }) },
  );
  get(
    "/v2/health/ready",
    "oipReady",
    "Readiness (503 while draining)",
    "As /readyz, in the protocol's shape.",
    {
      200: json("Ready", object({ ready: { type: "boolean" } }), { ready: true }),
      503: json("Draining", object({ ready: { type: "boolean" } }), { ready: false }),
    },
  );
  get(
    "/v2",
    "oipServer",
    "Server metadata",
    "The server's name and version and the protocol extensions it supports (none). /v2/ " +
      "answers the same.",
    {
      200: json(
        "Server metadata",
        object({
          name: { type: "string" },
          version: { type: "string" },
          extensions: { type: "array", items: { type: "string" } },
        }),
      ),
    },
  );

  const name = pathParameter("name", "The model's name: the bundle's scenario_name", {
    type: "string",
    example: info.modelName,
  });
  const version = pathParameter(
    "version",
    "The model's version: the first 12 hex digits of its ONNX file's SHA-256",
    { type: "string", example: info.modelVersion },
  );
  const unknown = oipError(
    "No model of that name, or not that version",
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
  const parameters = {
    type: "object",
    description: "Protocol parameters: strings, numbers or booleans. binary_data, " +
      "binary_data_output, binary_data_size and classification are refused (400); others " +
      "have no effect.",
    additionalProperties: { type: ["string", "number", "boolean"] },
  };
  const routes = [
    { path: "/v2/models/{name}", id: "", parameters: [name] },
    { path: "/v2/models/{name}/versions/{version}", id: "Version", parameters: [name, version] },
  ];
  for (const route of routes) {
    get(
      route.path,
      `oipModel${route.id}`,
      "Model metadata: versions, inputs and outputs",
      "The model's version and its identity in parameters (scenario, onnx_sha256, saved_at); " +
        "the input and output tensors with their datatypes and shapes.",
      {
        200: json("Model metadata; -1 is the batch dimension", {
          type: "object",
          properties: {
            name: { type: "string" },
            versions: { type: "array", items: { type: "string" } },
            platform: { type: "string" },
            inputs: { type: "array", items: tensorMeta },
            outputs: { type: "array", items: tensorMeta },
            parameters: {
              type: "object",
              additionalProperties: { type: "string" },
              description: "scenario, onnx_sha256 and saved_at, those the bundle has",
            },
          },
          required: ["name", "versions", "platform", "inputs", "outputs"],
        }),
        404: unknown,
      },
      route.parameters,
    );
    get(
      `${route.path}/ready`,
      `oipModelReady${route.id}`,
      "Model readiness",
      "As /v2/health/ready, for this model.",
      {
        200: json("Ready", object({ name: { type: "string" }, ready: { type: "boolean" } })),
        503: json("Draining", object({ name: { type: "string" }, ready: { type: "boolean" } })),
        404: unknown,
      },
      route.parameters,
    );
  }

  const P = info.places;
  const limits = info.requestLimits ??
    resolveRequestLimits({}, { places: P, transitions: info.transitions });
  const tensor = (data: object) => ({
    ...tensorMeta,
    properties: {
      ...tensorMeta.properties,
      shape: { ...tensorMeta.properties.shape, minItems: 2, maxItems: 2 },
      data,
    },
    required: [...tensorMeta.required, "data"],
  });
  const inputTensor = tensor({
    type: "array",
    description: "Row-major numbers: flat, or one array per row",
    items: { oneOf: [{ type: "number" }, { type: "array", items: { type: "number" } }] },
  });
  const inferRequest = {
    type: "object",
    properties: {
      id: { type: "string", description: "Echoed in the answer" },
      parameters,
      inputs: {
        type: "array",
        description: `Any of ${INPUTS.join(", ")}, each FP32 [B, P] with ` +
          "columns in /schema's place order; an absent input is zeros; masks hold 0 or 1",
        items: { ...inputTensor, properties: { ...inputTensor.properties, parameters } },
      },
      outputs: {
        type: "array",
        description: "Which outputs to return (default both)",
        items: {
          type: "object",
          properties: { name: { enum: [...OUTPUTS] }, parameters },
          required: ["name"],
        },
      },
    },
    required: ["inputs"],
  };
  const oneHot = Array.from({ length: P }, (_, i) => i === P - 1 ? 1 : 0);
  for (const route of routes) {
    docs[`${route.path}/infer`] = {
      POST: {
        tags: OIP,
        operationId: `oipInfer${route.id}`,
        summary: "Transition and place activations for a batch of rows",
        description: "The rows join the same run queue as the other operations. Returns " +
          `transitions [B, ${info.transitions}] and places [B, ${P}], with the model's version.`,
        parameters: route.parameters,
        request: {
          body: {
            required: true,
            content: {
              "application/json": {
                schema: inferRequest,
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
              outputs: {
                type: "array",
                items: tensor({
                  type: "array",
                  items: { type: "number" },
                  description: "Row-major",
                }),
              },
            }),
          ),
          400: oipError(
            "A tensor has the wrong name, datatype, shape or data, or a parameter is refused",
            `Input marking has shape [1,${P + 1}], expected [B, ${P}] with B >= 1`,
          ),
          404: unknown,
          408: oipError(
            "The body did not arrive in time",
            "The request body did not arrive in time",
          ),
          413: oipError(
            "The body is larger than the server's limit, the rows (B) are more than the limit " +
              `of ${limits.maxRequestRows}, or the answer could be larger than the limit of ` +
              `${limits.maxResponseBytes} bytes (estimated at ${FLOAT32_JSON_BYTES} bytes per ` +
              "number)",
            tooManyRowsDetail(limits.maxRequestRows + 1, limits.maxRequestRows),
          ),
          422: oipError(
            "A number that FP32 cannot hold: in an input's data (1e999, which JSON parsing " +
              "makes Infinity, or beyond ±3.4e38), or in an output (the model's float32 " +
              "arithmetic overflowed on a row's inputs); no output tensor holds null",
            "Input marking data[0] is not a finite number (a JSON number such as 1e999 " +
              "overflows to Infinity)",
          ),
        },
      },
    };
  }
  return docs;
}
