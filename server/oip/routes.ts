/**
 * The Open Inference Protocol v2 (KServe / Triton's REST API), so that their clients can call
 * the served model:
 *
 * | route | response |
 * |---|---|
 * | `GET /v2/health/live` | 200 `{"live":true}` |
 * | `GET /v2/health/ready` | 200 `{"ready":true}`, 503 while draining |
 * | `GET /v2` (and `/v2/`) | server metadata: name, version, extensions |
 * | `GET /v2/models/{name}[/versions/{version}]` | model metadata: versions, inputs, outputs |
 * | `GET /v2/models/{name}[/versions/{version}]/ready` | 200 or 503, as `/v2/health/ready` |
 * | `POST /v2/models/{name}[/versions/{version}]/infer` | `transitions` `[B, T]`, `places` `[B, P]` |
 *
 * `{name}` is the sidecar's `scenario_name`; the model has one version, derived from its ONNX
 * file's SHA-256 (`core/bundle/model_version.ts`), and the model metadata's `parameters` carry the
 * identity in full (`scenario`, `onnx_sha256`, `saved_at`). `infer` takes the graph contract's
 * place inputs by name (`marking`, `marking_mask`, `values`, `values_mask`), each `FP32` with
 * shape `[B, P]` and row-major `data` (flat, or nested rows), columns in `/schema`'s sorted
 * place order; an absent input is all zeros, and a mask holds 0 or 1. The rows go through the
 * model's run queue like every other operation. Errors are the protocol's `{"error": "..."}`.
 *
 * `parameters` (of the request, of a tensor, of a requested output) must be an object of
 * strings, numbers and booleans, as the protocol defines them. Parameters that would change the
 * response's form and are not implemented here (Triton's binary-data and classification
 * extensions: `binary_data`, `binary_data_output`, `binary_data_size`, `classification`) are
 * refused with 400 rather than silently ignored; any other parameter is accepted and has no
 * effect.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { createOip } from "./routes.ts";
 * import { Readiness } from "../pipeline/readiness.ts";
 * import { loadOrt } from "../../adapter/deno/ort.ts";
 * import { readBundle } from "../../adapter/deno/bundle_files.ts";
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

import type { OpsModel } from "../../core/ops/mod.ts";
import { allocateInputs } from "../../core/runtime/mod.ts";
import {
  type BodyLimits,
  checkRequestRows,
  checkResponseBytes,
  type Handler,
  NotJsonError,
  parseJsonBytes,
  readBody,
  type Readiness,
  type RequestContext,
  type RequestLimits,
  resolveRequestLimits,
  type Route,
} from "../pipeline/mod.ts";
import { HttpError, jsonResponse, streamedJsonResponse, stringifyJson } from "../http/mod.ts";
import { oipDocs } from "./route_docs.ts";
import { type InputName, INPUTS, OUTPUTS } from "./tensors.ts";

/** What the protocol's metadata reports. */
export interface OipInfo {
  /** The model's name in `/v2/models/{name}`. */
  readonly name: string;
  /** The server's version (`GET /v2`). */
  readonly version: string;
  /** The model's version (`/v2/models/{name}/versions/{version}`, `model_version`). */
  readonly modelVersion: string;
  /** The model metadata's `parameters`: who the model is (`../pipeline/model_identity.ts`). */
  readonly modelParameters?: Readonly<Record<string, string>> | undefined;
  readonly readiness: Readiness;
  readonly limits: BodyLimits;
  /** Rows and response size per request; default: `../pipeline/request_limits.ts`'s defaults. */
  readonly requestLimits?: RequestLimits | undefined;
}

/** The Open Inference Protocol's routes. */
export interface Oip {
  /** The route of `pathname` if it is under `/v2` (an unmatched one gets 404), else undefined. */
  route(pathname: string): Route | undefined;
  /** The routes with their documentation, in the OpenAPI document's order. */
  readonly documented: readonly Route[];
}

