/**
 * Every route of the server beside the six operations, in the OpenAPI document: `POST /batch`
 * (`./batch_path.ts`); `/readyz` and `/metrics`; the documentation and its files (`/`, `/favicon.ico`, `/openapi.json`, `/docs`,
 * `/redoc` and their files, the mounted playground); and the Open Inference Protocol v2 routes
 * under `/v2`, with and without the model's version. Their bodies are plain JSON Schema objects
 * (they are not zod-validated requests). Every `GET` also answers `HEAD` (RFC 9110), and with
 * `--cors-origin` every route answers CORS preflights (`OPTIONS`); neither is listed.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import * as zodToOpenApi from "@asteasolutions/zod-to-openapi";
 * import { registerServingPaths } from "./serving_paths.ts";
 * const registry = new zodToOpenApi.OpenAPIRegistry();
 * registerServingPaths(registry, { modelName: "loans", modelVersion: "1", places: 3, transitions: 2 });
 * const paths = registry.definitions.map((d) => d.type === "route" ? d.route.path : "");
 * assert.ok(paths.includes("/v2/models/{name}/versions/{version}/infer"));
 * ```
 *
 * @module
 */

import { INPUTS, OUTPUTS } from "../oip/mod.ts";
import { type BatchInfo, registerBatchPath } from "./batch_path.ts";
import {
  FLOAT32_JSON_BYTES,
  type RequestLimits,
  resolveRequestLimits,
  tooManyRowsDetail,
  type ZodToOpenApiModule,
} from "../pipeline/mod.ts";

type Registry = InstanceType<ZodToOpenApiModule["OpenAPIRegistry"]>;

/** What the serving routes document. */
export interface ServingInfo {
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
  /** The files under `/docs/` (Swagger UI's); none documented when absent. */
  readonly docsFiles?: readonly string[];
  /** The files under `/redoc/`. */
  readonly redocFiles?: readonly string[];
  /** The prefix of the mounted handler (the playground: `/playground`), when there is one. */
  readonly mountPrefix?: string | undefined;
  /** `POST /batch`'s bounds, when the server scores logs (`./batch_path.ts`). */
  readonly batch?: BatchInfo | undefined;
}

/**
 * The document's tags, each with its description.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { TAGS } from "./serving_paths.ts";
 * assert.equal(TAGS.oip.name, "Open Inference Protocol v2");
 * ```
 */
export const TAGS = {
  model: { name: "Model", description: "The served net: liveness, size and structure." },
  operations: {
    name: "Operations",
    description: "The model's operations: activations, anomaly scores, counterfactuals and " +
      'gradients. Bodies are JSON; errors are {"detail": ...} (422 in FastAPI\'s shape).',
  },
  logs: {
    name: "Logs",
    description: "A whole event log scored in one request, streamed in and out as cli.ts " +
      "batch scores it.",
  },
  serving: {
    name: "Serving",
    description: "For orchestrators and monitoring: readiness (503 while draining) and " +
      "Prometheus metrics.",
  },
  documentation: {
    name: "Documentation",
    description: "This document, its two viewers, the links page and the playground. Static " +
      "files have strong ETags and Last-Modified (304 on If-None-Match / If-Modified-Since) " +
      "and are sent brotli- or gzip-compressed when the client accepts it.",
  },
  oip: {
    name: "Open Inference Protocol v2",
    description: "KServe's and Triton's REST protocol, so their clients can call the model. " +
      'Errors are {"error": ...}.',
  },
} as const;

const OIP = [TAGS.oip.name];
const SERVING = [TAGS.serving.name];
const DOCUMENTATION = [TAGS.documentation.name];

