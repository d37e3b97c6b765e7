/**
 * A fast layered drawing for large nets, where dagre is slow and, routing every arc around the
 * nodes, very tall. Ranks by the longest path from the sources, order within ranks by a few
 * barycentre sweeps, then each box pulled towards its neighbours' heights so arcs run
 * straight where they can. Pure geometry, linear in the arcs per sweep.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { layeredLayout } from "./layered_layout.ts";
 * const drawn = layeredLayout(
 *   [{ key: "a", width: 10, height: 10 }, { key: "b", width: 10, height: 10 }],
 *   [{ v: "a", w: "b" }],
 *   { nodesep: 10, ranksep: 20, margin: 5 },
 * );
 * assert.ok(drawn.nodes.get("b")!.x > drawn.nodes.get("a")!.x); // left to right
 * ```
 *
 * @module
 */

/** A node to place: its box (shape and labels). */
export interface LayeredNode {
  readonly key: string;
  readonly width: number;
  readonly height: number;
}

/** An arc from `v` to `w`. */
export interface LayeredEdge {
  readonly v: string;
  readonly w: string;
}

/** Spacing: between boxes of a rank, between ranks, around the drawing. */
export interface LayeredSpacing {
  readonly nodesep: number;
  readonly ranksep: number;
  readonly margin: number;
}

/** Where everything went: box centres, and each arc's bend point when it goes backwards. */
export interface LayeredDrawing {
  readonly width: number;
  readonly height: number;
  readonly nodes: ReadonlyMap<string, { readonly x: number; readonly y: number }>;
  /** Per edge (same order as given): a point to pass through, or undefined for a straight arc. */
  readonly bends: readonly ({ readonly x: number; readonly y: number } | undefined)[];
}

const SWEEPS = 12;
const STRAIGHTEN = 6;

/**
 * Lays `nodes` out left to right along `edges`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { layeredLayout } from "./layered_layout.ts";
 * const nodes = ["a", "b", "c"].map((key) => ({ key, width: 10, height: 10 }));
 * const cycle = [{ v: "a", w: "b" }, { v: "b", w: "c" }, { v: "c", w: "a" }];
 * const drawn = layeredLayout(nodes, cycle, { nodesep: 10, ranksep: 20, margin: 5 });
 * assert.ok(drawn.bends[2] !== undefined); // c -> a goes backwards: it bends
 * ```
 */
export function layeredLayout(
  nodes: readonly LayeredNode[],
  edges: readonly LayeredEdge[],
  spacing: LayeredSpacing,
): LayeredDrawing {
  const n = nodes.length;
  const index = new Map(nodes.map((node, i) => [node.key, i]));
  const from = edges.map((e) => index.get(e.v)!);
  const to = edges.map((e) => index.get(e.w)!);
  const out: number[][] = Array.from({ length: n }, () => []);
  edges.forEach((_, e) => out[from[e]!]!.push(e));

  const back = backEdges(n, out, to);
  const rank = ranks(n, edges.length, from, to, back);
  const layers = order(n, rank, from, to);
  const y = heights(nodes, layers, rank, from, to, spacing);

  // x: ranks side by side, each as wide as its widest box.
  const rankCount = layers.length;
  const rankWidth = layers.map((layer) => Math.max(0, ...layer.map((i) => nodes[i]!.width)));
  const rankX: number[] = [];
  let x = spacing.margin;
  for (let r = 0; r < rankCount; r++) {
    rankX.push(x + rankWidth[r]! / 2);
    x += rankWidth[r]! + spacing.ranksep;
  }
  const width = Math.max(0, x - spacing.ranksep + spacing.margin);
  let height = 0;
  for (let i = 0; i < n; i++) height = Math.max(height, y[i]! + nodes[i]!.height / 2);
  height += spacing.margin;

  const placed = new Map<string, { x: number; y: number }>();
  nodes.forEach((node, i) => placed.set(node.key, { x: rankX[rank[i]!]!, y: y[i]! }));
  const bends = edges.map((_, e) => {
    const a = from[e]!;
    const b = to[e]!;
    if (rank[b]! > rank[a]!) return undefined;
    // Backwards (or within a rank): bend below both ends, halfway.
    const lowest = Math.max(y[a]! + nodes[a]!.height / 2, y[b]! + nodes[b]!.height / 2);
    return {
      x: (rankX[rank[a]!]! + rankX[rank[b]!]!) / 2,
      y: lowest + spacing.nodesep,
    };
  });
  return {
    width,
    height: Math.max(height, ...bends.map((p) => (p ? p.y + 8 : 0))),
    nodes: placed,
    bends,
  };
}

