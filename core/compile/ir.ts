/**
 * A small tensor IR for compiled nets: tensors are batches of rows `[batch, width]`, constants
 * one row broadcast over the batch, and each operation has a known adjoint (`autodiff.ts`)
 * and lowers to a few ONNX nodes (`emit.ts`).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { Graph } from "./ir.ts";
 * const g = new Graph();
 * const x = g.input("marking", 3);
 * const y = g.sigmoid(g.mul(x, g.constant([2, 2, 2])));
 * assert.deepEqual(y.width, 3);
 * ```
 *
 * @module
 */

import type { SparseMatrix } from "./sparse.ts";
import { ModelLimitError } from "../net/model_limits.ts";

/** The element kind of a tensor. */
export type Kind = "float" | "bool";

/** A tensor of shape `[batch, width]`, or a constant vector `[width]` when `constant` is set. */
export interface Value {
  readonly id: number;
  readonly width: number;
  readonly kind: Kind;
  /** Data of a constant (float32 values, or 0/1 for bool); absent for computed tensors. */
  readonly constant?: Float32Array;
}

/** The operations of the IR, with their operands. */
export type Op =
  | { readonly type: "input"; readonly name: string }
  | { readonly type: "add" | "sub" | "mul" | "div"; readonly a: Value; readonly b: Value }
  | { readonly type: "neg" | "sigmoid" | "step"; readonly x: Value }
  | { readonly type: "where"; readonly cond: Value; readonly a: Value; readonly b: Value }
  | { readonly type: "or"; readonly a: Value; readonly b: Value }
  | { readonly type: "toBool"; readonly x: Value }
  | { readonly type: "linear"; readonly x: Value; readonly matrix: SparseMatrix }
  | { readonly type: "concat"; readonly parts: readonly Value[] }
  | {
    readonly type: "groupSoftmax";
    readonly x: Value;
    /** Column indices of each group; every column belongs to exactly one group. */
    readonly groups: readonly (readonly number[])[];
  }
  | { readonly type: "zerosLike"; readonly x: Value };

/** One operation and the tensor it produces. */
export interface Node {
  readonly op: Op;
  readonly output: Value;
}

/** A growing list of nodes in creation (hence topological) order. */
export class Graph {
  readonly nodes: Node[] = [];
  #nextId = 0;
  readonly #constants = new Map<string, Value>();
  #operations = 0;

  /** @param maxNodes nodes past which building stops with a {@link ModelLimitError} */
  constructor(readonly maxNodes: number = Infinity) {}

