/**
 * Compiles a PETRA model to ONNX bytes (opset 17, float32) with the graph contract of
 * `bundle/graph_contract.ts`. The outputs only the analysis operations need (gradients and
 * `place_values`) are computed in the then-branch of an `If` on `with_gradient`, so a forward
 * run pays nothing for them.
 *
 * @module
 */

import type { PetriModel } from "../net/types.ts";
import {
  AttributeType,
  countNodes,
  DataType,
  encodeModel,
  floatTensor,
  type GraphProto,
  type NodeProto,
  type ValueInfoProto,
} from "../onnx/proto.ts";
import { vectorJacobianProduct } from "./autodiff.ts";
import { OnnxEmitter } from "./emit.ts";
import { graphTooLarge, type Node, type Value } from "./ir.ts";
import { MODEL_LIMITS } from "../net/model_limits.ts";
import { lowerModel } from "./lower.ts";

/** Options of {@link compileModel}. */
export interface CompileOptions {
  /**
   * Emit the gradient outputs and `place_values`; off only to measure that the forward path
   * does not pay for them.
   * @default {true}
   */
  readonly gradient?: boolean;
  /**
   * Emit the `place_values` output (only with `gradient`); off only to measure its cost.
   * @default {true}
   */
  readonly placeValues?: boolean;
  /** Entries of the model's `metadata_props` (e.g. the net and module as JSON). */
  readonly metadata?: Readonly<Record<string, string>>;
  /**
   * Largest `rows × cols` of a linear map emitted as a dense `MatMul`; 0 makes every map a
   * gather, so a non-finite input spreads only along its own arcs.
   * @default {0}
   */
  readonly denseLimit?: number;
  /** `producer_name` / `producer_version` of the model file. */
  readonly producer?: { readonly name: string; readonly version: string };
  /**
   * ONNX nodes the graph may have, forward and gradient together; lowering stops as soon as
   * it passes them.
   * @default {MODEL_LIMITS.maxGraphNodes}
   */
  readonly maxNodes?: number;
}

/** Size facts of a compiled graph, for inspection and benchmarks. */
export interface CompiledModel {
  /** The ONNX file (a serialised `ModelProto`). */
  readonly bytes: Uint8Array;
  /** ONNX nodes of the main graph (the forward pass). */
  readonly forwardNodes: number;
  /** ONNX nodes inside the gradient branch. */
  readonly gradientNodes: number;
}

/**
 * Compiles a model; returns the ONNX file bytes and node counts.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { compileModel } from "./mod.ts";
 * import { parseModelDescription } from "../net/parse.ts";
 * const model = parseModelDescription(JSON.parse(
 *   await Deno.readTextFile("examples/rest_serving/rest_serving.model.json"),
 * ));
 * assert.equal(compileModel(model, { gradient: false }).gradientNodes, 0);
 * assert.ok(compileModel(model).gradientNodes > 0);
 * ```
 */
export function compileModel(model: PetriModel, options: CompileOptions = {}): CompiledModel {
  const maxNodes = options.maxNodes ?? MODEL_LIMITS.maxGraphNodes;
  // Each IR operation (all but the inputs) becomes at least one ONNX node: the same budget.
  const lowered = lowerModel(model, maxNodes);
  const { graph, inputs, transitions, places } = lowered;
  const P = model.net.places.length;
  const T = model.net.transitions.length;
  const emitter = new OnnxEmitter(options.denseLimit);
  const forward = graph.nodes.slice();
  const mainNodes = emitOutputs(emitter, forward, [[transitions, "transitions"], [
    places,
    "places",
  ]]);
  const outputs = [floatInfo("transitions", T), floatInfo("places", P)];
  let gradientNodes = 0;

  if (options.gradient ?? true) {
    const start = graph.nodes.length;
    // Created after the forward nodes so that its transpose runs inside the gradient branch.
    const target = graph.input("target", T);
    const [gradMarking, gradValues] = vectorJacobianProduct(graph, transitions, target, [
      inputs.marking,
      inputs.values,
    ]);
    const branchValues: [Value, string][] = [
      [gradMarking!, "grad_marking"],
      [gradValues!, "grad_values"],
    ];
    if (options.placeValues ?? true) branchValues.push([lowered.placeValues(), "place_values"]);
    const names = branchValues.map(([, name]) => emitter.fresh(`${name}_`));
    const branch = emitOutputs(
      emitter,
      graph.nodes.slice(start),
      branchValues.map(([value], i) => [value, names[i]!]),
    );
    const branchOutputs = names.map((name) => floatInfo(name, P));
    const thenBranch: GraphProto = { name: "gradient", node: branch, output: branchOutputs };
    const elseBranch: GraphProto = {
      name: "no_gradient",
      node: branchOutputs.map((o) => ({
        opType: "Constant",
        input: [],
        output: [o.name],
        attribute: [{
          name: "value",
          type: AttributeType.TENSOR,
          t: floatTensor("empty", [0, P], new Float32Array(0)),
        }],
      })),
      output: branchOutputs,
    };
    mainNodes.push({
      opType: "If",
      input: ["with_gradient"],
      output: branchValues.map(([, name]) => name),
      name: "gradient_if",
      attribute: [
        { name: "then_branch", type: AttributeType.GRAPH, g: thenBranch },
        { name: "else_branch", type: AttributeType.GRAPH, g: elseBranch },
      ],
    });
    outputs.push(...branchValues.map(([, name]) => floatInfo(name, P, "grad_batch")));
    gradientNodes = branch.length;
  }
  const main: GraphProto = {
    name: "petri_net",
    node: mainNodes,
    initializer: emitter.initializers,
    input: [
      floatInfo("marking", P),
      floatInfo("marking_mask", P),
      floatInfo("values", P),
      floatInfo("values_mask", P),
      floatInfo("target", T),
      {
        name: "with_gradient",
        type: { tensorType: { elemType: DataType.BOOL, shape: { dim: [] } } },
      },
    ],
    output: outputs,
  };
  // Counted as the loader counts it (`loadBundle`), branches included.
  if (countNodes(main) > maxNodes) throw graphTooLarge(maxNodes);

  const bytes = encodeModel({
    irVersion: 8,
    opsetImport: [{ domain: "", version: 17 }],
    producerName: options.producer?.name ?? "petri-serve",
    producerVersion: options.producer?.version ?? "",
    graph: main,
    metadataProps: Object.entries(options.metadata ?? {}).map(([key, value]) => ({ key, value })),
  });
  return {
    bytes,
    forwardNodes: mainNodes.length - ((options.gradient ?? true) ? 1 : 0),
    gradientNodes,
  };
}

/**
 * Emits `nodes`, then transposes each listed value back to `[batch, width]` under its given
 * name (the emitter works feature-major).
 */
function emitOutputs(
  emitter: OnnxEmitter,
  nodes: readonly Node[],
  named: readonly [Value, string][],
): NodeProto[] {
  const out = emitter.emit(nodes);
  for (const [value, name] of named) out.push(emitter.transposed(emitter.nameOf(value), name));
  return out;
}

function floatInfo(name: string, width: number, batch = "batch"): ValueInfoProto {
  return {
    name,
    type: {
      tensorType: {
        elemType: DataType.FLOAT,
        shape: { dim: [{ dimParam: batch }, { dimValue: width }] },
      },
    },
  };
}
