/**
 * Bundles (DESIGN.md §2): a compiled `NAME.onnx` and its JSON sidecar `NAME.onnx.meta.json`.
 *
 * {@link compileBundle} turns a model description into the pair; {@link loadBundle} checks a
 * pair (the sidecar, its hash of the model bytes, the ONNX graph contract, the embedded net)
 * and opens it as a {@link Model}. Every failure is a {@link BundleError} whose message names
 * the file at fault, e.g. `Cannot load bundle: model.onnx.meta.json is not valid JSON`.
 *
 * The ONNX file is self-describing: its `metadata_props` hold the `net`, `module` and
 * `parameters` sections of the model description as JSON text (keys `petri_serve.net`,
 * `petri_serve.module`, `petri_serve.parameters`).
 *
 * @example
 * ```ts
 * import * as ort from "onnxruntime-web";
 * import { compileBundle, loadBundle } from "./bundle.ts";
 * declare const petriModel: import("./net/types.ts").PetriModel;
 * const { onnx, sidecar } = await compileBundle(petriModel);
 * await using model = await loadBundle(ort, {
 *   onnx,
 *   sidecar,
 *   onnxName: "model.onnx",
 *   sidecarName: "model.onnx.meta.json",
 * });
 * model.label(model.net.transitions[0]!);
 * ```
 *
 * @module
 */

import { compileModel } from "./compile/mod.ts";
import { describeModel, ModelDescriptionError, parseModelDescription } from "./net/parse.ts";
import { quoteId } from "./net/quote_id.ts";
import { type NetStructure, netStructure } from "./net/structure.ts";
import {
  compareIds,
  type InputSpec,
  type ModuleSettings,
  type Parameters,
  type PetriModel,
  type PetriNet,
} from "./net/types.ts";
import { DataType, decodeModel, type ModelProto, type ValueInfoProto } from "./onnx/proto.ts";
import { ModelSession, type ModelSessionOptions, type OrtModule } from "./runtime.ts";
import type { InputRow, OutputRow, RunOptions } from "./runtime.ts";
import { PACKAGE_NAME, PACKAGE_VERSION } from "./version.ts";

/**
 * The sidecar's `format` value.
 *
 * @example
 * ```ts
 * import { BUNDLE_FORMAT } from "./bundle.ts";
 * BUNDLE_FORMAT; // "petri-serve-bundle/1"
 * ```
 */
export const BUNDLE_FORMAT = "petri-serve-bundle/1";

/**
 * The `metadata_props` keys of a compiled model.
 *
 * @example
 * ```ts
 * import { METADATA_KEYS } from "./bundle.ts";
 * METADATA_KEYS.net; // "petri_serve.net"
 * ```
 */
export const METADATA_KEYS = {
  net: "petri_serve.net",
  module: "petri_serve.module",
  parameters: "petri_serve.parameters",
} as const;

/** One input-spec entry as JSON: a constant, or a trace attribute read as a number. */
export type SidecarSpecEntry = { readonly constant: number } | { readonly attribute: string };

/**
 * The sidecar `NAME.onnx.meta.json`. The first four fields (and `saved_at`,
 * `petra_version`) are the ones PETRA's `.pt.meta.json` holds; the rest are petri-serve's.
 */
export interface Sidecar {
  /** Always {@link BUNDLE_FORMAT}. */
  readonly format: typeof BUNDLE_FORMAT;
  /** `null` when the model description has none. */
  readonly scenario_name: string | null;
  /** `null` when the model description has none. */
  readonly scenario_description: string | null;
  /** Place id -> how a trace gives that place's marking (read by `batch`). */
  readonly input_marking_spec: Readonly<Record<string, SidecarSpecEntry>>;
  /** Place id -> how a trace gives that place's value. */
  readonly input_values_spec: Readonly<Record<string, SidecarSpecEntry>>;
  /** The PETRA version the model was trained with, when the description states it. */
  readonly petra_version?: string;
  /** The package that compiled the bundle, as `name@version`, e.g. `@petri/serve@0.1.0`. */
  readonly producer: string;
  /** When the bundle was compiled: UTC, `YYYY-MM-DDTHH:MM:SSZ`. */
  readonly saved_at: string;
  /** SHA-256 of the `.onnx` file's bytes, lowercase hex. */
  readonly onnx_sha256: string;
}

