/**
 * A route's documentation, carried by the route itself so that the OpenAPI document is built
 * from the route table: per method, what zod-to-openapi's `registerPath` takes (path and method
 * aside), plus the document's tags and the shapes several routes' documentation share.
 *
 * @module
 */

/** One method of a route in the OpenAPI document. */
export interface MethodDoc {
  readonly tags: readonly string[];
  readonly operationId: string;
  readonly summary: string;
  readonly description: string;
  /** Path and query parameters (OpenAPI parameter objects). */
  readonly parameters?: readonly object[] | undefined;
  /** The request body (zod-to-openapi's `request`). */
  readonly request?: object | undefined;
  /** The responses by status code. */
  readonly responses: Readonly<Record<string, unknown>>;
}

/** A route's methods in the document, by HTTP method (`HEAD` and `OPTIONS` are implied). */
export interface RouteDoc {
  /** The template documented, when it is not the route's own (one entry for many files). */
  readonly path?: string | undefined;
  readonly GET?: MethodDoc | undefined;
  readonly POST?: MethodDoc | undefined;
}

/** The document's tags, each with its description, in the document's order. */
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

/** A JSON response with `schema`, and `example` when given. */
export function jsonContent(description: string, schema: unknown, example?: unknown): object {
  return {
    description,
    content: {
      "application/json": { schema, ...(example === undefined ? {} : { example }) },
    },
  };
}

/** A JSON Schema object whose properties are all required. */
export function objectSchema(properties: Record<string, object>): object {
  return { type: "object", properties, required: Object.keys(properties) };
}

/** A required path parameter. */
export function pathParameter(name: string, description: string, schema: object): object {
  return { name, in: "path", required: true, description, schema };
}
