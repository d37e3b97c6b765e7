/**
 * The Open Inference Protocol v2 (KServe / Triton's REST API), so that their clients can call
 * the served model:
 *
 * | route | answer |
 * |---|---|
 * | `GET /v2/health/live` | 200 `{"live":true}` |
 * | `GET /v2/health/ready` | 200 `{"ready":true}`, 503 while draining |
 * | `GET /v2` (and `/v2/`) | server metadata: name, version, extensions |
 * | `GET /v2/models/{name}[/versions/{version}]` | model metadata: versions, inputs, outputs |
 * | `GET /v2/models/{name}[/versions/{version}]/ready` | 200 or 503, as `/v2/health/ready` |
 * | `POST /v2/models/{name}[/versions/{version}]/infer` | `transitions` `[B, T]`, `places` `[B, P]` |
 *
 * `{name}` is the sidecar's `scenario_name`; the model has one version, derived from its ONNX
 * file's SHA-256 (`core/model_version.ts`), and the model metadata's `parameters` carry the
 * identity in full (`scenario`, `onnx_sha256`, `saved_at`). `infer` takes the graph contract's
 * place inputs by name (`marking`, `marking_mask`, `values`, `values_mask`), each `FP32` with
 * shape `[B, P]` and row-major `data` (flat, or nested rows), columns in `/schema`'s sorted
 * place order; an absent input is all zeros, and a mask holds 0 or 1. The rows go through the
 * model's run queue like every other operation. Errors are the protocol's `{"error": "..."}`.
 *
 * `parameters` (of the request, of a tensor, of a requested output) must be an object of
 * strings, numbers and booleans, as the protocol defines them. Parameters that would change the
 * answer's form and are not implemented here (Triton's binary-data and classification
 * extensions: `binary_data`, `binary_data_output`, `binary_data_size`, `classification`) are
 * refused with 400 rather than silently ignored; any other parameter is accepted and has no
 * effect.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { createOip } from "./oip.ts";
 * import { Readiness } from "./readiness.ts";
 * import { loadOrt } from "../adapter/deno/ort.ts";
 * import { readBundle } from "../adapter/deno/bundle_files.ts";
 * await using model = await readBundle(await loadOrt(), "examples/rest_serving");
 * const oip = createOip(model, {
 *   name: "loans",
 *   version: "0.1.0",
 *   modelVersion: "1",
 *   readiness: new Readiness(),
 *   limits: { maxBytes: 1 << 20, timeoutMs: 30_000 },
 * });
 * const route = oip.route("/v2/models/loans/infer");
 * assert.equal(route?.template, "/v2/models/{name}/infer");
 * const versioned = oip.route("/v2/models/loans/versions/1/infer");
 * assert.equal(versioned?.template, "/v2/models/{name}/versions/{version}/infer");
 * ```
 *
 * @module
 */

import type { OpsModel } from "../core/ops/model.ts";
import type { InputRow } from "../core/runtime.ts";
import { type BodyLimits, NotJsonError, parseJsonBytes, readBody } from "./body.ts";
import { HttpError } from "./errors.ts";
import { jsonResponse, stringifyJson } from "./json.ts";
import type { Readiness } from "./readiness.ts";
import { rowCounter } from "./request_rows.ts";
import {
  checkRequestRows,
  checkResponseBytes,
  type RequestLimits,
  resolveRequestLimits,
} from "./request_limits.ts";

/** What the protocol's metadata reports. */
export interface OipInfo {
  /** The model's name in `/v2/models/{name}`. */
  readonly name: string;
  /** The server's version (`GET /v2`). */
  readonly version: string;
  /** The model's version (`/v2/models/{name}/versions/{version}`, `model_version`). */
  readonly modelVersion: string;
  /** The model metadata's `parameters`: who the model is (`./model_identity.ts`). */
  readonly modelParameters?: Readonly<Record<string, string>> | undefined;
  readonly readiness: Readiness;
  readonly limits: BodyLimits;
  /** Rows and answer size per request; default: the defaults of `./request_limits.ts`. */
  readonly requestLimits?: RequestLimits | undefined;
}