/** Who compiled a bundle; recorded in the sidecar and the ONNX `producer_*` fields. */
export interface Producer {
  /** Package name, e.g. `@petri/serve`. */
  readonly name: string;
  /** Package version, e.g. `0.1.0`. */
  readonly version: string;
}

/** Options of {@link createSidecar} and {@link compileBundle}. */
export interface BundleOptions {
  /** Default: this package ({@link PACKAGE_NAME} at {@link PACKAGE_VERSION}). */
  readonly producer?: Producer;
  /** Default: now. Pass a fixed time for reproducible bundles. */
  readonly savedAt?: Date;
}

/** A compiled bundle: the two files' contents and the graph's size. */
export interface CompiledBundle {
  /** The `.onnx` file. */
  readonly onnx: Uint8Array;
  /** The `.onnx.meta.json` file: keys sorted, indent 2, trailing newline. */
  readonly sidecar: string;
  /** ONNX nodes of the forward pass. */
  readonly forwardNodes: number;
  /** ONNX nodes of the gradient branch. */
  readonly gradientNodes: number;
}

/** The two files of a bundle, with the names messages should use for them. */
export interface BundleFiles {
  /** The `.onnx` file's bytes. */
  readonly onnx: Uint8Array;
  /** The sidecar's text. */
  readonly sidecar: string;
  /** How messages name the `.onnx` file (its path as the user gave it). */
  readonly onnxName: string;
  /** How messages name the sidecar. */
  readonly sidecarName: string;
}

/** Options of {@link loadBundle}. */
export type LoadOptions = ModelSessionOptions;

/** A loaded bundle: the net, its settings and parameters, and a session that runs it. */
export interface Model extends AsyncDisposable {
  /** The net embedded in the `.onnx` file. */
  readonly net: PetriNet;
  /** The module settings embedded in the `.onnx` file. */
  readonly module: ModuleSettings;
  /** The trained parameters embedded in the `.onnx` file (the graph holds them too). */
  readonly parameters: Parameters;
  /** Presets, postsets, source places and softmax groups of {@link Model.net}. */
  readonly structure: NetStructure;
  /** The checked sidecar. */
  readonly sidecar: Sidecar;
  /** The sidecar's `input_marking_spec` as a map (ids such as `__proto__` are ordinary keys). */
  readonly inputMarkingSpec: InputSpec;
  /** The sidecar's `input_values_spec` as a map. */
  readonly inputValuesSpec: InputSpec;
  /** Column of each place id in the model's tensors. */
  readonly placeIndex: ReadonlyMap<string, number>;
  /** Column of each transition id in the model's tensors. */
  readonly transitionIndex: ReadonlyMap<string, number>;
  /** The ORT session; disposing the model releases it. */
  readonly session: ModelSession;
  /** The transition's label, or its id when it has none. */
  label(transition: string): string;
  /** Runs rows as one batch through {@link ModelSession.run}. */
  run(rows: readonly InputRow[], options: RunOptions): Promise<OutputRow[]>;
}

/**
 * A bundle that cannot be written or loaded; the message names the file and the problem.
 *
 * @example
 * ```ts
 * import { BundleError } from "./bundle.ts";
 * new BundleError("model.onnx.meta.json is missing").message;
 * // "Cannot load bundle: model.onnx.meta.json is missing"
 * ```
 */
export class BundleError extends Error {
  /**
   * Builds the error; `detail` names the file and what is wrong with it.
   *
   * @example
   * ```ts
   * import { BundleError } from "./bundle.ts";
   * throw new BundleError("model.onnx is not an ONNX model");
   * ```
   */
  constructor(detail: string, options?: ErrorOptions) {
    super(`Cannot load bundle: ${detail}`, options);
    this.name = "BundleError";
  }
}