/** The edges a depth-first walk finds closing a cycle (in node order, iteratively). */
function backEdges(n: number, out: readonly number[][], to: readonly number[]): Set<number> {
  const state = new Uint8Array(n); // 0 new, 1 on the stack, 2 done
  const back = new Set<number>();
  for (let root = 0; root < n; root++) {
    if (state[root] !== 0) continue;
    const stack: [number, number][] = [[root, 0]];
    state[root] = 1;
    while (stack.length > 0) {
      const top = stack[stack.length - 1]!;
      const [v, next] = top;
      if (next < out[v]!.length) {
        top[1]++;
        const e = out[v]![next]!;
        const w = to[e]!;
        if (state[w] === 1) back.add(e);
        else if (state[w] === 0) {
          state[w] = 1;
          stack.push([w, 0]);
        }
      } else {
        state[v] = 2;
        stack.pop();
      }
    }
  }
  return back;
}

/**
 * Longest-path ranks over the forward edges; sources move up to just before a successor, and
 * nodes without arcs fill the emptiest ranks.
 */
function ranks(
  n: number,
  m: number,
  from: readonly number[],
  to: readonly number[],
  back: ReadonlySet<number>,
): Int32Array {
  const indegree = new Int32Array(n);
  const forward: number[][] = Array.from({ length: n }, () => []);
  const hasIn = new Uint8Array(n);
  for (let e = 0; e < m; e++) {
    if (back.has(e) || from[e] === to[e]) continue;
    forward[from[e]!]!.push(to[e]!);
    indegree[to[e]!]!++;
    hasIn[to[e]!] = 1;
  }
  const rank = new Int32Array(n);
  const queue: number[] = [];
  for (let i = 0; i < n; i++) if (indegree[i] === 0) queue.push(i);
  for (let head = 0; head < queue.length; head++) {
    const v = queue[head]!;
    for (const w of forward[v]!) {
      rank[w] = Math.max(rank[w]!, rank[v]! + 1);
      if (--indegree[w]! === 0) queue.push(w);
    }
  }
  const isolated: number[] = [];
  const linked = new Uint8Array(n);
  for (let e = 0; e < m; e++) {
    if (from[e] !== to[e]) linked[from[e]!] = linked[to[e]!] = 1;
  }
  for (let v = 0; v < n; v++) {
    if (!linked[v]) isolated.push(v);
    if (hasIn[v] || forward[v]!.length === 0) continue;
    const first = Math.min(...forward[v]!.map((w) => rank[w]!));
    rank[v] = Math.max(0, first - 1);
  }
  // Nodes with no arc at all go to the emptiest ranks, not all to the first.
  const sizes = new Int32Array(n === 0 ? 0 : Math.max(...rank) + 1);
  for (let v = 0; v < n; v++) if (linked[v]) sizes[rank[v]!]!++;
  for (const v of isolated) {
    let best = 0;
    for (let r = 1; r < sizes.length; r++) if (sizes[r]! < sizes[best]!) best = r;
    rank[v] = best;
    sizes[best]!++;
  }
  return rank;
}

