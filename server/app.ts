/**
 * `createApp`: the HTTP face of one loaded model, as a web-standard fetch handler with no
 * socket (DESIGN.md §4). It runs under `Deno.serve`, Deno Deploy or any runtime with
 * `fetch(Request) -> Response` handlers; tests call `app.fetch(new Request(...))` directly.
 *
 * Routes: `GET /healthz`, `GET /schema`, one `POST` route per row of the operations table
 * (`/forward`, `/anomaly`, `/counterfactual`, `/sensitivity`), `GET /openapi.json`, `GET /docs` (and Swagger
 * UI's two files under `/docs/`). Errors are mapped once (`./errors.ts`): 400 from the
 * operations, 422 (FastAPI's shape) for malformed bodies, 404, 405 with `Allow`, 408 for a
 * body slower than the time-out, 413 over the body limit or a per-request limit
 * (`./request_limits.ts`), 503 with `Retry-After` when admission control (`./admission.ts`)
 * sheds a request, and a bare 500 for anything unexpected, which is logged once.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { createApp } from "./app.ts";
 * import { loadOrt } from "../adapter/deno/ort.ts";
 * import { readBundle } from "../adapter/deno/bundle_files.ts";
 * await using model = await readBundle(await loadOrt(), "examples/rest_serving");
 * const app = await createApp(model, { title: "Loans", version: "1.0.0" });
 * const response = await app.fetch(new Request("http://localhost/healthz"));
 * assert.deepEqual(await response.json(), {
 *   status: "ok",
 *   version: "1.0.0",
 *   n_places: 3,
 *   n_transitions: 2,
 * });
 * // Serving it: Deno.serve({ hostname: "127.0.0.1", port: 8000, signal }, app.fetch);
 * ```
 *
 * @module
 */

import type { OpsModel } from "../core/ops/model.ts";
import { OPERATIONS, type OperationTable } from "../core/ops/operations.ts";
import { createSchemas } from "../core/schemas.ts";
import { parseWithSchema } from "../core/schemas/parse.ts";
import { type BodyLimits, readJsonBody } from "./body.ts";
import { DOCS_ASSETS } from "./docs.ts";
import {
  type ErrorLogger,
  errorResponse,
  HttpError,
  logToConsole,
  ValidationError,
} from "./errors.ts";
import { jsonResponse, stringifyJson } from "./json.ts";
import { buildOpenApiDocument } from "./openapi.ts";
import { loadPackages, type PackageLoaders } from "./packages.ts";
import { Readiness } from "./readiness.ts";
import type { RequestRecord } from "./access_log.ts";
import { metricsFor } from "./metrics.ts";
import { rowCounter } from "./request_rows.ts";
import { createOip, oipModelName } from "./oip.ts";
import { REDOC_ASSETS } from "./redoc.ts";
import { observeRequests, type ResolvedRequest } from "./request_observer.ts";
import { pathOf } from "./request_path.ts";
import { checkRequestBody, resolveRequestLimits } from "./request_limits.ts";
import { requestIdOf } from "./request_id.ts";
import { type AnswerConventions, finishAnswer } from "./finish_answer.ts";
import { Cors } from "./cors.ts";
import { buildInfoMetric, identityParameters, modelIdentity } from "./model_identity.ts";
import { metricsRoute } from "./metrics_route.ts";
import { staticRoutes } from "./static_routes.ts";
import {
  Admission,
  DEFAULT_MAX_BODY_MEMORY_BYTES,
  DEFAULT_QUEUE_TIMEOUT_MS,
  defaultMaxQueueRows,
  type QueueView,
} from "./admission.ts";
import type { QueueLimits } from "../core/runtime.ts";
import { watchModelHealth } from "./model_health.ts";

/**
 * The default title (DESIGN.md §3).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { DEFAULT_TITLE } from "./app.ts";
 * assert.deepEqual(DEFAULT_TITLE, "Petri-net Inference REST API");
 * ```
 */
export const DEFAULT_TITLE = "Petri-net Inference REST API";