/**
 * Builds the sidecar of a compiled model (an object; see {@link formatSidecar} for its text).
 *
 * @example
 * ```ts
 * import { createSidecar } from "./bundle.ts";
 * declare const petriModel: import("./net/types.ts").PetriModel;
 * declare const onnxBytes: Uint8Array;
 * const sidecar = await createSidecar(petriModel, onnxBytes, {
 *   savedAt: new Date("2026-01-01T00:00:00Z"),
 * });
 * sidecar.saved_at; // "2026-01-01T00:00:00Z"
 * ```
 */
export async function createSidecar(
  model: PetriModel,
  onnxBytes: Uint8Array,
  options: BundleOptions = {},
): Promise<Sidecar> {
  const description = describeModel(model) as Record<string, unknown>;
  const producer = options.producer ?? { name: PACKAGE_NAME, version: PACKAGE_VERSION };
  return {
    format: BUNDLE_FORMAT,
    scenario_name: model.scenarioName ?? null,
    scenario_description: model.scenarioDescription ?? null,
    input_marking_spec: description.input_marking_spec as Sidecar["input_marking_spec"],
    input_values_spec: description.input_values_spec as Sidecar["input_values_spec"],
    ...(model.petraVersion === undefined ? {} : { petra_version: model.petraVersion }),
    producer: `${producer.name}@${producer.version}`,
    saved_at: formatSavedAt(options.savedAt ?? new Date()),
    onnx_sha256: await sha256Hex(onnxBytes),
  };
}

/**
 * The sidecar's file text: keys sorted (at every level), indent 2, trailing newline.
 *
 * @example
 * ```ts
 * import { formatSidecar } from "./bundle.ts";
 * declare const sidecar: import("./bundle.ts").Sidecar;
 * formatSidecar(sidecar).endsWith("}\n"); // true
 * ```
 */
export function formatSidecar(sidecar: Sidecar): string {
  return JSON.stringify(sortKeys(sidecar), null, 2) + "\n";
}

/**
 * Compiles a model to its bundle: the ONNX bytes (with the net, module and parameters as
 * metadata) and the sidecar text.
 *
 * @example
 * ```ts
 * import { compileBundle } from "./bundle.ts";
 * declare const petriModel: import("./net/types.ts").PetriModel;
 * const bundle = await compileBundle(petriModel, { savedAt: new Date(0) });
 * bundle.onnx.length > 0; // true
 * ```
 */
export async function compileBundle(
  model: PetriModel,
  options: BundleOptions = {},
): Promise<CompiledBundle> {
  const description = describeModel(model) as Record<string, unknown>;
  const producer = options.producer ?? { name: PACKAGE_NAME, version: PACKAGE_VERSION };
  const compiled = compileModel(model, {
    producer,
    metadata: {
      [METADATA_KEYS.net]: JSON.stringify(description.net),
      [METADATA_KEYS.module]: JSON.stringify(description.module),
      [METADATA_KEYS.parameters]: JSON.stringify(description.parameters),
    },
  });
  // A plain Uint8Array of its own: the encoder may hand out a Node Buffer on a shared pool.
  const onnx = new Uint8Array(compiled.bytes);
  const sidecar = await createSidecar(model, onnx, { ...options, producer });
  return {
    onnx,
    sidecar: formatSidecar(sidecar),
    forwardNodes: compiled.forwardNodes,
    gradientNodes: compiled.gradientNodes,
  };
}

/**
 * Checks a bundle's two files and opens the model: the sidecar parses and has the right
 * format, its `onnx_sha256` matches the bytes, the bytes are an ONNX model with the graph
 * contract of DESIGN.md §2, and its metadata holds a valid net, module and parameters. Then
 * an ORT session is created (and warmed up) with `ort`.
 *
 * @throws {BundleError} naming the file at fault and what is wrong.
 *
 * @example
 * ```ts
 * import * as ort from "onnxruntime-web";
 * import { loadBundle } from "./bundle.ts";
 * declare const onnx: Uint8Array;
 * declare const sidecar: string;
 * await using model = await loadBundle(ort, {
 *   onnx,
 *   sidecar,
 *   onnxName: "credit.onnx",
 *   sidecarName: "credit.onnx.meta.json",
 * });
 * model.net.places;
 * ```
 */