/** The nodes of each rank, ordered by barycentre sweeps to cut crossings. */
function order(
  n: number,
  rank: Int32Array,
  from: readonly number[],
  to: readonly number[],
): number[][] {
  const count = n === 0 ? 0 : Math.max(...rank) + 1;
  const layers: number[][] = Array.from({ length: count }, () => []);
  for (let i = 0; i < n; i++) layers[rank[i]!]!.push(i);
  const neighbours: number[][] = Array.from({ length: n }, () => []);
  from.forEach((a, e) => {
    const b = to[e]!;
    if (a === b) return;
    neighbours[a]!.push(b);
    neighbours[b]!.push(a);
  });
  const position = new Float64Array(n);
  const place = () =>
    layers.forEach((layer) => layer.forEach((v, k) => (position[v] = k - layer.length / 2)));
  place();
  for (let sweep = 0; sweep < SWEEPS; sweep++) {
    const down = sweep % 2 === 0;
    for (let step = 1; step < count; step++) {
      const r = down ? step : count - 1 - step;
      const layer = layers[r]!;
      const centre = new Map<number, number>();
      for (const v of layer) {
        let sum = 0;
        let seen = 0;
        for (const w of neighbours[v]!) {
          if (down ? rank[w]! < r : rank[w]! > r) {
            sum += position[w]!;
            seen++;
          }
        }
        centre.set(v, seen > 0 ? sum / seen : position[v]!);
      }
      layer.sort((a, b) => centre.get(a)! - centre.get(b)! || position[a]! - position[b]!);
      layer.forEach((v, k) => (position[v] = k - layer.length / 2));
    }
  }
  place();
  return layers;
}

/**
 * The y of each box centre: stacked in rank order, then pulled towards the mean of its
 * neighbours in the ranks before and after, keeping the order and the gaps.
 */
function heights(
  nodes: readonly LayeredNode[],
  layers: readonly number[][],
  rank: Int32Array,
  from: readonly number[],
  to: readonly number[],
  spacing: LayeredSpacing,
): Float64Array {
  const n = nodes.length;
  const y = new Float64Array(n);
  const neighbours: number[][] = Array.from({ length: n }, () => []);
  from.forEach((a, e) => {
    const b = to[e]!;
    if (a !== b && Math.abs(rank[a]! - rank[b]!) === 1) {
      neighbours[a]!.push(b);
      neighbours[b]!.push(a);
    }
  });
  const stackedHeight = (layer: readonly number[]) =>
    layer.reduce((h, v) => h + nodes[v]!.height, 0) + spacing.nodesep * (layer.length - 1);
  const tallest = Math.max(0, ...layers.map(stackedHeight));
  for (const layer of layers) {
    let at = spacing.margin + (tallest - stackedHeight(layer)) / 2;
    for (const v of layer) {
      y[v] = at + nodes[v]!.height / 2;
      at += nodes[v]!.height + spacing.nodesep;
    }
  }
  for (let pass = 0; pass < STRAIGHTEN; pass++) {
    for (const layer of pass % 2 === 0 ? layers : [...layers].reverse()) {
      const wanted = layer.map((v) => {
        const near = neighbours[v]!;
        return near.length === 0 ? y[v]! : near.reduce((s, w) => s + y[w]!, 0) / near.length;
      });
      fitInOrder(layer, wanted, nodes, spacing.nodesep, y);
    }
  }
  // Shift so the top edge sits at the margin.
  let top = Infinity;
  for (let i = 0; i < n; i++) top = Math.min(top, y[i]! - nodes[i]!.height / 2);
  if (Number.isFinite(top)) { for (let i = 0; i < n; i++) y[i] = y[i]! - top + spacing.margin; }
  return y;
}

/**
 * Sets the ys of `layer` (in order) as close to `wanted` as the gaps allow: the classic
 * pool-adjacent-violators fit of an ordered sequence with minimum spacing.
 */
function fitInOrder(
  layer: readonly number[],
  wanted: readonly number[],
  nodes: readonly LayeredNode[],
  gap: number,
  y: Float64Array,
): void {
  // Offsets that turn the spacing constraint into plain monotonicity.
  const offsets: number[] = [];
  let offset = 0;
  layer.forEach((v, k) => {
    if (k > 0) offset += nodes[layer[k - 1]!]!.height / 2 + gap + nodes[v]!.height / 2;
    offsets.push(offset);
  });
  const blocks: { sum: number; count: number; start: number }[] = [];
  wanted.forEach((w, k) => {
    blocks.push({ sum: w - offsets[k]!, count: 1, start: k });
    while (blocks.length > 1) {
      const last = blocks[blocks.length - 1]!;
      const prev = blocks[blocks.length - 2]!;
      if (prev.sum / prev.count <= last.sum / last.count) break;
      prev.sum += last.sum;
      prev.count += last.count;
      blocks.pop();
    }
  });
  for (const block of blocks) {
    const base = block.sum / block.count;
    for (let k = block.start; k < block.start + block.count; k++) {
      y[layer[k]!] = base + offsets[k]!;
    }
  }
}
