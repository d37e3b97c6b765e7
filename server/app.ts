/**
 * `createApp`, the composition root: the route table of one loaded model, each route with its
 * handler and its documentation, and the pipeline around it, as a web-standard fetch handler.
 *
 * @module
 */

import type { Model } from "../core/bundle/mod.ts";
import { OPERATIONS, type OperationTable } from "../core/ops/mod.ts";
import { createSchemas } from "../core/schemas/mod.ts";
import { parseWithSchema } from "../core/schemas/mod.ts";
import {
  Admission,
  type BodyLimits,
  buildInfoMetric,
  catchErrors,
  checkHost,
  checkRequestBody,
  type ClientInfo,
  clientSignalOf,
  compose,
  DEFAULT_MAX_BODY_MEMORY_BYTES,
  DEFAULT_QUEUE_TIMEOUT_MS,
  defaultMaxQueueRows,
  finish,
  type Handler,
  identityParameters,
  loadPackages,
  modelDocs,
  modelIdentity,
  observe,
  operationDoc,
  type PackageLoaders,
  Readiness,
  readJsonBody,
  READYZ_DOC,
  RequestContext,
  resolveRequestLimits,
  type Route,
  route,
  wantsLogPacing,
  watchModelHealth,
} from "./pipeline/mod.ts";
import { buildOpenApiDocument, mountDoc, staticRoutes } from "./openapi/mod.ts";
import {
  Cors,
  type ErrorLogger,
  HttpError,
  jsonResponse,
  logToConsole,
  type RouteDoc,
  stringifyJson,
  ValidationError,
} from "./http/mod.ts";
import { METRICS_DOC, metricsFor, metricsRoute, type RequestRecord } from "./metrics/mod.ts";
import { createOip } from "./oip/mod.ts";
import {
  batchDoc,
  DEFAULT_LOG_READ_AHEAD_BYTES,
  DEFAULT_MAX_CONCURRENT_LOGS,
  LogScoring,
} from "./log_scoring/mod.ts";

/** The default title. */
export const DEFAULT_TITLE = "Petri-net Inference REST API";

/** The default version string, reported by `/healthz`. */
export const DEFAULT_VERSION = "0.1.0";

/** The default description: the six endpoints. */
export const DEFAULT_DESCRIPTION: string =
  "Inference API for one trained Petri-net model. Six endpoints: GET /healthz (liveness and " +
  "size), GET /schema (the net's structure), POST /forward (transition and place " +
  "activations), POST /anomaly (trace scoring), POST /counterfactual (the smallest input " +
  "change that flips a firing decision) and POST /sensitivity (per-input gradients). See " +
  "/docs for the interactive explorer.";

/** The default body limit: 1 MiB. */
export const DEFAULT_MAX_BODY_BYTES = 1 << 20;

/** The default time allowed for a request body to arrive: 30 s. */
export const DEFAULT_BODY_TIMEOUT_MS = 30_000;