/**
 * Registers the serving routes on `registry`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import * as zodToOpenApi from "@asteasolutions/zod-to-openapi";
 * import { registerServingPaths } from "./serving_paths.ts";
 * const registry = new zodToOpenApi.OpenAPIRegistry();
 * registerServingPaths(registry, { modelName: "m", modelVersion: "1", places: 1, transitions: 1 });
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
  const notFound = json("No such file", object({ detail: { type: "string" } }), {
    detail: "Not Found",
  });
  const file = (description: string, type: string) => ({
    description,
    content: { [type]: { schema: { type: "string" } } },
  });
  const notModified = { description: "Not Modified: the ETag or the date matched" };
  const get = (
    path: string,
    tags: readonly string[],
    operationId: string,
    summary: string,
    description: string,
    responses: Record<string, unknown>,
    extra: Record<string, unknown> = {},
  ) =>
    registry.registerPath({
      method: "get",
      path,
      tags: [...tags],
      operationId,
      summary,
      description,
      responses: responses as never,
      ...extra,
    });
  const pathParameter = (name: string, description: string, schema: object) => ({
    name,
    in: "path" as const,
    required: true,
    description,
    schema,
  });

  if (info.batch !== undefined) registerBatchPath(registry, info.batch, TAGS.logs.name);
  get(
    "/readyz",
    SERVING,
    "readyz",
    "Readiness: loaded and warmed, and not draining",
    "200 once the model is loaded and warmed; 503 from the moment a drain begins (SIGTERM), " +
      "on every connection, so load balancers stop routing here before the socket closes.",
    {
      200: json("Ready", object({ status: { const: "ready" } }), { status: "ready" }),
      503: json("Draining: stop routing here", object({ status: { const: "draining" } }), {
        status: "draining",
      }),
    },
  );
  get(
    "/metrics",
    SERVING,
    "metrics",
    "Prometheus metrics (text format 0.0.4)",
    "Request counts and durations by route template, ONNX Runtime run sizes and durations, " +
      "the run queue, the build info (server version, model, model SHA-256) and the process " +
      "metrics. Under deno serve --parallel, every instance's series, labelled instance_id.",
    {
      200: {
        description: "The metrics",
        content: { "text/plain; version=0.0.4": { schema: { type: "string" } } },
      },
    },
  );
  get(
    "/",
    DOCUMENTATION,
    "home",
    "Links page",
    "A small HTML page with the served model's identity and links to the documentation, the " +
      "playground, the metrics and the probes.",
    { 200: file("The page", "text/html"), 304: notModified },
  );
  get(
    "/favicon.ico",
    DOCUMENTATION,
    "favicon",
    "The icon",
    "A 32×32 icon: a Petri-net place holding a token.",
    { 200: file("The icon", "image/x-icon"), 304: notModified },
  );
  get(
    "/openapi.json",
    DOCUMENTATION,
    "openapi",
    "This document",
    "The OpenAPI 3.1 document of this server, generated from the request and answer schemas.",
    {
      200: json("The document", { type: "object" }),
      304: notModified,
    },
  );
  get(
    "/docs",
    DOCUMENTATION,
    "docs",
    "This document in Swagger UI",
    "The interactive API explorer; its script and stylesheet come from this server (/docs/).",
    { 200: file("The page", "text/html"), 304: notModified },
  );
  get(
    "/redoc",
    DOCUMENTATION,
    "redoc",
    "This document in ReDoc",
    "The API reference; its script comes from this server (/redoc/).",
    { 200: file("The page", "text/html"), 304: notModified },
  );
  const files = (
    prefix: string,
    names: readonly string[] | undefined,
    operationId: string,
    what: string,
  ) => {
    if (!names?.length) return;
    get(
      `${prefix}/{file}`,
      DOCUMENTATION,
      operationId,
      `${what}'s files`,
      `The script and stylesheet ${prefix} loads, served from this server (cached for a day).`,
      { 200: file("The file", "text/javascript"), 304: notModified, 404: notFound },
      {
        parameters: [
          pathParameter("file", "The file's name", { type: "string", enum: [...names] }),
        ] as never[],
      },
    );
  };
  files("/docs", info.docsFiles, "docsFile", "Swagger UI");
  files("/redoc", info.redocFiles, "redocFile", "ReDoc");
  if (info.mountPrefix !== undefined) {
    const prefix = info.mountPrefix;
    get(
      `${prefix}/{path}`,
      DOCUMENTATION,
      "playground",
      "The playground",
      `The playground's page and files (${prefix} redirects to ${prefix}/ with 308): it runs ` +
        "the model in the browser (ONNX Runtime Web). " +
        "Files whose names hold a content hash are cached for a year (immutable); the page, " +
        "main.js and the stylesheet are revalidated on each use.",
      {
        200: file("The file (index.html for a directory)", "text/html"),
        304: notModified,
        404: notFound,
      },
      {
        parameters: [
          pathParameter("path", "A file of the playground; empty for the page", {
            type: "string",
            example: "index.html",
          }),
        ] as never[],
      },
    );
  }

  get(
    "/v2/health/live",
    OIP,
    "oipLive",
    "Liveness",
    "200 while the process serves, also while it drains.",
    { 200: json("Live", object({ live: { type: "boolean" } }), { live: true }) },
  );
  get(
    "/v2/health/ready",
    OIP,
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
    OIP,
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
    const at = { parameters: route.parameters as never[] };
    get(
      route.path,
      OIP,
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
      at,
    );
    get(
      `${route.path}/ready`,
      OIP,
      `oipModelReady${route.id}`,
      "Model readiness",
      "As /v2/health/ready, for this model.",
      {
        200: json("Ready", object({ name: { type: "string" }, ready: { type: "boolean" } })),
        503: json("Draining", object({ name: { type: "string" }, ready: { type: "boolean" } })),
        404: unknown,
      },
      at,
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
  const inputTensor = {
    ...tensor({
      type: "array",
      description: "Row-major numbers: flat, or one array per row",
      items: { oneOf: [{ type: "number" }, { type: "array", items: { type: "number" } }] },
    }),
  };
  inputTensor.properties = { ...inputTensor.properties, parameters } as never;
  const inferRequest = {
    type: "object",
    properties: {
      id: { type: "string", description: "Echoed in the answer" },
      parameters,
      inputs: {
        type: "array",
        description: `Any of ${INPUTS.join(", ")}, each FP32 [B, P] with ` +
          "columns in /schema's place order; an absent input is zeros; masks hold 0 or 1",
        items: inputTensor,
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
    registry.registerPath({
      method: "post",
      path: `${route.path}/infer`,
      tags: OIP,
      operationId: `oipInfer${route.id}`,
      summary: "Transition and place activations for a batch of rows",
      description: "The rows join the same run queue as the other operations. Returns " +
        `transitions [B, ${info.transitions}] and places [B, ${P}], with the model's version.`,
      parameters: route.parameters as never[],
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
            outputs: {
              type: "array",
              items: tensor({ type: "array", items: { type: "number" }, description: "Row-major" }),
            },
          }),
        ),
        400: oipError(
          "A tensor has the wrong name, datatype, shape or data, or a parameter is refused",
          `Input marking has shape [1,${P + 1}], expected [B, ${P}] with B >= 1`,
        ),
        404: unknown,
        408: oipError("The body did not arrive in time", "The request body did not arrive in time"),
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
}