type OipHandler = (request: Request, model: OpsModel) => Promise<Response> | Response;

/** A matched route: its template (for metrics) and its handlers by method. */
export interface OipRoute {
  readonly template: string;
  readonly methods: Readonly<Partial<Record<"GET" | "POST", OipHandler>>>;
}

/** The OIP routes of one model. */
export interface Oip {
  /** The route for `pathname`, or `undefined` when it is not under `/v2`. */
  route(pathname: string): OipRoute | undefined;
  /** Answers `request` on `route`; every error becomes `{"error": ...}`. */
  fetch(route: OipRoute, request: Request): Promise<Response>;
}

/**
 * The input tensors `infer` takes, in the graph contract's order.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { INPUTS } from "./oip.ts";
 * assert.deepEqual(INPUTS, ["marking", "marking_mask", "values", "values_mask"]);
 * ```
 */
export const INPUTS = ["marking", "marking_mask", "values", "values_mask"] as const;
type InputName = typeof INPUTS[number];

/**
 * The output tensors `infer` returns (all of them unless the request names some).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { OUTPUTS } from "./oip.ts";
 * assert.deepEqual(OUTPUTS, ["transitions", "places"]);
 * ```
 */
export const OUTPUTS = ["transitions", "places"] as const;

/** A client error of the protocol, answered `{"error": message}`. */
class OipError extends Error {
  constructor(readonly status: number, message: string) {
    super(message);
  }
}

/**
 * Builds the routes for `model`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { createOip } from "./oip.ts";
 * import { Readiness } from "./readiness.ts";
 * import { loadOrt } from "../adapter/deno/ort.ts";
 * import { readBundle } from "../adapter/deno/bundle_files.ts";
 * await using model = await readBundle(await loadOrt(), "examples/rest_serving");
 * const oip = createOip(model, {
 *   name: "loans",
 *   version: "1",
 *   modelVersion: "1",
 *   readiness: new Readiness(),
 *   limits: { maxBytes: 1024, timeoutMs: 1000 },
 * });
 * assert.equal(oip.route("/healthz"), undefined); // not under /v2
 * const ready = oip.route("/v2/health/ready")!;
 * const response = await oip.fetch(ready, new Request("http://localhost/v2/health/ready"));
 * assert.equal(response.status, 200);
 * assert.equal((await response.json()).ready, true);
 * ```
 */