/** Settings of {@link createApp}; every one is optional. */
export interface AppOptions {
  /** Shown in `/docs` and the OpenAPI `info`; empty means the default. */
  readonly title?: string | undefined;
  /**
   * Reported by `/healthz`, shown in `/docs`.
   * @default {"0.1.0"}
   */
  readonly version?: string | undefined;
  /** The OpenAPI `info.description`; empty means the default. */
  readonly description?: string | undefined;
  /**
   * Largest accepted request body in bytes; larger ones are answered 413.
   * @default {DEFAULT_MAX_BODY_BYTES}
   */
  readonly maxBodyBytes?: number | undefined;
  /**
   * Time allowed for a request body to arrive; slower ones are answered 408.
   * @default {DEFAULT_BODY_TIMEOUT_MS}
   */
  readonly bodyTimeoutMs?: number | undefined;
  /**
   * Bytes of bodies and large responses the model routes hold at once; past it requests wait.
   * @default {DEFAULT_MAX_BODY_MEMORY_BYTES}
   */
  readonly maxBodyMemoryBytes?: number | undefined;
  /**
   * Most rows waiting in the model's queue; more are answered 503. Set on the model's session.
   * @default as many as fit in 128 MiB for this net (`defaultMaxQueueRows`)
   */
  readonly maxQueueRows?: number | undefined;
  /**
   * How long rows may wait in the model's queue, in ms; longer waits are answered 503.
   * @default {DEFAULT_QUEUE_TIMEOUT_MS}
   */
  readonly queueTimeoutMs?: number | undefined;
  /**
   * Where the model's failure and recovery lines go.
   * @default {console.error}
   */
  readonly log?: ((line: string) => void) | undefined;
  /** Called once when the model's session cannot be recreated (readiness then stays 503). */
  readonly onModelFailed?: (() => void) | undefined;
  /**
   * Called once for each unexpected error (answered 500).
   * @default {console.error}
   */
  readonly onError?: ErrorLogger | undefined;
  /**
   * How to import zod and zod-to-openapi.
   * @default dynamic imports
   */
  readonly packages?: PackageLoaders | undefined;
  /**
   * Read by `GET /readyz`; the listener flips it when it drains.
   * @default always ready
   */
  readonly readiness?: Readiness | undefined;
  /**
   * The model's name under `/v2/models/` (Open Inference Protocol).
   * @default the model's `scenario_name`, else its file's stem
   */
  readonly modelName?: string | undefined;
  /** A handler mounted at a path prefix, counted and logged; one that declines gives 404. */
  readonly mount?:
    | readonly [prefix: string, handler: (request: Request) => Promise<Response | undefined>]
    | undefined;
  /**
   * Logs `POST /batch` scores at once; more are answered 503.
   * @default {2}
   */
  readonly maxConcurrentLogs?: number | undefined;
  /**
   * Bytes of a log `POST /batch` reads ahead of its response; past it the log is cut.
   * @default 64 MiB
   */
  readonly logReadAheadBytes?: number | undefined;
  /** Called once per answered request (e.g. `accessLog.record`); must not throw. */
  readonly onRequest?: ((record: RequestRecord) => void) | undefined;
  /**
   * The operations served under `POST`.
   * @default the built-in table (`core/ops/operations.ts`)
   */
  readonly operations?: OperationTable | undefined;
  /**
   * Most events in one `/anomaly` trace; more are answered 413.
   * @default {100_000}
   */
  readonly maxTraceEvents?: number | undefined;
  /**
   * Most model rows one request may run; more are answered 413.
   * @default {524_288}
   */
  readonly maxRequestRows?: number | undefined;
  /**
   * Largest estimated `/v2` infer response in bytes; larger ones are answered 413 unrun.
   * @default 64 MiB, more on a net with many more transitions than places
   */
  readonly maxResponseBytes?: number | undefined;
  /**
   * Origins whose pages may call the API (CORS): bare origins, or `*` for any.
   * @default none (no CORS headers; preflights get 405)
   */
  readonly corsOrigins?: readonly string[] | undefined;
  /**
   * Host names the server responds for; others get 421, against DNS rebinding.
   * @default any host
   */
  readonly allowedHosts?: readonly string[] | undefined;
  /** More exposition text for `/metrics`, read at each scrape (e.g. the process metrics). */
  readonly extraMetrics?: (() => string) | undefined;
  /**
   * Gather every `deno serve --parallel` instance's metrics until `signal` aborts (at shutdown).
   * @default off
   */
  readonly metricsInstances?: { readonly signal: AbortSignal } | undefined;
}

