/**
 * Compiles a PETRA model to ONNX bytes (opset 17, float32) with the graph contract of
 * DESIGN.md §2: inputs `marking`, `marking_mask`, `values`, `values_mask`, `target`,
 * `with_gradient`; outputs `transitions`, `places`, `grad_marking`, `grad_values`. The gradient
 * outputs are a reverse-mode graph inside the then-branch of an `If` on `with_gradient`, so a
 * forward run pays nothing for them.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { compileModel } from "./mod.ts";
 * import { parseModelDescription } from "../net/parse.ts";
 * const model = parseModelDescription(JSON.parse(
 *   await Deno.readTextFile("examples/rest_serving/rest_serving.model.json"),
 * ));
 * const onnxBytes: Uint8Array = compileModel(model).bytes;
 * assert.ok(onnxBytes.length > 0);
 * ```
 *
 * @module
 */

import type { PetriModel } from "../net/types.ts";
import {
  AttributeType,
  DataType,
  encodeModel,
  floatTensor,
  type GraphProto,
  type NodeProto,
  type ValueInfoProto,
} from "../onnx/proto.ts";
import { vectorJacobianProduct } from "./autodiff.ts";
import { OnnxEmitter } from "./emit.ts";
import type { Node, Value } from "./ir.ts";
import { lowerModel } from "./lower.ts";

/** Options of {@link compileModel}. */
export interface CompileOptions {
  /**
   * Emit the gradient outputs (default true). Without them the graph has only `transitions`
   * and `places`; that variant exists to measure that the forward path does not pay for them.
   */
  readonly gradient?: boolean;
  /** Entries of the model's `metadata_props` (e.g. the net and module as JSON). */
  readonly metadata?: Readonly<Record<string, string>>;
  /**
   * Largest `rows × cols` of a linear map emitted as a dense `MatMul` (default 0: every map is
   * a gather, so a non-finite input spreads only along its own arcs). Tests raise it to keep
   * the dense form exercised.
   */
  readonly denseLimit?: number;
  /** `producer_name` / `producer_version` of the model file. */
  readonly producer?: { readonly name: string; readonly version: string };
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
  const { graph, inputs, transitions, places } = lowerModel(model);
  const P = model.net.places.length;
  const T = model.net.transitions.length;
  const forward = graph.nodes.slice();
  const emitter = new OnnxEmitter(options.denseLimit);
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
    const names = [emitter.fresh("grad_marking_"), emitter.fresh("grad_values_")];
    const branch = emitOutputs(emitter, graph.nodes.slice(start), [
      [gradMarking!, names[0]!],
      [gradValues!, names[1]!],
    ]);
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
      output: ["grad_marking", "grad_values"],
      name: "gradient_if",
      attribute: [
        { name: "then_branch", type: AttributeType.GRAPH, g: thenBranch },
        { name: "else_branch", type: AttributeType.GRAPH, g: elseBranch },
      ],
    });
    outputs.push(
      floatInfo("grad_marking", P, "grad_batch"),
      floatInfo("grad_values", P, "grad_batch"),
    );
    gradientNodes = branch.length;
  }

  const bytes = encodeModel({
    irVersion: 8,
    opsetImport: [{ domain: "", version: 17 }],
    producerName: options.producer?.name ?? "petri-serve",
    producerVersion: options.producer?.version ?? "",
    graph: {
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
    },
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
