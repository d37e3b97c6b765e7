/**
 * Lowers IR nodes (`ir.ts`) to ONNX nodes and initializers (opset 17, float32). A linear map
 * is a `Gather` or a padded gather-multiply-sum over its entries, so cost follows the arcs and
 * an infinite input reaches only the nodes it feeds, as in PETRA (a dense `MatMul` would spread
 * `0 × ∞ = NaN` to every output). Tensors are stored feature-major, `[width, batch]`, so that
 * every gather moves whole rows of the batch; inputs and outputs are transposed at the edges.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { Graph } from "./ir.ts";
 * import { OnnxEmitter } from "./emit.ts";
 * const g = new Graph();
 * const y = g.sigmoid(g.input("x", 2));
 * const e = new OnnxEmitter();
 * const nodes = e.emit(g.nodes);
 * assert.ok(nodes.some((node) => node.opType === "Sigmoid" && node.output?.[0] === e.nameOf(y)));
 * ```
 *
 * @module
 */

import type { Node, Value } from "./ir.ts";
import type { SparseMatrix } from "./sparse.ts";
import {
  type AttributeProto,
  AttributeType,
  DataType,
  floatTensor,
  type NodeProto,
  type TensorProto,
} from "../onnx/proto.ts";

/**
 * Largest `rows × cols` emitted as a dense `MatMul` by default: none, so that non-finite
 * values stay on their own arcs.
 */
export const DEFAULT_DENSE_LIMIT = 0;

/** Collects the ONNX nodes and initializers of one model, naming every tensor once. */
export class OnnxEmitter {
  readonly initializers: TensorProto[] = [];
  readonly #names = new Map<number, string>();
  #counter = 0;
  /** Graph inputs not transposed yet: transposed where first used, so unused ones cost nothing. */
  readonly #pendingInputs = new Map<number, string>();
  /** The node list being emitted into (lazy transposes land there). */
  #out: NodeProto[] = [];

  /** @param denseLimit largest `rows × cols` emitted as a dense `MatMul` for a sparse matrix */
  constructor(readonly denseLimit: number = DEFAULT_DENSE_LIMIT) {}

  /** The ONNX tensor name of an IR value (constants become initializers on first use). */
  nameOf(v: Value): string {
    const known = this.#names.get(v.id);
    if (known) return known;
    const input = this.#pendingInputs.get(v.id);
    if (input !== undefined) {
      const name = this.fresh("input_");
      this.#out.push(this.transposed(input, name));
      this.#names.set(v.id, name);
      return name;
    }
    if (!v.constant) throw new Error(`value ${v.id} used before it was computed`);
    const name = this.fresh("c");
    this.initializers.push(
      v.kind === "bool"
        ? tensor(name, constantDims(v), DataType.BOOL, Uint8Array.from(v.constant))
        : floatTensor(name, constantDims(v), v.constant),
    );
    this.#names.set(v.id, name);
    return name;
  }

  /** Gives the output of an IR value a chosen name (graph outputs); call before `emit`. */
  rename(v: Value, name: string): void {
    this.#names.set(v.id, name);
  }

  /** A new unique tensor name. */
  fresh(prefix: string): string {
    return `${prefix}${this.#counter++}`;
  }

  /** Registers an int64 initializer and returns its name. */
  int64s(dims: number[], data: readonly number[]): string {
    const name = this.fresh("i");
    const bytes = new Uint8Array(data.length * 8);
    const view = new DataView(bytes.buffer);
    data.forEach((x, i) => view.setBigInt64(i * 8, BigInt(x), true));
    this.initializers.push(tensor(name, dims, DataType.INT64, bytes));
    return name;
  }

  /** Registers a float32 initializer and returns its name. */
  floats(dims: number[], data: ArrayLike<number>): string {
    const name = this.fresh("f");
    this.initializers.push(floatTensor(name, dims, Float32Array.from(data)));
    return name;
  }

  /**
   * A `Transpose` node swapping the two axes (`[batch, width]` <-> `[width, batch]`), for graph
   * inputs and outputs.
   */
  transposed(input: string, output: string): NodeProto {
    return { opType: "Transpose", input: [input], output: [output], name: this.fresh("n") };
  }

  /** Emits the given IR nodes in order; returns the ONNX nodes. */
  emit(nodes: readonly Node[]): NodeProto[] {
    const out: NodeProto[] = [];
    this.#out = out;
    for (const node of nodes) this.#emitNode(node, out);
    return out;
  }