/** A web-standard HTTP handler. */
export interface App {
  /**
   * Responds to one request; never rejects. A bound function: pass it as `Deno.serve`'s
   * handler. `info.signal` aborts when the client hangs up, which withdraws its queued rows.
   */
  readonly fetch: (request: Request, info?: ClientInfo | object) => Promise<Response>;
  /**
   * Responds to a request on a new connection while the server drains: probes as usual, so an
   * orchestrator sees "alive, not ready", anything else 503.
   *
   * @example
   * ```ts
   * import assert from "node:assert/strict";
   * import { createApp } from "./app.ts";
   * import { Readiness } from "./pipeline/readiness.ts";
   * import { loadOrt } from "../adapter/deno/ort.ts";
   * import { readBundle } from "../adapter/deno/bundle_files.ts";
   * await using model = await readBundle(await loadOrt(), "examples/rest_serving");
   * const readiness = new Readiness();
   * const app = await createApp(model, { readiness });
   * readiness.drain();
   * const get = (path: string) => app.fetchWhileDraining(new Request(`http://h${path}`));
   * const responses = await Promise.all(["/healthz", "/readyz", "/schema"].map(get));
   * assert.deepEqual(responses.map((r) => r.status), [200, 503, 503]);
   * await Promise.all(responses.map((r) => r.body?.cancel()));
   * ```
   */
  readonly fetchWhileDraining: (
    request: Request,
    info?: ClientInfo | object,
  ) => Promise<Response>;
  /** Responses still streaming after `fetch` returned them, which a drain waits for. */
  readonly streamsInProgress: () => number;
}

/**
 * Builds the app for `model`: loads zod and zod-to-openapi, then composes the pipeline once.
 * @throws {import("./pipeline/mod.ts").MissingPackageError} when zod or zod-to-openapi is missing.
 * @throws {RangeError} when a size, time or row limit is not a positive number.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { createApp } from "./app.ts";
 * import { loadOrt } from "../adapter/deno/ort.ts";
 * import { readBundle } from "../adapter/deno/bundle_files.ts";
 * await using model = await readBundle(await loadOrt(), "examples/rest_serving");
 * const app = await createApp(model);
 * const body = JSON.stringify({ input_marking: { p_application: 1 } });
 * const response = await app.fetch(new Request("http://h/forward", { method: "POST", body }));
 * assert.equal(response.status, 200);
 * assert.ok((await response.json()).transition_activations.t_approve > 0.99);
 * ```
 */