/**
 * The default version string, reported by `/healthz`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { DEFAULT_VERSION } from "./app.ts";
 * assert.deepEqual(DEFAULT_VERSION, "0.1.0");
 * ```
 */
export const DEFAULT_VERSION = "0.1.0";

/**
 * The default description: the six endpoints.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { DEFAULT_DESCRIPTION } from "./app.ts";
 * assert.deepEqual(DEFAULT_DESCRIPTION.includes("POST /counterfactual"), true);
 * ```
 */
export const DEFAULT_DESCRIPTION: string =
  "Inference API for one trained Petri-net model. Six endpoints: GET /healthz (liveness and " +
  "size), GET /schema (the net's structure), POST /forward (transition and place " +
  "activations), POST /anomaly (trace scoring), POST /counterfactual (the smallest input " +
  "change that flips a firing decision) and POST /sensitivity (per-input gradients). See " +
  "/docs for the interactive explorer.";

/**
 * The default body limit: 1 MiB.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { DEFAULT_MAX_BODY_BYTES } from "./app.ts";
 * assert.deepEqual(DEFAULT_MAX_BODY_BYTES, 1048576);
 * ```
 */
export const DEFAULT_MAX_BODY_BYTES = 1 << 20;

/**
 * The default time allowed for a request body to arrive: 30 s.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { DEFAULT_BODY_TIMEOUT_MS } from "./app.ts";
 * assert.deepEqual(DEFAULT_BODY_TIMEOUT_MS, 30000);
 * ```
 */
export const DEFAULT_BODY_TIMEOUT_MS = 30_000;

/** Settings of {@link createApp}; every one is optional. */
export interface AppOptions {
  /** Shown in `/docs` and the OpenAPI `info`; empty means the default. */
  readonly title?: string | undefined;
  /** Reported by `/healthz`, shown in `/docs`; default `"0.1.0"`. */
  readonly version?: string | undefined;
  /** The OpenAPI `info.description`; empty means the default. */
  readonly description?: string | undefined;
  /** Largest accepted request body in bytes (default 1 MiB); larger ones are answered 413. */
  readonly maxBodyBytes?: number | undefined;
  /** Time allowed for a request body to arrive (default 30 s); slower ones are answered 408. */
  readonly bodyTimeoutMs?: number | undefined;
  /**
   * Bytes of request bodies and large answers the model routes may hold at once (default
   * 16 MiB); a request that would pass it waits, unread, for room until its deadline, then is
   * answered 503 with `Retry-After` (`./admission.ts`).
   */
  readonly maxBodyMemoryBytes?: number | undefined;
  /**
   * Most rows waiting in the model's queue (default: as many as fit in 128 MiB for this net,
   * `defaultMaxQueueRows` in `./admission.ts`); more are answered 503 with `Retry-After`.
   * createApp sets it on the model's session.
   */
  readonly maxQueueRows?: number | undefined;
  /**
   * How long rows may wait in the model's queue, in ms (default 5 s); longer waits are
   * answered 503 with `Retry-After`. createApp sets it on the model's session.
   */
  readonly queueTimeoutMs?: number | undefined;
  /** Where the model's failure and recovery lines go; default `console.error`. */
  readonly log?: ((line: string) => void) | undefined;
  /**
   * Called once when the model's session cannot be recreated after failed runs (readiness
   * then stays 503); `cli.ts serve` stops and exits 1 so that its supervisor replaces it.
   */
  readonly onModelFailed?: (() => void) | undefined;
  /** Called once for each unexpected error (answered 500); default: `console.error`. */
  readonly onError?: ErrorLogger | undefined;
  /** How to import zod and zod-to-openapi; default: dynamic imports. */
  readonly packages?: PackageLoaders | undefined;
  /** Read by `GET /readyz`; the listener flips it when it drains. Default: always ready. */
  readonly readiness?: Readiness | undefined;
  /**
   * The model's name under `/v2/models/` (Open Inference Protocol); default: the bundle's
   * `scenario_name`, else `"model"`.
   */
  readonly modelName?: string | undefined;
  /**
   * A handler mounted at a path prefix, answered before the routes and counted by the metrics
   * and the access log like them (route `PREFIX/*`); `cli.ts serve` mounts the playground at
   * `/playground`. The handler may decline (`undefined`): the answer is then 404.
   */
  readonly mount?:
    | readonly [prefix: string, handler: (request: Request) => Promise<Response | undefined>]
    | undefined;
  /** Called once per answered request (e.g. `accessLog.record`); must not throw. */
  readonly onRequest?: ((record: RequestRecord) => void) | undefined;
  /** The operations served under `POST`; default: the built-in table (`core/ops/operations.ts`). */
  readonly operations?: OperationTable | undefined;
  /** Most events in one `/anomaly` trace (default 100,000); more are answered 413. */
  readonly maxTraceEvents?: number | undefined;
  /** Most model rows one request may run (default 524,288); more are answered 413. */
  readonly maxRequestRows?: number | undefined;
  /**
   * Largest estimated `/v2` infer answer in bytes (default 64 MiB, more on a net with many more
   * transitions than places); larger ones are answered 413 before the model runs.
   */
  readonly maxResponseBytes?: number | undefined;
  /**
   * Origins whose pages may call the API (CORS, `./cors.ts`): bare origins such as
   * `https://app.example`, or `*` for any. Default: none (no CORS headers; preflights get 405).
   */
  readonly corsOrigins?: readonly string[] | undefined;
  /**
   * More exposition text for `/metrics`, read at each scrape: `cli.ts serve` and
   * `server/main.ts` pass the process metrics (`adapter/deno/process_metrics.ts`).
   */
  readonly extraMetrics?: (() => string) | undefined;
  /**
   * Gather the metrics of every instance of `deno serve --parallel` into each scrape, labelled
   * `instance_id` (`./metrics_instances.ts`), until `signal` aborts: the instances' channel
   * keeps an isolate alive, so abort it at shutdown. `server/main.ts` does. Default: off.
   */
  readonly metricsInstances?: { readonly signal: AbortSignal } | undefined;
}