/** Builds the routes for `model`. */
export function createOip(model: OpsModel, info: OipInfo): Oip {
  const P = model.net.places.length;
  const T = model.net.transitions.length;
  const limits = info.requestLimits ?? resolveRequestLimits({}, { places: P, transitions: T });
  // The constant responses, written once; the readiness ones once per state.
  const fixedJson = (status: number, body: unknown): Handler => {
    const text = stringifyJson(body);
    return () =>
      Promise.resolve(
        new Response(text, { status, headers: { "content-type": "application/json" } }),
      );
  };
  const ready = (body: Record<string, unknown>): Handler => {
    const yes = fixedJson(200, { ...body, ready: true });
    const no = fixedJson(503, { ...body, ready: false });
    return (context) => info.readiness.ready ? yes(context) : no(context);
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
  const docs = oipDocs({
    modelName: info.name,
    modelVersion: info.modelVersion,
    places: P,
    transitions: T,
    requestLimits: info.requestLimits,
  });
  const oipRoute = (
    template: string,
    methods: Partial<Record<"GET" | "POST", Handler>>,
    admitted = false,
  ): Route => ({
    template,
    docs: docs[template],
    // Matched methods count rows (0 when the model does not run), as the access log shows.
    methods: Object.fromEntries(
      Object.entries(methods).map(([method, handler]) => [method, (context: RequestContext) => {
        context.rows = 0;
        return handler(context);
      }]),
    ),
    admitted,
    errorKey: "error",
    notAllowed: (method: string) =>
      new HttpError(405, `Method ${method} is not allowed here`, {
        allow: Object.keys(methods).join(", "),
      }),
  });
  const server = oipRoute("/v2", {
    GET: fixedJson(200, { name: "petri-serve", version: info.version, extensions: [] }),
  });
  const fixed: Record<string, Route> = {
    "/v2": server,
    "/v2/": server,
    "/v2/health/live": oipRoute("/v2/health/live", { GET: fixedJson(200, { live: true }) }),
    "/v2/health/ready": oipRoute("/v2/health/ready", { GET: ready({}) }),
  };
  const modelMethods: Record<string, [Partial<Record<"GET" | "POST", Handler>>, boolean]> = {
    "": [{ GET: fixedJson(200, metadata) }, false],
    "/ready": [{ GET: ready({ name: info.name }) }, false],
    "/infer": [{ POST: (context) => infer(context, model, info, limits) }, true],
  };
  // The routes by suffix, without and with a version: the same handlers, their own templates.
  const modelRoutes = (versioned: boolean): Record<string, Route> =>
    Object.fromEntries(
      Object.entries(modelMethods).map(([suffix, [methods, admitted]]) => [
        suffix,
        oipRoute(
          `/v2/models/{name}${versioned ? "/versions/{version}" : ""}${suffix}`,
          methods,
          admitted,
        ),
      ]),
    );
  const routes = { plain: modelRoutes(false), versioned: modelRoutes(true) };
  const unknownPath: Route = {
    template: "/v2/unmatched",
    methods: {},
    any: () => Promise.reject(new HttpError(404, "Not Found")),
    admitted: false,
    errorKey: "error",
  };
  const MODEL = /^\/v2\/models\/([^/]+)(?:\/versions\/([^/]+))?(\/ready|\/infer)?$/;
  return {
    documented: [
      fixed["/v2/health/live"]!,
      fixed["/v2/health/ready"]!,
      server,
      routes.plain[""]!,
      routes.plain["/ready"]!,
      routes.versioned[""]!,
      routes.versioned["/ready"]!,
      routes.plain["/infer"]!,
      routes.versioned["/infer"]!,
    ],
    route(pathname) {
      if (pathname !== "/v2" && !pathname.startsWith("/v2/")) return undefined;
      const route = Object.hasOwn(fixed, pathname) ? fixed[pathname] : undefined;
      if (route) return route;
      const match = MODEL.exec(pathname);
      if (!match) return unknownPath;
      const [, rawName, rawVersion, suffix = ""] = match;
      const name = decoded(rawName!);
      const found = (rawVersion === undefined ? routes.plain : routes.versioned)[suffix]!;
      let refusal: HttpError | undefined;
      if (name !== info.name) refusal = unknownModel(name, info.name);
      else if (rawVersion !== undefined && decoded(rawVersion) !== info.modelVersion) {
        refusal = unknownVersion(decoded(rawVersion), info);
      }
      if (refusal === undefined) return found;
      const refuse: Handler = () => Promise.reject(refusal);
      return { ...found, methods: { GET: refuse, POST: refuse }, admitted: false };
    },
  };
}

function decoded(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

function unknownVersion(version: string, info: OipInfo): HttpError {
  return new HttpError(
    404,
    `Unknown version ${JSON.stringify(version)} of model ${JSON.stringify(info.name)}: ` +
      `it has version ${JSON.stringify(info.modelVersion)}`,
  );
}

function unknownModel(name: string, served: string): HttpError {
  return new HttpError(
    404,
    `Unknown model ${JSON.stringify(name)}: this server serves ${JSON.stringify(served)}`,
  );
}

async function infer(
  context: RequestContext,
  model: OpsModel,
  info: OipInfo,
  limits: RequestLimits,
): Promise<Response> {
  const { places, transitions } = model.net;
  const P = places.length;
  const T = transitions.length;
  const bytes = await readBody(context, info.limits);
  let body: unknown;
  try {
    body = parseJsonBytes(bytes);
  } catch (error) {
    if (!(error instanceof NotJsonError)) throw error;
    throw new HttpError(400, `The body is not JSON: ${error.message}`);
  }
  if (!isObject(body)) throw new HttpError(400, "The body must be a JSON object with inputs");
  const { inputs, outputs, id, parameters } = body;
  if (!Array.isArray(inputs)) throw new HttpError(400, "inputs must be an array of tensors");
  if (id !== undefined && typeof id !== "string") throw new HttpError(400, "id must be a string");
  checkParameters(parameters, "parameters");
  const wanted = requestedOutputs(outputs);
  const width = (name: OutputName) => name === "transitions" ? T : P;
  const answer = (rows: number, data: (name: OutputName) => ArrayLike<number>) => ({
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
    if (!isObject(input)) throw new HttpError(400, `inputs[${i}] must be an object`);
    const { name, datatype, shape, data } = input;
    if (typeof name !== "string") throw new HttpError(400, `inputs[${i}].name must be a string`);
    checkParameters(input.parameters, `inputs[${i}].parameters`);
    if (!(INPUTS as readonly string[]).includes(name)) {
      throw new HttpError(
        400,
        `Unknown input ${JSON.stringify(name)}: the inputs are ${INPUTS.join(", ")}`,
      );
    }
    const key = name as InputName;
    if (tensors.has(key)) throw new HttpError(400, `Input ${name} is given twice`);
    if (datatype !== "FP32") {
      throw new HttpError(400, `Input ${name} has datatype ${JSON.stringify(datatype)}, not FP32`);
    }
    if (
      !Array.isArray(shape) || shape.length !== 2 || !Number.isSafeInteger(shape[0]) ||
      shape[0] < 1 || shape[1] !== P
    ) {
      throw new HttpError(
        400,
        `Input ${name} has shape ${JSON.stringify(shape)}, expected [B, ${P}] with B >= 1`,
      );
    }
    const rows = shape[0] as number;
    if (batch !== undefined && rows !== batch) {
      throw new HttpError(400, `Input ${name} has ${rows} rows, the other inputs ${batch}`);
    }
    if (batch === undefined) {
      // Refused before any data is read or run: too many rows, or a response too large.
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
      throw new HttpError(
        400,
        `Input ${name} must hold ${rows} × ${P} = ${rows * P} numbers in data, ` +
          `got ${flat === undefined ? "no array" : flat.length}`,
      );
    }
    const values = new Float32Array(flat.length);
    flat.forEach((value: unknown, j) => {
      if (typeof value !== "number") {
        throw new HttpError(
          400,
          `Input ${name} data[${j}] is ${JSON.stringify(value)}, not a number`,
        );
      }
      if (!Number.isFinite(Math.fround(value))) {
        throw new HttpError(422, nonFiniteInput(name, j, value));
      }
      if (name.endsWith("_mask") && value !== 0 && value !== 1) {
        throw new HttpError(400, `Input ${name} data[${j}] is ${value}: a mask holds 0 or 1`);
      }
      values[j] = value;
    });
    tensors.set(key, values);
  });
  if (batch === undefined) {
    throw new HttpError(400, `inputs must hold at least one of ${INPUTS.join(", ")}`);
  }

  // The client's tensors go to the run as they are: a value whose mask is 0 is not supplied.
  const packed = allocateInputs(batch, P, T);
  const supplied = (
    data: Float32Array | undefined,
    mask: Float32Array | undefined,
    out: Float32Array,
    outMask: Float32Array,
  ) => {
    if (mask === undefined) return;
    outMask.set(mask);
    if (data === undefined) return;
    for (let i = 0; i < mask.length; i++) if (mask[i] === 1) out[i] = data[i]!;
  };
  supplied(tensors.get("marking"), tensors.get("marking_mask"), packed.marking, packed.markingMask);
  supplied(tensors.get("values"), tensors.get("values_mask"), packed.values, packed.valuesMask);
  const results = await context.runPacked(packed, { withGradient: false });
  const output = (name: OutputName) => {
    const ids = name === "transitions" ? transitions : places;
    const data = results[name];
    for (let i = 0; i < data.length; i++) {
      const x = data[i]!;
      // JSON has no NaN or Infinity, and an FP32 tensor no null.
      if (!Number.isFinite(x)) {
        throw new HttpError(
          422,
          nonFiniteOutput(name, Math.floor(i / ids.length), ids[i % ids.length]!, x),
        );
      }
    }
    return data;
  };
  const numbers = batch * wanted.reduce((sum, name) => sum + width(name), 0);
  // A large response is sent as it is written, a piece per turn: probes do not wait for it.
  if (numbers <= STREAMED_NUMBERS) {
    return jsonResponse(200, answer(batch, output), undefined, context);
  }
  // Held until sent: the run's output arrays, which the stream reads from.
  context.responseBytes = 4 * batch * (P + T);
  return streamedJsonResponse(200, answer(batch, output), context);
}

type OutputName = typeof OUTPUTS[number];

/** Answers with more numbers than this are streamed (`streamedJsonResponse`). */
const STREAMED_NUMBERS = 16_384;

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
  if (!Array.isArray(outputs)) throw new HttpError(400, "outputs must be an array");
  return outputs.map((output: unknown, i) => {
    const name = isObject(output) ? output.name : undefined;
    if (isObject(output)) checkParameters(output.parameters, `outputs[${i}].parameters`);
    if (name !== "transitions" && name !== "places") {
      throw new HttpError(
        400,
        `Unknown output ${JSON.stringify(name ?? null)} in outputs[${i}]: ` +
          `the outputs are ${OUTPUTS.join(", ")}`,
      );
    }
    return name;
  });
}

/**
 * Parameters the protocol's extensions define that would change the response's form (binary
 * tensor data, Triton's classification): refused, since this server sends JSON tensors only.
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
  if (!isObject(parameters)) throw new HttpError(400, `${where} must be an object`);
  for (const [key, value] of Object.entries(parameters)) {
    if (typeof value !== "string" && typeof value !== "number" && typeof value !== "boolean") {
      throw new HttpError(
        400,
        `${where}.${key} must be a string, a number or a boolean, got ${JSON.stringify(value)}`,
      );
    }
    // `false` asks for the default (JSON data, no classification): harmless.
    if (UNSUPPORTED_PARAMETERS.has(key) && value !== false) {
      throw new HttpError(
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