export async function createApp(model: Model, options: AppOptions = {}): Promise<App> {
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

  const { net, session } = model;
  const readiness = options.readiness ?? new Readiness();
  const modelName = options.modelName ?? model.name;
  const requestLimits = resolveRequestLimits(options, {
    places: net.places.length,
    transitions: net.transitions.length,
  });
  const identity = modelIdentity(model.sidecar, modelName);
  const queueTimeoutMs = options.queueTimeoutMs ?? DEFAULT_QUEUE_TIMEOUT_MS;
  session.queue.setLimits({
    maxQueueRows: positive(
      "maxQueueRows",
      options.maxQueueRows ?? defaultMaxQueueRows(net.places.length, net.transitions.length),
      true,
    ),
    queueTimeoutMs: positive("queueTimeoutMs", queueTimeoutMs, false),
  });
  const admission = new Admission({
    maxBodyMemoryBytes: options.maxBodyMemoryBytes ?? DEFAULT_MAX_BODY_MEMORY_BYTES,
    maxBodyBytes: limits.maxBytes,
    queueTimeoutMs,
    queue: session.queue,
    model,
    cutoff: readiness.cutoff,
    onRefused(reason) {
      metrics.recordRefused(reason);
      if (reason === "model_unavailable") health.refused();
    },
  });
  const metrics = metricsFor(session, {
    inFlight: () => admission.inFlight,
    waiting: () => admission.waiting,
    reservedBytes: () => admission.reservedBytes,
    logsInProgress: () => logs.inProgress,
  });
  const maxConcurrentLogs = options.maxConcurrentLogs ?? DEFAULT_MAX_CONCURRENT_LOGS;
  const logs = new LogScoring(model, {
    maxConcurrentLogs,
    idleMs: limits.timeoutMs,
    readAheadBytes: positive(
      "logReadAheadBytes",
      options.logReadAheadBytes ?? DEFAULT_LOG_READ_AHEAD_BYTES,
      true,
    ),
    readiness,
    metrics,
    onError,
  });
  const health = watchModelHealth(session, {
    readiness,
    log: options.log ?? ((line) => console.error(line)),
    onGaveUp: options.onModelFailed,
  });
  const oip = createOip(model, {
    name: modelName,
    version: info.version,
    modelVersion: identity.version,
    modelParameters: identityParameters(identity),
    readiness,
    limits,
    requestLimits,
  });
  const json = (text: string): Handler => () =>
    Promise.resolve(new Response(text, { headers: { "content-type": "application/json" } }));
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
  // Built on the first request for it: start-up should not wait for a document few fetch.
  const openApi = () =>
    stringifyJson(buildOpenApiDocument(zodToOpenApi, info, [
      ...routes.values(),
      ...(mounted === undefined ? [] : [mounted]),
      ...oip.documented,
    ]));

  // Read → parse → operate: the handler of each operation's POST route.
  const operate = (row: OperationTable[number]): Handler => async (context) => {
    const body = await readJsonBody(context, limits);
    checkRequestBody(row.name, body, requestLimits);
    const parsed = parseWithSchema(schemas.requests[row.name], body);
    if (!parsed.success) throw new ValidationError(parsed.issues);
    context.rows = 0;
    context.maxRows = requestLimits.maxRequestRows;
    return jsonResponse(200, await row.run(model, parsed.data, context), undefined, context);
  };

  // Exact paths in the OpenAPI document's order, then the mount and the `/v2` prefix.
  const routes = new Map<string, Route>();
  const add = (path: string, methods: Route["methods"], docs: RouteDoc, admitted = false) =>
    routes.set(path, { template: path, methods, admitted, errorKey: "detail", docs });
  const docs = modelDocs(schemas);
  add("/healthz", { GET: json(healthText) }, docs.healthz);
  add("/schema", { GET: json(schemaText) }, docs.schema);
  const documentedLimits = { ...limits, ...requestLimits };
  for (const row of operations) {
    add(row.path, { POST: operate(row) }, operationDoc(row, schemas, documentedLimits), true);
  }
  // A whole log, streamed in and out: its own bound, outside admission's.
  add("/batch", { POST: logs.handle }, batchDoc({ maxConcurrentLogs, idleMs: limits.timeoutMs }));
  add("/readyz", { GET: () => Promise.resolve(readiness.response()) }, READYZ_DOC);
  const metricsHandler = metricsRoute(metrics, buildInfoMetric(info.version, identity), options);
  add("/metrics", { GET: () => metricsHandler() }, METRICS_DOC);
  for (const [path, { asset, docs }] of staticRoutes(info, identity, openApi)) {
    add(path, { GET: (context) => asset.respond(context.request) }, docs);
  }
  const [prefix, mountHandler] = options.mount ?? [];
  const mounted: Route | undefined = prefix === undefined ? undefined : {
    template: `${prefix}/*`,
    methods: {},
    any: async (context) => {
      const answer = await mountHandler!(context.request);
      if (answer === undefined) throw new HttpError(404, "Not Found");
      return answer;
    },
    admitted: false,
    errorKey: "detail",
    docs: mountDoc(prefix),
  };
  const find = (path: string): Route | undefined => {
    if (mounted !== undefined && (path === prefix || path.startsWith(`${prefix}/`))) {
      return mounted;
    }
    return routes.get(path) ?? oip.route(path);
  };

  const cors = options.corsOrigins?.length ? new Cors(options.corsOrigins) : undefined;
  const allowedHosts = options.allowedHosts;
  const anyHost = allowedHosts === undefined || allowedHosts.includes("*");
  const handle = compose([
    observe({ metrics, onRequest: options.onRequest }),
    finish({ cors }, onError),
    catchErrors(onError),
    ...(anyHost ? [] : [checkHost(allowedHosts)]),
    route(find, admission),
  ], (context) => context.handler!(context));
  return {
    fetch: (request, info) => {
      const context = new RequestContext(request, false, clientSignalOf(info));
      // A log being scored yields the thread more often while requests come (arrivals before it
      // began do not count); a probe or a scrape does not count, it waits for the log's turn.
      if (logs.inProgress > 0 && wantsLogPacing(context.path)) {
        logs.lastArrival = context.started;
      }
      return handle(context);
    },
    fetchWhileDraining: (request, info) =>
      handle(new RequestContext(request, true, clientSignalOf(info))),
    streamsInProgress: () => logs.inProgress,
  };
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