/** A web-standard HTTP handler. */
export interface App {
  /**
   * Answers one request; never rejects. A bound function: pass it as `Deno.serve`'s handler.
   *
   * @example
   * ```ts
   * import assert from "node:assert/strict";
   * import { type App, createApp } from "./app.ts";
   * import { loadOrt } from "../adapter/deno/ort.ts";
   * import { readBundle } from "../adapter/deno/bundle_files.ts";
   * await using model = await readBundle(await loadOrt(), "examples/rest_serving");
   * const app: App = await createApp(model);
   * const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, app.fetch);
   * const response = await fetch(`http://127.0.0.1:${server.addr.port}/schema`);
   * assert.deepEqual((await response.json()).places, ["p_application", "p_approved", "p_declined"]);
   * await server.shutdown();
   * ```
   */
  readonly fetch: (request: Request) => Promise<Response>;
  /**
   * Answers a request that arrives on a new connection while the server drains
   * (`adapter/deno/listen.ts`): the probes (`/healthz`, `/readyz`, `/v2/health/live`,
   * `/v2/health/ready`) as usual, so an orchestrator sees "alive, not ready", and anything else
   * 503 with `Retry-After`. Counted and logged like every answer.
   *
   * @example
   * ```ts
   * import assert from "node:assert/strict";
   * import { createApp } from "./app.ts";
   * import { Readiness } from "./readiness.ts";
   * import { loadOrt } from "../adapter/deno/ort.ts";
   * import { readBundle } from "../adapter/deno/bundle_files.ts";
   * await using model = await readBundle(await loadOrt(), "examples/rest_serving");
   * const readiness = new Readiness();
   * const app = await createApp(model, { readiness });
   * readiness.drain();
   * const health = await app.fetchWhileDraining(new Request("http://localhost/healthz"));
   * const ready = await app.fetchWhileDraining(new Request("http://localhost/readyz"));
   * const schema = await app.fetchWhileDraining(new Request("http://localhost/schema"));
   * assert.deepEqual([health.status, ready.status, schema.status], [200, 503, 503]);
   * await Promise.all([health, ready, schema].map((r) => r.body?.cancel()));
   * ```
   */
  readonly fetchWhileDraining: (request: Request) => Promise<Response>;
}

