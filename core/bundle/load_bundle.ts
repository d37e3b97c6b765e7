/**
 * Loads a bundle's two files: checks the sidecar, the ONNX graph's contract and its hash, then
 * opens the ORT session.
 *
 * @module
 */

import {
  MODEL_DESCRIPTION_FORMAT,
  ModelDescriptionError,
  parseModelDescription,
} from "../net/parse.ts";
import { type NetStructure, netStructure } from "../net/structure.ts";
import type { InputSpec, ModuleSettings, Parameters, PetriModel, PetriNet } from "../net/types.ts";
import { countNodes, decodeModel, type ModelProto } from "../onnx/proto.ts";
import { MODEL_LIMITS } from "../net/model_limits.ts";
import { ModelSession, type ModelSessionOptions, type OrtModule } from "../runtime/mod.ts";
import type {
  InputRow,
  OutputRow,
  PackedInputs,
  PackedOutputs,
  RunOptions,
} from "../runtime/mod.ts";
import { BundleError, invalidModelError, messageOf } from "./bundle_error.ts";
import { METADATA_KEYS } from "./compile_bundle.ts";
import { contractError, contractProblems, widthProblems } from "./graph_contract.ts";
import { readSidecar, sha256Hex, type Sidecar } from "./sidecar.ts";
import { modelName } from "./model_name.ts";

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
  /**
   * The file whose stem names the model when the sidecar has no `scenario_name`.
   * @default {onnxName}
   */
  readonly modelFile?: string | undefined;
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
  /** The model's name: the sidecar's `scenario_name`, else the model file's stem. */
  readonly name: string;
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
  /** Runs packed rows through {@link ModelSession.runPacked}. */
  runPacked(inputs: PackedInputs, options: RunOptions): Promise<PackedOutputs>;
}

/**
 * Checks a bundle's two files and opens the model: the sidecar parses, its `onnx_sha256`
 * matches the bytes, the graph keeps the contract of `bundle/graph_contract.ts` and its
 * metadata holds a valid model; then an ORT session is created and warmed up with `ort`.
 *
 * @throws {BundleError} naming the file at fault and what is wrong.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import * as ort from "onnxruntime-web";
 * import { compileBundle, loadBundle } from "./mod.ts";
 * import { parseModelDescription } from "../net/parse.ts";
 * const petriModel = parseModelDescription(JSON.parse(
 *   await Deno.readTextFile("examples/rest_serving/rest_serving.model.json"),
 * ));
 * const { onnx, sidecar } = await compileBundle(petriModel);
 * await using model = await loadBundle(ort, {
 *   onnx,
 *   sidecar,
 *   onnxName: "model.onnx",
 *   sidecarName: "model.onnx.meta.json",
 * });
 * assert.equal(model.label(model.net.transitions[0]!), "approve loan");
 * // A sidecar that does not belong to the bytes is refused, naming both files.
 * const other = new Uint8Array(onnx);
 * other[other.length - 1]! ^= 1;
 * await assert.rejects(
 *   loadBundle(ort, { onnx: other, sidecar, onnxName: "m.onnx", sidecarName: "m.onnx.meta.json" }),
 *   { name: "BundleError", message: /^Cannot load bundle: m.onnx does not match m.onnx.meta.json/ },
 * );
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
        `the sidecar's onnx_sha256 is ${sidecar.onnx_sha256.slice(0, 12)}… (the sidecar was ` +
        "written for another .onnx file, or the .onnx file was changed)",
    );
  }
  const proto = decodeOnnx(files.onnx, onnxName);
  const nodes = countNodes(proto.graph!);
  if (nodes > MODEL_LIMITS.maxGraphNodes) {
    throw new BundleError(
      `${onnxName} has ${nodes} ONNX nodes, over the limit of ${MODEL_LIMITS.maxGraphNodes}`,
    );
  }
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
  const name = modelName(sidecar.scenario_name, files.modelFile ?? onnxName);
  return new LoadedModel(petriModel, sidecar, name, session);
}

class LoadedModel implements Model {
  readonly net: PetriNet;
  readonly module: ModuleSettings;
  readonly parameters: Parameters;
  readonly structure: NetStructure;
  readonly sidecar: Sidecar;
  readonly name: string;
  readonly inputMarkingSpec: InputSpec;
  readonly inputValuesSpec: InputSpec;
  readonly session: ModelSession;

  constructor(model: PetriModel, sidecar: Sidecar, name: string, session: ModelSession) {
    this.net = model.net;
    this.module = model.module;
    this.parameters = model.parameters;
    this.structure = netStructure(model.net);
    this.sidecar = sidecar;
    this.name = name;
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

  runPacked(inputs: PackedInputs, options: RunOptions): Promise<PackedOutputs> {
    return this.session.runPacked(inputs, options);
  }

  [Symbol.asyncDispose](): Promise<void> {
    return this.session[Symbol.asyncDispose]();
  }
}

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

/** The model description in the ONNX metadata plus the sidecar's specs, fully validated. */
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
    format: MODEL_DESCRIPTION_FORMAT,
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
    throw invalidModelError(
      error,
      sidecarName,
      `${onnxName}'s embedded model description`,
      "is invalid",
    );
  }
}