export function createOip(model: OpsModel, info: OipInfo): Oip {
  const P = model.net.places.length;
  const T = model.net.transitions.length;
  const limits = info.requestLimits ?? resolveRequestLimits({}, { places: P, transitions: T });
  // The constant answers, written once; the readiness ones once per state.
  const fixedJson = (status: number, body: unknown) => {
    const text = stringifyJson(body);
    return () => new Response(text, { status, headers: { "content-type": "application/json" } });
  };
  const ready = (body: Record<string, unknown>) => {
    const yes = fixedJson(200, { ...body, ready: true });
    const no = fixedJson(503, { ...body, ready: false });
    return () => info.readiness.ready ? yes() : no();
  };
  const tensor = (name: string, width: number) => ({ name, datatype: "FP32", shape: [-1, width] });
  const metadata = {
    name: info.name,
    versions: [info.modelVersion],
    platform: "onnxruntime_onnx",
    inputs: INPUTS.map((name) => tensor(name, P)),
    outputs: [tensor("transitions", T), tensor("places", P)],
    ...(info.modelParameters ? { parameters: info.modelParameters } : {}),
  };
  const server: OipRoute = {
    template: "/v2",
    methods: {
      GET: fixedJson(200, { name: "petri-serve", version: info.version, extensions: [] }),
    },
  };
  const fixed: Record<string, OipRoute> = {
    "/v2": server,
    "/v2/": server,
    "/v2/health/live": {
      template: "/v2/health/live",
      methods: { GET: fixedJson(200, { live: true }) },
    },
    "/v2/health/ready": { template: "/v2/health/ready", methods: { GET: ready({}) } },
  };
  const modelMethods: Record<string, OipRoute["methods"]> = {
    "": { GET: fixedJson(200, metadata) },
    "/ready": { GET: ready({ name: info.name }) },
    "/infer": { POST: (request, counted) => infer(request, counted, info, limits) },
  };
  // The routes by suffix, without and with a version: the same handlers, their own templates.
  const modelRoutes = (versioned: boolean): Record<string, OipRoute> =>
    Object.fromEntries(
      Object.entries(modelMethods).map(([suffix, methods]) => [suffix, {
        template: `/v2/models/{name}${versioned ? "/versions/{version}" : ""}${suffix}`,
        methods,
      }]),
    );
  const routes = { plain: modelRoutes(false), versioned: modelRoutes(true) };
  const unknownPath: OipRoute = {
    template: "/v2/unmatched",
    methods: {},
  };
  const MODEL = /^\/v2\/models\/([^/]+)(?:\/versions\/([^/]+))?(\/ready|\/infer)?$/;
  const countRows = rowCounter(model, limits.maxRequestRows);

  return {
    route(pathname) {
      if (pathname !== "/v2" && !pathname.startsWith("/v2/")) return undefined;
      const route = Object.hasOwn(fixed, pathname) ? fixed[pathname] : undefined;
      if (route) return route;
      const match = MODEL.exec(pathname);
      if (!match) return unknownPath;
      const [, rawName, rawVersion, suffix = ""] = match;
      const name = decoded(rawName!);
      const found = (rawVersion === undefined ? routes.plain : routes.versioned)[suffix]!;
      let refuse: OipHandler | undefined;
      if (name !== info.name) refuse = unknownModel(name, info.name);
      else if (rawVersion !== undefined && decoded(rawVersion) !== info.modelVersion) {
        refuse = unknownVersion(decoded(rawVersion), info);
      }
      return refuse === undefined
        ? found
        : { template: found.template, methods: { GET: refuse, POST: refuse } };
    },
    async fetch(route, request) {
      try {
        if (route === unknownPath) throw new OipError(404, "Not Found");
        const method = request.method === "HEAD" ? "GET" : request.method;
        const handler = Object.hasOwn(route.methods, method)
          ? route.methods[method as "GET" | "POST"]
          : undefined;
        if (handler === undefined) {
          const allow = Object.keys(route.methods).join(", ");
          // HEAD is GET here, so that HEAD's answer is GET's without the body.
          return jsonResponse(405, { error: `Method ${method} is not allowed here` }, {
            allow,
          });
        }
        // HEAD runs GET's handler; the app drops the body and keeps its length.
        return await handler(request, countRows(request));
      } catch (error) {
        if (error instanceof OipError) return jsonResponse(error.status, { error: error.message });
        if (error instanceof HttpError) {
          return jsonResponse(error.status, { error: error.detail }, error.headers);
        }
        throw error;
      }
    },
  };
}

/**
 * The model's protocol name: the bundle sidecar's `scenario_name` when `model` has one, else
 * `"model"`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { oipModelName } from "./oip.ts";
 * assert.equal(oipModelName({ sidecar: { scenario_name: "loans" } }), "loans");
 * assert.equal(oipModelName({}), "model");
 * ```
 */
export function oipModelName(model: object): string {
  const name = (model as { sidecar?: { scenario_name?: unknown } }).sidecar?.scenario_name;
  return typeof name === "string" && name !== "" ? name : "model";
}