/** The probes answered as usual on connections opened during a drain. */
const PROBES = new Set(["/healthz", "/readyz", "/v2/health/live", "/v2/health/ready"]);

type Handler = (request: Request) => Promise<Response> | Response;
type Method = "GET" | "POST";

/** A request's path and route template, found once, and the handler that answers it. */
interface Target extends ResolvedRequest {
  readonly handle: Handler;
}

/**
 * Builds the app for `model`. Loads zod and zod-to-openapi (lazily: here, not when this module
 * is imported) and generates the OpenAPI document once.
 *
 * @throws {import("./packages.ts").MissingPackageError} naming zod or
 * @asteasolutions/zod-to-openapi when either cannot be loaded.
 * @throws {RangeError} when `maxBodyBytes`, `bodyTimeoutMs`, a per-request limit,
 * `maxBodyMemoryBytes`, `maxQueueRows` or `queueTimeoutMs` is not a positive number.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { createApp } from "./app.ts";
 * import { loadOrt } from "../adapter/deno/ort.ts";
 * import { readBundle } from "../adapter/deno/bundle_files.ts";
 * await using model = await readBundle(await loadOrt(), "examples/rest_serving");
 * const app = await createApp(model);
 * const response = await app.fetch(
 *   new Request("http://localhost/forward", {
 *     method: "POST",
 *     body: JSON.stringify({ input_marking: { p_application: 1 } }),
 *   }),
 * );
 * assert.equal(response.status, 200);
 * assert.ok((await response.json()).transition_activations.t_approve > 0.99);
 * const unknown = await app.fetch(
 *   new Request("http://localhost/forward", {
 *     method: "POST",
 *     body: JSON.stringify({ input_marking: { p_x: 1 } }),
 *   }),
 * );
 * assert.deepEqual([unknown.status, await unknown.json()], [400, {
 *   detail: "input_marking has ids that are not in the net's place set: 'p_x'",
 * }]);
 * ```
 */