export async function loadBundle(
  ort: OrtModule,
  files: BundleFiles,
  options: LoadOptions = {},
): Promise<Model> {
  const { onnxName, sidecarName } = files;
  const sidecar = readSidecar(files.sidecar, sidecarName);
  const digest = await sha256Hex(files.onnx);
  if (digest !== sidecar.onnx_sha256) {
    throw new BundleError(
      `${onnxName} does not match ${sidecarName}: its sha256 is ${digest.slice(0, 12)}…, ` +
        `the sidecar's onnx_sha256 is ${sidecar.onnx_sha256.slice(0, 12)}…`,
    );
  }
  const proto = decodeOnnx(files.onnx, onnxName);
  const problems = contractProblems(proto);
  if (problems.length > 0) throw contractError(onnxName, problems);
  const petriModel = readEmbeddedModel(proto, sidecar, onnxName, sidecarName);
  const widths = widthProblems(proto, petriModel.net);
  if (widths.length > 0) throw contractError(onnxName, widths);

  let session: ModelSession;
  try {
    session = await ModelSession.create(ort, files.onnx, petriModel.net, options);
  } catch (error) {
    throw new BundleError(`onnxruntime cannot run ${onnxName} (${messageOf(error)})`, {
      cause: error,
    });
  }
  return new LoadedModel(petriModel, sidecar, session);
}

// ---------------------------------------------------------------------------------------------
// The model

class LoadedModel implements Model {
  readonly net: PetriNet;
  readonly module: ModuleSettings;
  readonly parameters: Parameters;
  readonly structure: NetStructure;
  readonly sidecar: Sidecar;
  readonly inputMarkingSpec: InputSpec;
  readonly inputValuesSpec: InputSpec;
  readonly session: ModelSession;

  constructor(model: PetriModel, sidecar: Sidecar, session: ModelSession) {
    this.net = model.net;
    this.module = model.module;
    this.parameters = model.parameters;
    this.structure = netStructure(model.net);
    this.sidecar = sidecar;
    this.inputMarkingSpec = model.inputMarkingSpec;
    this.inputValuesSpec = model.inputValuesSpec;
    this.session = session;
  }

  get placeIndex(): ReadonlyMap<string, number> {
    return this.session.placeIndex;
  }

  get transitionIndex(): ReadonlyMap<string, number> {
    return this.session.transitionIndex;
  }

  label(transition: string): string {
    return this.net.labels.get(transition) ?? transition;
  }

  run(rows: readonly InputRow[], options: RunOptions): Promise<OutputRow[]> {
    return this.session.run(rows, options);
  }

  [Symbol.asyncDispose](): Promise<void> {
    return this.session[Symbol.asyncDispose]();
  }
}

// ---------------------------------------------------------------------------------------------
// The sidecar

function readSidecar(text: string, name: string): Sidecar {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new BundleError(`${name} is not valid JSON (${messageOf(error)})`);
  }
  if (!isObject(json)) throw new BundleError(`${name} does not hold a JSON object`);
  const format = own(json, "format");
  if (format === undefined) {
    throw new BundleError(`${name} has no format field (expected ${quoteId(BUNDLE_FORMAT)})`);
  }
  if (format !== BUNDLE_FORMAT) {
    throw new BundleError(
      `${name} has format ${show(format)}, expected ${quoteId(BUNDLE_FORMAT)}`,
    );
  }
  const hash = own(json, "onnx_sha256");
  if (typeof hash !== "string" || !/^[0-9a-fA-F]{64}$/.test(hash)) {
    throw new BundleError(`${name} has no valid onnx_sha256 (64 hex digits), got ${show(hash)}`);
  }
  const text_ = (key: string, nullable: boolean): string | null | undefined => {
    const value = own(json, key);
    if (value === undefined || typeof value === "string") return value;
    if (value === null && nullable) return null;
    throw new BundleError(`${name} has ${key} ${show(value)}, expected a string`);
  };
  const spec = (key: string): Record<string, SidecarSpecEntry> => {
    const value = own(json, key);
    // PETRA reads a missing or null spec as empty.
    if (value === undefined || value === null) return {};
    if (isObject(value)) return value as Record<string, SidecarSpecEntry>;
    throw new BundleError(`${name} has ${key} ${show(value)}, expected an object`);
  };
  const petraVersion = text_("petra_version", false);
  return {
    format: BUNDLE_FORMAT,
    scenario_name: text_("scenario_name", true) ?? null,
    scenario_description: text_("scenario_description", true) ?? null,
    input_marking_spec: spec("input_marking_spec"),
    input_values_spec: spec("input_values_spec"),
    ...(typeof petraVersion === "string" ? { petra_version: petraVersion } : {}),
    producer: text_("producer", false) ?? "",
    saved_at: text_("saved_at", false) ?? "",
    onnx_sha256: hash.toLowerCase(),
  };
}

