/**
 * Reverse-mode differentiation of the IR: appends to a {@link Graph} the nodes of a
 * vector-Jacobian product for chosen inputs. Adjoints are IR operations too, so the result is
 * an ordinary graph, and exact: no finite differences anywhere.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { Graph } from "./ir.ts";
 * import { vectorJacobianProduct } from "./autodiff.ts";
 * const g = new Graph();
 * const x = g.input("x", 2);
 * const y = g.sigmoid(x);
 * const [dx] = vectorJacobianProduct(g, y, g.input("seed", 2), [x]);
 * assert.equal(dx!.width, 2);
 * ```
 *
 * @module
 */

import type { Graph, Node, Value } from "./ir.ts";
import { SparseMatrix } from "./sparse.ts";

/**
 * Appends the adjoint nodes of `output` to `graph` and returns, for each of `inputs`, the tensor
 * `Σ_j seed[j] · ∂output[j]/∂input` (zeros when the input does not reach the output).
 */
export function vectorJacobianProduct(
  graph: Graph,
  output: Value,
  seed: Value,
  inputs: readonly Value[],
): Value[] {
  const forward = graph.nodes.slice();
  const needed = nodesOnPaths(forward, output, inputs);
  const grads = new Map<number, Value>([[output.id, seed]]);
  for (let i = forward.length - 1; i >= 0; i--) {
    const node = forward[i]!;
    const g = grads.get(node.output.id);
    if (!g || !needed.nodes.has(node.output.id)) continue;
    for (const [operand, adjoint] of adjoints(graph, node, g)) {
      // Adjoints are built lazily: constants and off-path operands must not add nodes.
      if (operand.constant || operand.kind !== "float" || !needed.values.has(operand.id)) continue;
      const known = grads.get(operand.id);
      const contribution = adjoint();
      grads.set(operand.id, known ? graph.add(known, contribution) : contribution);
    }
  }
  return inputs.map((x) => grads.get(x.id) ?? graph.zerosLike(x));
}

/** Ids of the values and nodes that lie on some path from an input to the output. */
function nodesOnPaths(nodes: readonly Node[], output: Value, inputs: readonly Value[]) {
  const fromInputs = new Set(inputs.map((x) => x.id));
  for (const node of nodes) {
    if (operands(node).some((v) => fromInputs.has(v.id))) fromInputs.add(node.output.id);
  }
  const toOutput = new Set([output.id]);
  for (let i = nodes.length - 1; i >= 0; i--) {
    const node = nodes[i]!;
    if (toOutput.has(node.output.id)) { for (const v of operands(node)) toOutput.add(v.id); }
  }
  const values = new Set([...fromInputs].filter((id) => toOutput.has(id)));
  const nodeIds = new Set(nodes.map((n) => n.output.id).filter((id) => values.has(id)));
  return { values, nodes: nodeIds };
}

function operands(node: Node): Value[] {
  const op = node.op;
  switch (op.type) {
    case "input":
      return [];
    case "add":
    case "sub":
    case "mul":
    case "div":
    case "or":
      return [op.a, op.b];
    case "where":
      return [op.cond, op.a, op.b];
    case "concat":
      return [...op.parts];
    default:
      return [op.x];
  }
}

/** The cotangent each float operand of `node` receives from the output cotangent `g`. */
function adjoints(graph: Graph, node: Node, g: Value): [Value, () => Value][] {
  const op = node.op;
  const y = node.output;
  switch (op.type) {
    case "add":
      return [[op.a, () => g], [op.b, () => g]];
    case "sub":
      return [[op.a, () => g], [op.b, () => graph.neg(g)]];
    case "mul":
      return [[op.a, () => graph.mul(g, op.b)], [op.b, () => graph.mul(g, op.a)]];
    case "div":
      return [
        [op.a, () => graph.div(g, op.b)],
        [op.b, () => graph.neg(graph.div(graph.mul(g, y), op.b))],
      ];
    case "neg":
      return [[op.x, () => graph.neg(g)]];
    case "sigmoid":
      return [[op.x, () => graph.mul(g, graph.mul(y, graph.sub(graph.scalar(1), y)))]];
    case "step":
      return [[op.x, () => g]];
    case "where": {
      const zero = graph.scalar(0);
      return [
        [op.a, () => graph.where(op.cond, g, zero)],
        [op.b, () => graph.where(op.cond, zero, g)],
      ];
    }
    case "linear":
      return [[op.x, () => graph.linear(g, op.matrix.transpose())]];
    case "concat": {
      let offset = 0;
      return op.parts.map((part) => {
        const columns = Array.from({ length: part.width }, (_, i) => offset + i);
        offset += part.width;
        return [part, () => graph.linear(g, SparseMatrix.selection(columns, g.width))];
      });
    }
    case "groupSoftmax":
      // dx = y ⊙ (g − Σ_group g ⊙ y)
      return [[op.x, () => {
        const inner = graph.linear(graph.mul(g, y), groupSumMatrix(op.groups, y.width));
        return graph.mul(y, graph.sub(g, inner));
      }]];
    default:
      return [];
  }
}

/** The matrix that writes into each column the sum of its group's columns. */
function groupSumMatrix(groups: readonly (readonly number[])[], width: number): SparseMatrix {
  const entries = groups.flatMap((group) =>
    group.flatMap((row) => group.map((col) => ({ row, col, weight: 1 })))
  );
  return new SparseMatrix(width, width, entries);
}