  #emitNode(node: Node, out: NodeProto[]): void {
    const op = node.op;
    if (op.type === "input") {
      this.#pendingInputs.set(node.output.id, op.name);
      return;
    }
    const y = this.#names.get(node.output.id) ?? this.fresh("v");
    this.#names.set(node.output.id, y);
    const n = (
      opType: string,
      inputs: string[],
      output: string,
      attribute: AttributeProto[] = [],
    ) => out.push({ opType, input: inputs, output: [output], name: this.fresh("n"), attribute });
    switch (op.type) {
      case "add":
      case "sub":
      case "mul":
      case "div": {
        const opType = { add: "Add", sub: "Sub", mul: "Mul", div: "Div" }[op.type];
        n(opType, [this.nameOf(op.a), this.nameOf(op.b)], y);
        return;
      }
      case "neg":
        n("Neg", [this.nameOf(op.x)], y);
        return;
      case "sigmoid":
        n("Sigmoid", [this.nameOf(op.x)], y);
        return;
      case "step": {
        const above = this.fresh("v");
        n("Greater", [this.nameOf(op.x), this.floats([1], [0.5])], above);
        n("Cast", [above], y, [intAttr("to", DataType.FLOAT)]);
        return;
      }
      case "where":
        n("Where", [this.nameOf(op.cond), this.nameOf(op.a), this.nameOf(op.b)], y);
        return;
      case "or":
        n("Or", [this.nameOf(op.a), this.nameOf(op.b)], y);
        return;
      case "toBool":
        n("Cast", [this.nameOf(op.x)], y, [intAttr("to", DataType.BOOL)]);
        return;
      case "concat":
        n("Concat", op.parts.map((p) => this.nameOf(p)), y, [intAttr("axis", 0)]);
        return;
      case "zerosLike": {
        const shape = this.fresh("v");
        n("Shape", [this.nameOf(op.x)], shape);
        n("ConstantOfShape", [shape], y, [{
          name: "value",
          type: AttributeType.TENSOR,
          t: floatTensor("zero", [1], new Float32Array([0])),
        }]);
        return;
      }
      case "linear":
        this.#emitLinear(this.nameOf(op.x), op.matrix, y, n);
        return;
      case "groupSoftmax":
        this.#emitGroupSoftmax(this.nameOf(op.x), op.x.width, op.groups, y, n);
        return;
    }
  }

  #emitLinear(x: string, m: SparseMatrix, y: string, n: Emit): void {
    const missing = m.byRow.some((r) => r.length === 0);
    const padded = () => {
      const p = this.fresh("v");
      n("Pad", [x, this.int64s([4], [0, 0, 1, 0])], p);
      return p;
    };
    if (m.isSelection) {
      const source = missing ? padded() : x;
      const idx = m.byRow.map((r) => r[0]?.col ?? m.cols);
      n("Gather", [source, this.int64s([m.rows], idx)], y, [intAttr("axis", 0)]);
      return;
    }
    const nnz = m.entryCount;
    const size = m.rows * m.cols;
    if (size <= this.denseLimit || (this.denseLimit > 0 && size <= 4 * nnz)) {
      const dense = new Float32Array(m.rows * m.cols);
      m.byRow.forEach((r, row) => r.forEach((e) => (dense[row * m.cols + e.col]! += e.weight)));
      n("MatMul", [this.floats([m.rows, m.cols], dense), x], y);
      return;
    }
    const slots = m.maxRowLength;
    const idx: number[] = [];
    const w: number[] = [];
    for (const r of m.byRow) {
      for (let s = 0; s < slots; s++) {
        idx.push(r[s]?.col ?? m.cols);
        w.push(r[s]?.weight ?? 0);
      }
    }
    const source = m.byRow.some((r) => r.length < slots) ? padded() : x;
    const gathered = this.fresh("v");
    const weighted = this.fresh("v");
    n("Gather", [source, this.int64s([m.rows, slots], idx)], gathered, [intAttr("axis", 0)]);
    n("Mul", [gathered, this.floats([m.rows, slots, 1], w)], weighted);
    n("ReduceSum", [weighted, this.int64s([1], [1])], y, [intAttr("keepdims", 0)]);
  }

  #emitGroupSoftmax(
    x: string,
    width: number,
    groups: readonly (readonly number[])[],
    y: string,
    n: Emit,
  ): void {
    const inOrder = groups.length === 1 && groups[0]!.every((c, i) => c === i) &&
      groups[0]!.length === width;
    if (inOrder) {
      n("Softmax", [x], y, [intAttr("axis", 0)]);
      return;
    }
    // Gather the groups into a [groups, size, batch] block padded with -inf, softmax along the
    // group axis, then gather each column back from its flat position.
    const size = groups.reduce((s, g) => Math.max(s, g.length), 0);
    const idx: number[] = [];
    const flat = new Array<number>(width).fill(-1);
    groups.forEach((group, gi) => {
      for (let s = 0; s < size; s++) {
        const col = group[s];
        idx.push(col ?? width);
        if (col !== undefined) flat[col] = gi * size + s;
      }
    });
    const [padded, block, soft, rows] = [
      this.fresh("v"),
      this.fresh("v"),
      this.fresh("v"),
      this
        .fresh("v"),
    ];
    n("Pad", [x, this.int64s([4], [0, 0, 1, 0]), this.floats([], [-Infinity])], padded);
    n("Gather", [padded, this.int64s([groups.length, size], idx)], block, [intAttr("axis", 0)]);
    n("Softmax", [block], soft, [intAttr("axis", 1)]);
    n("Reshape", [soft, this.int64s([2], [groups.length * size, -1])], rows);
    n("Gather", [rows, this.int64s([width], flat)], y, [intAttr("axis", 0)]);
  }
}

type Emit = (
  opType: string,
  inputs: string[],
  output: string,
  attribute?: AttributeProto[],
) => void;

function intAttr(name: string, i: number): AttributeProto {
  return { name, type: AttributeType.INT, i };
}

/** A constant row is stored as a column `[width, 1]`; a scalar stays `[1]`. */
function constantDims(v: Value): number[] {
  return v.width === 1 ? [1] : [v.width, 1];
}

function tensor(name: string, dims: number[], dataType: number, rawData: Uint8Array): TensorProto {
  return { name, dims, dataType, rawData: rawData.slice() };
}