// ---------------------------------------------------------------------------------------------
// The ONNX model

function decodeOnnx(bytes: Uint8Array, name: string): ModelProto {
  let proto: ModelProto;
  try {
    proto = decodeModel(bytes);
  } catch (error) {
    throw new BundleError(`${name} is not an ONNX model (${messageOf(error)})`);
  }
  // Protobuf decoding is lenient: stray bytes can decode to a message without a graph.
  if (proto.graph === undefined || !proto.irVersion) {
    throw new BundleError(`${name} is not an ONNX model (no graph or IR version)`);
  }
  return proto;
}

type ElemType = typeof DataType[keyof typeof DataType];

const CONTRACT_INPUTS: readonly [string, ElemType, number][] = [
  ["marking", DataType.FLOAT, 2],
  ["marking_mask", DataType.FLOAT, 2],
  ["values", DataType.FLOAT, 2],
  ["values_mask", DataType.FLOAT, 2],
  ["target", DataType.FLOAT, 2],
  ["with_gradient", DataType.BOOL, 0],
];

const CONTRACT_OUTPUTS: readonly [string, ElemType, number][] = [
  ["transitions", DataType.FLOAT, 2],
  ["places", DataType.FLOAT, 2],
  ["place_values", DataType.FLOAT, 2],
  ["grad_marking", DataType.FLOAT, 2],
  ["grad_values", DataType.FLOAT, 2],
];

/**
 * Outputs a bundle may lack: `place_values` came later, and bundles compiled before it still
 * load; only the operations that need it say so (with a hint to recompile).
 */
const OPTIONAL_OUTPUTS: ReadonlySet<string> = new Set(["place_values"]);

const TYPE_NAMES: Readonly<Record<number, string>> = {
  [DataType.FLOAT]: "float32",
  [DataType.BOOL]: "bool",
  [DataType.INT64]: "int64",
};

/** Names, element types and ranks of the inputs and outputs (widths need the net). */
function contractProblems(proto: ModelProto): string[] {
  const problems: string[] = [];
  const check = (
    kind: "input" | "output",
    actual: readonly ValueInfoProto[],
    expected: readonly [string, ElemType, number][],
  ): void => {
    const byName = new Map(actual.map((info) => [info.name, info]));
    for (const [name, type, rank] of expected) {
      const info = byName.get(name);
      if (info === undefined) {
        if (!OPTIONAL_OUTPUTS.has(name)) problems.push(`${kind} ${quoteId(name)} is missing`);
        continue;
      }
      const tensor = info.type?.tensorType;
      const elemType = tensor?.elemType ?? 0;
      if (elemType !== type) {
        const got = TYPE_NAMES[elemType] ?? `element type ${elemType}`;
        problems.push(`${kind} ${quoteId(name)} is ${got}, expected ${TYPE_NAMES[type]}`);
      }
      const dims = tensor?.shape?.dim;
      if (tensor?.shape === undefined || (dims ?? []).length !== rank) {
        const got = tensor?.shape === undefined ? "unknown" : String(dims?.length ?? 0);
        problems.push(`${kind} ${quoteId(name)} has rank ${got}, expected ${rank}`);
      }
    }
    const known = new Set(expected.map(([name]) => name));
    for (const info of actual) {
      if (!known.has(info.name)) problems.push(`unexpected ${kind} ${quoteId(info.name)}`);
    }
  };
  check("input", proto.graph?.input ?? [], CONTRACT_INPUTS);
  check("output", proto.graph?.output ?? [], CONTRACT_OUTPUTS);
  return problems;
}