export async function createApp(model: OpsModel, options: AppOptions = {}): Promise<App> {
  const info = {
    title: options.title || DEFAULT_TITLE,
    version: options.version ?? DEFAULT_VERSION,
    description: options.description || DEFAULT_DESCRIPTION,
  };
  const limits: BodyLimits = {
    maxBytes: positive("maxBodyBytes", options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES, true),
    timeoutMs: positive("bodyTimeoutMs", options.bodyTimeoutMs ?? DEFAULT_BODY_TIMEOUT_MS, false),
  };
  const onError = options.onError ?? logToConsole;
  const { zod, zodToOpenApi } = await loadPackages(options.packages);
  const operations = options.operations ?? OPERATIONS;
  const schemas = createSchemas(zod, operations);

  const { net } = model;
  const readiness = options.readiness ?? new Readiness();
  const modelName = options.modelName ?? oipModelName(model);
  const requestLimits = resolveRequestLimits(options, {
    places: net.places.length,
    transitions: net.transitions.length,
  });
  const identity = modelIdentity(model, modelName);
  limitQueue(model, {
    maxQueueRows: options.maxQueueRows ??
      defaultMaxQueueRows(model.net.places.length, model.net.transitions.length),
    queueTimeoutMs: options.queueTimeoutMs ?? DEFAULT_QUEUE_TIMEOUT_MS,
  });
  const admission = new Admission({
    maxBodyMemoryBytes: options.maxBodyMemoryBytes ?? DEFAULT_MAX_BODY_MEMORY_BYTES,
    maxBodyBytes: limits.maxBytes,
    queueTimeoutMs: options.queueTimeoutMs,
    queue: queueOf(model),
    cutoff: readiness.cutoff,
    onShed(reason) {
      metrics.recordShed(reason);
      if (reason === "model_unavailable") health.refused();
    },
  });
  const metrics = metricsFor(model, {
    inFlight: () => admission.inFlight,
    waiting: () => admission.waiting,
    heldBytes: () => admission.heldBytes,
  });
  const health = watchModelHealth(model, {
    readiness,
    log: options.log ?? ((line) => console.error(line)),
    onGaveUp: options.onModelFailed,
  });
  // The operations see the model through admission: runs withdrawn with their request, and
  // the queue's refusals answered 503.
  const served = admission.guard(model);
  const oip = createOip(served, {
    name: modelName,
    version: info.version,
    modelVersion: identity.version,
    modelParameters: identityParameters(identity),
    readiness,
    limits,
    requestLimits,
  });
  const json = (text: string): Handler => () =>
    new Response(text, { headers: { "content-type": "application/json" } });
  const healthText = stringifyJson({
    status: "ok",
    version: info.version,
    n_places: net.places.length,
    n_transitions: net.transitions.length,
  });
  const schemaText = stringifyJson({
    places: net.places,
    transitions: new Map(net.transitions.map((t) => [t, model.label(t)])),
    initial_marking: net.initialMarking,
    has_silent_transitions: net.silentTransitions.length > 0,
    has_structural_guards: net.structuralGuards.size > 0,
  });
  // Built on the first request for it: it is the largest part of createApp's work, and start-up
  // (spawn to first answer) should not wait for a document most clients never fetch.
  const openApi = () =>
    stringifyJson(
      buildOpenApiDocument(schemas, zodToOpenApi, info, { ...limits, ...requestLimits }, {
        modelName,
        modelVersion: identity.version,
        places: net.places.length,
        transitions: net.transitions.length,
        requestLimits,
        docsFiles: [...DOCS_ASSETS.keys()],
        redocFiles: [...REDOC_ASSETS.keys()],
        mountPrefix: options.mount?.[0],
      }, operations),
    );
  const cors = options.corsOrigins?.length ? new Cors(options.corsOrigins) : undefined;
  const conventions: AnswerConventions = { cors };

  const counted = rowCounter(served, requestLimits.maxRequestRows);
  const operation = (row: OperationTable[number]): Handler => async (request) => {
    const body = await readJsonBody(request, limits);
    checkRequestBody(row.name, body, requestLimits);
    const parsed = parseWithSchema(schemas.requests[row.name], body);
    if (!parsed.success) throw new ValidationError(parsed.issues);
    return jsonResponse(200, await row.run(counted(request), parsed.data));
  };

  const routes = new Map<string, Partial<Record<Method, Handler>>>([
    ["/healthz", { GET: json(healthText) }],
    ["/readyz", { GET: () => readiness.response() }],
    ["/schema", { GET: json(schemaText) }],
    ...operations.map((row): [string, Partial<Record<Method, Handler>>] => [
      row.path,
      { POST: operation(row) },
    ]),
    ["/metrics", { GET: metricsRoute(metrics, buildInfoMetric(info.version, identity), options) }],
  ]);
  for (const [path, asset] of staticRoutes(info, identity, openApi)) {
    routes.set(path, { GET: (request) => asset.respond(request) });
  }

  // Each path's handler, with the method dispatch: HEAD is GET (finishAnswer drops the body),
  // and any other method is answered 405 with the route's methods in `Allow`.
  const targets = new Map<string, Handler>();
  for (const [path, methods] of routes) {
    const allow = Object.keys(methods).flatMap((m) => m === "GET" ? ["GET", "HEAD"] : [m])
      .join(", ");
    targets.set(path, async (request) => {
      const method = request.method === "HEAD" ? "GET" : request.method;
      // Own keys only: a method such as "constructor" must not find Object.prototype's.
      const handler = Object.hasOwn(methods, method) ? methods[method as Method] : undefined;
      if (handler === undefined) throw new HttpError(405, "Method Not Allowed", { allow });
      return await handler(request);
    });
  }
  // The routes that run the model pass admission control first; the others never wait on it.
  for (const row of operations) {
    const dispatch = targets.get(row.path)!;
    targets.set(
      row.path,
      (request) => admission.admit(request, async (r) => await dispatch(r), "detail"),
    );
  }
  const notFound: Handler = () => {
    throw new HttpError(404, "Not Found");
  };
  const [prefix, mountHandler] = options.mount ?? [];
  const mountRoute = `${prefix}/*`;
  const mounted: Handler = async (request) => {
    const answer = await mountHandler!(request);
    if (answer === undefined) throw new HttpError(404, "Not Found");
    return answer;
  };

  const resolve = (request: Request): Target => {
    const path = pathOf(request);
    const requestId = requestIdOf(request);
    if (prefix !== undefined && (path === prefix || path.startsWith(`${prefix}/`))) {
      return { path, route: mountRoute, requestId, handle: mounted };
    }
    const v2 = oip.route(path);
    if (v2 !== undefined) {
      const handle = v2.template.endsWith("/infer")
        ? (request: Request) => admission.admit(request, (r) => oip.fetch(v2, r), "error")
        : (request: Request) => oip.fetch(v2, request);
      return { path, route: v2.template, requestId, handle };
    }
    const handle = targets.get(path);
    return handle === undefined
      ? { path, route: "unmatched", requestId, handle: notFound }
      : { path, route: path, requestId, handle };
  };

  const answer = async (request: Request, target: Target): Promise<Response> => {
    const response = cors?.preflight(request) ?? await handled(request, target);
    try {
      return await finishAnswer(request, response, target.requestId, conventions);
    } catch (error) {
      onError(error, request);
      return internalError();
    }
  };
  const handled = async (request: Request, target: Target): Promise<Response> => {
    try {
      return await target.handle(request);
    } catch (error) {
      try {
        return errorResponse(error, (e) => onError(e, request));
      } catch (failure) {
        // Writing the error failed too (e.g. an echoed input too deep to serialise).
        onError(failure, request);
        return internalError();
      }
    }
  };
  const observers = { metrics, onRequest: options.onRequest };
  const refuse: Handler = () => {
    throw new HttpError(503, "The server is shutting down", { "retry-after": "1" });
  };
  const resolveWhileDraining = (request: Request): Target => {
    const target = resolve(request);
    return PROBES.has(target.path) ? target : { ...target, handle: refuse };
  };
  return {
    fetch: observeRequests(resolve, answer, observers),
    fetchWhileDraining: observeRequests(resolveWhileDraining, answer, observers),
  };
}

function internalError(): Response {
  return new Response('{"detail":"Internal Server Error"}', {
    status: 500,
    headers: { "content-type": "application/json" },
  });
}

/** `model`'s queue, when it has a session that shows it (core/bundle.ts's do). */
function queueOf(model: object): QueueView | undefined {
  const session = (model as { session?: Partial<QueueView> }).session;
  return typeof session?.queuedRows === "number" && session.queueLimits !== undefined
    ? session as QueueView
    : undefined;
}

/** Bounds `model`'s queue when it has a session that takes bounds (core/bundle.ts's do). */
function limitQueue(model: object, limits: QueueLimits): void {
  positive("maxQueueRows", limits.maxQueueRows!, true);
  positive("queueTimeoutMs", limits.queueTimeoutMs!, false);
  const session = (model as { session?: { limitQueue?: unknown } }).session;
  if (typeof session?.limitQueue === "function") session.limitQueue(limits);
}

function positive(name: string, value: number, integer: boolean): number {
  const ok = integer ? Number.isSafeInteger(value) : Number.isFinite(value);
  if (!ok || value <= 0) {
    throw new RangeError(
      `${name} must be a positive ${integer ? "integer" : "number"}, got ${value}`,
    );
  }
  return value;
}