  #value(width: number, kind: Kind, constant?: Float32Array): Value {
    const id = this.#nextId++;
    return constant ? { id, width, kind, constant } : { id, width, kind };
  }

  #push(op: Op, width: number, kind: Kind = "float"): Value {
    // Stopping here bounds the work of lowering, whatever num_steps or depth asks for.
    if (op.type !== "input" && ++this.#operations > this.maxNodes) {
      throw graphTooLarge(this.maxNodes);
    }
    const output = this.#value(width, kind);
    this.nodes.push({ op, output });
    return output;
  }

  /** A graph input of shape `[batch, width]`. */
  input(name: string, width: number, kind: Kind = "float"): Value {
    return this.#push({ type: "input", name }, width, kind);
  }

  /** A constant row (broadcast over the batch); identical constants are shared. */
  constant(data: readonly number[] | Float32Array, kind: Kind = "float"): Value {
    const array = Float32Array.from(data);
    const overflow = kind === "float" ? array.findIndex((x) => !Number.isFinite(x)) : -1;
    if (overflow >= 0) {
      throw new ModelLimitError(
        `the compiled graph needs the weight ${Array.from(data)[overflow]}, ` +
          "which float32 cannot hold (beyond ±3.4028234663852886e+38)",
      );
    }
    const key = `${kind}:${Array.from(array).join(",")}`;
    const known = this.#constants.get(key);
    if (known) return known;
    const v = this.#value(array.length, kind, array);
    this.#constants.set(key, v);
    return v;
  }

  /** A constant scalar, broadcast over every column. */
  scalar(x: number): Value {
    return this.constant([x]);
  }

  #binary(type: "add" | "sub" | "mul" | "div", a: Value, b: Value): Value {
    const width = broadcastWidth(a, b);
    if (a.constant && b.constant) throw new Error(`${type} of two constants`);
    return this.#push({ type, a, b }, width);
  }

  add(a: Value, b: Value): Value {
    return this.#binary("add", a, b);
  }
  sub(a: Value, b: Value): Value {
    return this.#binary("sub", a, b);
  }
  mul(a: Value, b: Value): Value {
    return this.#binary("mul", a, b);
  }
  div(a: Value, b: Value): Value {
    return this.#binary("div", a, b);
  }
  neg(x: Value): Value {
    return this.#push({ type: "neg", x }, x.width);
  }
  sigmoid(x: Value): Value {
    return this.#push({ type: "sigmoid", x }, x.width);
  }
  /** 1 where `x > 0.5`, else 0; adjoint: identity (straight-through). */
  step(x: Value): Value {
    return this.#push({ type: "step", x }, x.width);
  }
  /** `cond ? a : b` per element; `cond` is a bool tensor or constant. */
  where(cond: Value, a: Value, b: Value): Value {
    if (cond.kind !== "bool") throw new Error("where needs a bool condition");
    const width = Math.max(broadcastWidth(cond, a), broadcastWidth(cond, b), broadcastWidth(a, b));
    return this.#push({ type: "where", cond, a, b }, width);
  }
  or(a: Value, b: Value): Value {
    return this.#push({ type: "or", a, b }, broadcastWidth(a, b), "bool");
  }
  /** A float 0/1 mask as bool (non-zero is true). */
  toBool(x: Value): Value {
    return this.#push({ type: "toBool", x }, x.width, "bool");
  }
  /** `y = M x` row by row; bool tensors only through pure column selections. */
  linear(x: Value, matrix: SparseMatrix): Value {
    if (matrix.cols !== x.width) {
      throw new Error(`linear map of ${matrix.cols} columns applied to width ${x.width}`);
    }
    if (x.kind === "bool" && !matrix.isSelection) throw new Error("bool tensors only gather");
    if (matrix.isIdentity) return x;
    return this.#push({ type: "linear", x, matrix }, matrix.rows, x.kind);
  }
  concat(parts: readonly Value[]): Value {
    if (parts.length === 0) throw new Error("concat of no tensors");
    if (parts.length === 1) return parts[0]!;
    const kind = parts[0]!.kind;
    if (parts.some((p) => p.kind !== kind || p.constant)) throw new Error("bad concat operands");
    const width = parts.reduce((n, p) => n + p.width, 0);
    return this.#push({ type: "concat", parts }, width, kind);
  }
  /** Softmax over each group of columns, independently per row. */
  groupSoftmax(x: Value, groups: readonly (readonly number[])[]): Value {
    return this.#push({ type: "groupSoftmax", x, groups }, x.width);
  }
  /** Zeros shaped like `x` (`[batch, x.width]`). */
  zerosLike(x: Value): Value {
    return this.#push({ type: "zerosLike", x }, x.width);
  }
}

/** The error for a graph past its node budget. */
export function graphTooLarge(maxNodes: number): ModelLimitError {
  return new ModelLimitError(
    `the compiled graph needs more than ${maxNodes} ONNX nodes, the limit (the graph grows ` +
      "with module.num_steps in time-unrolled mode and with the net's depth in acyclic mode)",
  );
}

function broadcastWidth(a: Value, b: Value): number {
  if (a.width === b.width) return a.width;
  if (a.constant && a.width === 1) return b.width;
  if (b.constant && b.width === 1) return a.width;
  throw new Error(`width mismatch: ${a.width} vs ${b.width}`);
}