/** Fixed widths must be P (place columns) or T (transition columns) of the embedded net. */
function widthProblems(proto: ModelProto, net: PetriNet): string[] {
  const places = [net.places.length, `${net.places.length} places`] as const;
  const transitions = [net.transitions.length, `${net.transitions.length} transitions`] as const;
  const widths = new Map<string, readonly [number, string]>([
    ["marking", places],
    ["marking_mask", places],
    ["values", places],
    ["values_mask", places],
    ["target", transitions],
    ["transitions", transitions],
    ["places", places],
    ["place_values", places],
    ["grad_marking", places],
    ["grad_values", places],
  ]);
  const problems: string[] = [];
  for (const info of [...proto.graph?.input ?? [], ...proto.graph?.output ?? []]) {
    const expected = widths.get(info.name);
    if (expected === undefined) continue;
    const width = info.type?.tensorType?.shape?.dim?.[1]?.dimValue;
    if (width !== expected[0]) {
      problems.push(
        `${quoteId(info.name)} has width ${width ?? "unknown"}, ` +
          `but the embedded net has ${expected[1]}`,
      );
    }
  }
  return problems;
}

function contractError(name: string, problems: readonly string[]): BundleError {
  const more = problems.length > 1 ? ` (and ${problems.length - 1} more problems)` : "";
  return new BundleError(`${name} breaks the petri-serve graph contract: ${problems[0]}${more}`);
}

/**
 * The model description stored in the ONNX metadata, completed with the sidecar's input specs
 * and read by {@link parseModelDescription}, so both get the full validation.
 */
function readEmbeddedModel(
  proto: ModelProto,
  sidecar: Sidecar,
  onnxName: string,
  sidecarName: string,
): PetriModel {
  const metadata = new Map((proto.metadataProps ?? []).map((p) => [p.key ?? "", p.value ?? ""]));
  const section = (key: string): unknown => {
    const text = metadata.get(key);
    if (text === undefined) throw new BundleError(`${onnxName} has no ${key} metadata`);
    try {
      return JSON.parse(text);
    } catch (error) {
      throw new BundleError(`${onnxName} has invalid ${key} metadata (${messageOf(error)})`);
    }
  };
  const description = {
    format: "petri-net-model/1",
    input_marking_spec: sidecar.input_marking_spec,
    input_values_spec: sidecar.input_values_spec,
    net: section(METADATA_KEYS.net),
    module: section(METADATA_KEYS.module),
    parameters: section(METADATA_KEYS.parameters),
  };
  try {
    return parseModelDescription(description);
  } catch (error) {
    if (!(error instanceof ModelDescriptionError)) throw error;
    const first = error.issues[0]!;
    const inSidecar = first.path.startsWith("input_");
    const where = inSidecar ? sidecarName : `${onnxName}'s embedded model description`;
    const more = error.issues.length > 1 ? ` (and ${error.issues.length - 1} more issues)` : "";
    throw new BundleError(`${where} is invalid: ${first.path}: ${first.message}${more}`, {
      cause: error,
    });
  }
}

// ---------------------------------------------------------------------------------------------
// Helpers

async function sha256Hex(bytes: Uint8Array): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", bytes as Uint8Array<ArrayBuffer>);
  return [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, "0")).join("");
}

function formatSavedAt(date: Date): string {
  if (Number.isNaN(date.getTime())) throw new RangeError("savedAt is not a valid date");
  return date.toISOString().replace(/\.\d{3}Z$/, "Z");
}

/** A copy of a JSON value with object keys sorted by code point, as Python's `sort_keys`. */
function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (!isObject(value)) return value;
  const keys = Object.keys(value).sort(compareIds);
  return Object.fromEntries(keys.map((key) => [key, sortKeys(value[key])]));
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function own(object: Record<string, unknown>, key: string): unknown {
  return Object.hasOwn(object, key) ? object[key] : undefined;
}

function show(value: unknown): string {
  if (typeof value === "string") return quoteId(value);
  if (value === undefined) return "nothing";
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 40 ? `${text.slice(0, 37)}...` : text;
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
