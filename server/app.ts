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

import type { Model } from "../core/bundle.ts";
import { OPERATIONS, type OperationTable } from "../core/ops/operations.ts";
import { createSchemas } from "../core/schemas.ts";
import { parseWithSchema } from "../core/schemas/parse.ts";
import { type BodyLimits, readJsonBody } from "./body.ts";
import { DOCS_ASSETS } from "./docs.ts";
import { type ErrorLogger, HttpError, logToConsole, ValidationError } from "./errors.ts";
import { jsonResponse, stringifyJson } from "./json.ts";
import { buildOpenApiDocument } from "./openapi.ts";
import { loadPackages, type PackageLoaders } from "./packages.ts";
import { Readiness } from "./readiness.ts";
import type { RequestRecord } from "./access_log.ts";
import { metricsFor } from "./metrics.ts";
import { createOip } from "./oip.ts";
import { REDOC_ASSETS } from "./redoc.ts";
import { checkRequestBody, resolveRequestLimits } from "./request_limits.ts";
import { Cors } from "./cors.ts";
import { buildInfoMetric, identityParameters, modelIdentity } from "./model_identity.ts";
import { metricsRoute } from "./metrics_route.ts";
import { staticRoutes } from "./static_routes.ts";
import {
  Admission,
  DEFAULT_MAX_BODY_MEMORY_BYTES,
  DEFAULT_QUEUE_TIMEOUT_MS,
  defaultMaxQueueRows,
} from "./admission.ts";
import { watchModelHealth } from "./model_health.ts";
import { type ClientInfo, clientSignalOf, RequestContext } from "./context.ts";
import { compose, type Handler } from "./pipeline.ts";
import { answerErrors, checkHost, finish, observe, type Route, route } from "./steps.ts";
import {
  DEFAULT_LOG_READ_AHEAD_BYTES,
  DEFAULT_MAX_CONCURRENT_LOGS,
  LogScoring,
} from "./batch_route.ts";

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
   * The model's name under `/v2/models/` (Open Inference Protocol); default: the model's name
   * (`scenario_name`, else its file's stem).
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
  /**
   * Logs `POST /batch` scores at once (default 2); more are answered 503 with `Retry-After`
   * (`./batch_route.ts`).
   */
  readonly maxConcurrentLogs?: number | undefined;
  /**
   * Bytes of a log's body `POST /batch` reads ahead while the answer waits for a client that
   * sends all of its log before it reads (default 64 MiB); past it the log is cut.
   */
  readonly logReadAheadBytes?: number | undefined;
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
   * Host names (`Host` without its port) the server answers for; others get 421, so that a
   * page of another site cannot reach a local server through DNS rebinding. `cli.ts serve`
   * allows `localhost`, `127.0.0.1` and `[::1]` when bound to loopback. Default: any host.
   */
  readonly allowedHosts?: readonly string[] | undefined;
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
   * `info.signal`, when given, aborts when the client hangs up: its queued rows are withdrawn
   * (`adapter/deno/listen.ts` passes `request.signal`, with Deno's `no-legacy-abort` on).
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
  readonly fetch: (request: Request, info?: ClientInfo | object) => Promise<Response>;
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
  readonly fetchWhileDraining: (
    request: Request,
    info?: ClientInfo | object,
  ) => Promise<Response>;
  /**
   * Answers still streaming after `fetch` returned them: the logs `POST /batch` is scoring. A
   * listener's drain waits for them as for requests in flight (`adapter/deno/listen.ts`).
   */
  readonly streamsInProgress: () => number;
}

/**
 * Builds the app for `model`: the composition root. Loads zod and zod-to-openapi (lazily:
 * here, not when this module is imported), makes the route table and composes the pipeline
 * once: observe → finish (CORS, compression, request id, HEAD) → errors → route (admission on
 * the model's routes) → the route's handler (read → parse → operate).
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
    onShed(reason) {
      metrics.recordShed(reason);
      if (reason === "model_unavailable") health.refused();
    },
  });
  const metrics = metricsFor(session, {
    inFlight: () => admission.inFlight,
    waiting: () => admission.waiting,
    heldBytes: () => admission.heldBytes,
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
        batch: { maxConcurrentLogs, idleMs: limits.timeoutMs },
      }, operations),
    );

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

  // The route table: exact paths, then the mount and the Open Inference Protocol's prefixes.
  const routes = new Map<string, Route>();
  const add = (path: string, methods: Route["methods"], admitted = false) =>
    routes.set(path, { template: path, methods, admitted, errorKey: "detail" });
  add("/healthz", { GET: json(healthText) });
  add("/readyz", { GET: () => Promise.resolve(readiness.response()) });
  add("/schema", { GET: json(schemaText) });
  for (const row of operations) add(row.path, { POST: operate(row) }, true);
  // A whole log, streamed in and out: its own bound, outside admission's (`./batch_route.ts`).
  add("/batch", { POST: logs.handle });
  const metricsHandler = metricsRoute(metrics, buildInfoMetric(info.version, identity), options);
  add("/metrics", { GET: () => metricsHandler() });
  for (const [path, asset] of staticRoutes(info, identity, openApi)) {
    add(path, { GET: (context) => asset.respond(context.request) });
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
    answerErrors(onError),
    ...(anyHost ? [] : [checkHost(allowedHosts)]),
    route(find, admission),
  ], (context) => context.handler!(context));
  return {
    fetch: (request, info) => {
      const context = new RequestContext(request, false, clientSignalOf(info));
      // A log being scored yields the thread more often while requests come.
      logs.lastArrival = context.started;
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