function decoded(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

function unknownVersion(version: string, info: OipInfo): OipHandler {
  return () => {
    throw new OipError(
      404,
      `Unknown version ${JSON.stringify(version)} of model ${JSON.stringify(info.name)}: ` +
        `it has version ${JSON.stringify(info.modelVersion)}`,
    );
  };
}

function unknownModel(name: string, served: string): OipHandler {
  return () => {
    throw new OipError(
      404,
      `Unknown model ${JSON.stringify(name)}: this server serves ${JSON.stringify(served)}`,
    );
  };
}

async function infer(
  request: Request,
  model: OpsModel,
  info: OipInfo,
  limits: RequestLimits,
): Promise<Response> {
  const { places, transitions } = model.net;
  const P = places.length;
  const T = transitions.length;
  const bytes = await readBody(request, info.limits);
  let body: unknown;
  try {
    body = parseJsonBytes(bytes);
  } catch (error) {
    if (!(error instanceof NotJsonError)) throw error;
    throw new OipError(400, `The body is not JSON: ${error.message}`);
  }
  if (!isObject(body)) throw new OipError(400, "The body must be a JSON object with inputs");
  const { inputs, outputs, id, parameters } = body;
  if (!Array.isArray(inputs)) throw new OipError(400, "inputs must be an array of tensors");
  if (id !== undefined && typeof id !== "string") throw new OipError(400, "id must be a string");
  checkParameters(parameters, "parameters");
  const wanted = requestedOutputs(outputs);
  const width = (name: OutputName) => name === "transitions" ? T : P;
  const answer = (rows: number, data: (name: OutputName) => readonly number[]) => ({
    model_name: info.name,
    model_version: info.modelVersion,
    ...(id === undefined ? {} : { id }),
    outputs: wanted.map((name) => ({
      name,
      datatype: "FP32",
      shape: [rows, width(name)],
      data: data(name),
    })),
  });

  const tensors = new Map<InputName, Float32Array>();
  let batch: number | undefined;
  inputs.forEach((input: unknown, i) => {
    if (!isObject(input)) throw new OipError(400, `inputs[${i}] must be an object`);
    const { name, datatype, shape, data } = input;
    if (typeof name !== "string") throw new OipError(400, `inputs[${i}].name must be a string`);
    checkParameters(input.parameters, `inputs[${i}].parameters`);
    if (!(INPUTS as readonly string[]).includes(name)) {
      throw new OipError(
        400,
        `Unknown input ${JSON.stringify(name)}: the inputs are ${INPUTS.join(", ")}`,
      );
    }
    const key = name as InputName;
    if (tensors.has(key)) throw new OipError(400, `Input ${name} is given twice`);
    if (datatype !== "FP32") {
      throw new OipError(400, `Input ${name} has datatype ${JSON.stringify(datatype)}, not FP32`);
    }
    if (
      !Array.isArray(shape) || shape.length !== 2 || !Number.isSafeInteger(shape[0]) ||
      shape[0] < 1 || shape[1] !== P
    ) {
      throw new OipError(
        400,
        `Input ${name} has shape ${JSON.stringify(shape)}, expected [B, ${P}] with B >= 1`,
      );
    }
    const rows = shape[0] as number;
    if (batch !== undefined && rows !== batch) {
      throw new OipError(400, `Input ${name} has ${rows} rows, the other inputs ${batch}`);
    }
    if (batch === undefined) {
      // Refused before any data is read or run: too many rows, or an answer too large.
      checkRequestRows(rows, limits.maxRequestRows);
      checkResponseBytes({
        framing: stringifyJson(answer(rows, () => [])).length,
        rows,
        numbersPerRow: wanted.reduce((sum, name) => sum + width(name), 0),
      }, limits.maxResponseBytes);
    }
    batch = rows;
    const flat = Array.isArray(data) ? data.flat(2) : undefined;
    if (flat === undefined || flat.length !== rows * P) {
      throw new OipError(
        400,
        `Input ${name} must hold ${rows} × ${P} = ${rows * P} numbers in data, ` +
          `got ${flat === undefined ? "no array" : flat.length}`,
      );
    }
    const values = new Float32Array(flat.length);
    flat.forEach((value: unknown, j) => {
      if (typeof value !== "number") {
        throw new OipError(
          400,
          `Input ${name} data[${j}] is ${JSON.stringify(value)}, not a number`,
        );
      }
      if (!Number.isFinite(Math.fround(value))) {
        throw new OipError(422, nonFiniteInput(name, j, value));
      }
      if (name.endsWith("_mask") && value !== 0 && value !== 1) {
        throw new OipError(400, `Input ${name} data[${j}] is ${value}: a mask holds 0 or 1`);
      }
      values[j] = value;
    });
    tensors.set(key, values);
  });
  if (batch === undefined) {
    throw new OipError(400, `inputs must hold at least one of ${INPUTS.join(", ")}`);
  }

  const zeros = new Float32Array(batch * P);
  const column = (name: InputName) => tensors.get(name) ?? zeros;
  const [marking, markingMask, values, valuesMask] = INPUTS.map(column) as [
    Float32Array,
    Float32Array,
    Float32Array,
    Float32Array,
  ];
  const rows: InputRow[] = [];
  for (let r = 0; r < batch; r++) {
    const supplied = (data: Float32Array, mask: Float32Array) => {
      const map = new Map<string, number>();
      for (let c = 0; c < P; c++) if (mask[r * P + c] === 1) map.set(places[c]!, data[r * P + c]!);
      return map;
    };
    rows.push({ marking: supplied(marking, markingMask), values: supplied(values, valuesMask) });
  }
  const results = await model.run(rows, { withGradient: false });
  const output = (name: OutputName) => {
    const ids = name === "transitions" ? transitions : places;
    const data: number[] = [];
    for (let r = 0; r < results.length; r++) {
      const row = results[r]![name];
      for (let c = 0; c < row.length; c++) {
        const x = row[c]!;
        // JSON has no NaN or Infinity, and an FP32 tensor no null.
        if (!Number.isFinite(x)) throw new OipError(422, nonFiniteOutput(name, r, ids[c]!, x));
        data.push(x);
      }
    }
    return data;
  };
  return jsonResponse(200, answer(batch, output));
}

type OutputName = typeof OUTPUTS[number];

/** The 422 message for an input number that FP32 cannot hold. */
function nonFiniteInput(name: string, index: number, value: number): string {
  const why = Number.isFinite(value)
    ? `${value}, beyond the FP32 range of ±3.4028234663852886e38`
    : "not a finite number (a JSON number such as 1e999 overflows to Infinity)";
  return `Input ${name} data[${index}] is ${why}`;
}

/** The 422 message for an output that is not finite: the row's inputs overflow float32. */
function nonFiniteOutput(name: string, row: number, id: string, value: number): string {
  return `Output ${name} is ${value} at row ${row}, column ${JSON.stringify(id)}: the model's ` +
    `float32 arithmetic overflows on that row's inputs, and an FP32 tensor holds finite numbers ` +
    `only; scale the inputs down`;
}

function requestedOutputs(outputs: unknown): OutputName[] {
  if (outputs === undefined) return [...OUTPUTS];
  if (!Array.isArray(outputs)) throw new OipError(400, "outputs must be an array");
  return outputs.map((output: unknown, i) => {
    const name = isObject(output) ? output.name : undefined;
    if (isObject(output)) checkParameters(output.parameters, `outputs[${i}].parameters`);
    if (name !== "transitions" && name !== "places") {
      throw new OipError(
        400,
        `Unknown output ${JSON.stringify(name ?? null)} in outputs[${i}]: ` +
          `the outputs are ${OUTPUTS.join(", ")}`,
      );
    }
    return name;
  });
}

/**
 * Parameters the protocol's extensions define that would change the answer's form (binary
 * tensor data, Triton's classification): refused, since this server answers JSON tensors only.
 */
const UNSUPPORTED_PARAMETERS = new Set([
  "binary_data",
  "binary_data_output",
  "binary_data_size",
  "classification",
]);

/** Checks a `parameters` object: absent, or string/number/boolean values, none unsupported. */
function checkParameters(parameters: unknown, where: string): void {
  if (parameters === undefined) return;
  if (!isObject(parameters)) throw new OipError(400, `${where} must be an object`);
  for (const [key, value] of Object.entries(parameters)) {
    if (typeof value !== "string" && typeof value !== "number" && typeof value !== "boolean") {
      throw new OipError(
        400,
        `${where}.${key} must be a string, a number or a boolean, got ${JSON.stringify(value)}`,
      );
    }
    // `false` asks for the default (JSON data, no classification): harmless.
    if (UNSUPPORTED_PARAMETERS.has(key) && value !== false) {
      throw new OipError(
        400,
        `${where}.${key} is not supported: this server sends tensors as JSON data only ` +
          "(no binary data or classification extension)",
      );
    }
  }
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
