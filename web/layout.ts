/**
 * A layered drawing of a Petri net, left to right: places are circles, transitions bars, arcs
 * polylines whose ends touch the shapes. Small nets are laid out by dagre, which routes arcs
 * around the nodes; larger ones by `layered_layout.ts`, as dagre gets slow and very tall on
 * them. Pure geometry (no DOM), so it is tested in Deno.
 *
 * @example
 * ```ts
 * import { layoutNet } from "./layout.ts";
 * declare const net: import("../core/net/mod.ts").PetriNet;
 * const drawing = layoutNet(net, (t) => net.labels.get(t) ?? t);
 * drawing.nodes.length === net.places.length + net.transitions.length; // true
 * ```
 *
 * @module
 */

import { Graph, layout } from "@dagrejs/dagre";
import type { PetriNet } from "../core/net/mod.ts";
import { layeredLayout } from "./layered_layout.ts";

/** Nets with more nodes (places and transitions) than this skip dagre. */
export const DAGRE_MAX_NODES = 60;

/**
 * Which way the ranks run: left to right (`LR`, for wide views), or top to bottom (`TB`, for
 * narrow ones such as phones); transitions' bars stand across the flow either way.
 */
export type Direction = "LR" | "TB";

/** Radius of a place's circle. */
export const PLACE_RADIUS = 18;
/** Width and height of a transition's bar, left to right (top to bottom: turned). */
export const BAR_SIZE = { width: 12, height: 44 } as const;
/** Height of a node's text line, and the font size it assumes. */
export const LABEL_LINE = 16;
/** Longest label drawn in full; longer ones end with an ellipsis (the tooltip has it whole). */
export const LABEL_CHARS = 26;

/** A point in drawing coordinates. */
export interface Point {
  readonly x: number;
  readonly y: number;
}

/** A laid-out place or transition; `x`, `y` is the shape's centre. */
export interface LaidNode {
  readonly id: string;
  readonly kind: "place" | "transition";
  /** The transition's label (its id when it has none), or the place id. */
  readonly label: string;
  /** The label as drawn (shortened to {@link LABEL_CHARS}). */
  readonly shortLabel: string;
  readonly silent: boolean;
  readonly x: number;
  readonly y: number;
  /** Shape width: the circle's diameter or the bar's width. */
  readonly width: number;
  /** Shape height. */
  readonly height: number;
}

/** A laid-out arc: a flow arc (either direction) or an inhibitor arc (place to transition). */
export interface LaidEdge {
  readonly from: string;
  readonly to: string;
  readonly kind: "arc" | "inhibitor";
  /** From the source shape's boundary to the target shape's boundary. */
  readonly points: readonly Point[];
}

/** The whole drawing; coordinates run from 0 to `width` and `height`. */
export interface NetLayout {
  readonly width: number;
  readonly height: number;
  readonly nodes: readonly LaidNode[];
  readonly edges: readonly LaidEdge[];
}

/** Lays the net out left to right (sources on the left). */
export function layoutNet(
  net: PetriNet,
  label: (transition: string) => string,
  direction: Direction = "LR",
): NetLayout {
  const silent = new Set(net.silentTransitions);
  const specs = new Map<string, Omit<LaidNode, "x" | "y">>();
  for (const id of net.places) {
    const diameter = 2 * PLACE_RADIUS;
    specs.set(placeKey(id), {
      id,
      kind: "place",
      label: id,
      shortLabel: shorten(id),
      silent: false,
      width: diameter,
      height: diameter,
    });
  }
  for (const id of net.transitions) {
    const text = label(id);
    specs.set(transitionKey(id), {
      id,
      kind: "transition",
      label: text,
      shortLabel: shorten(text),
      silent: silent.has(id),
      ...(direction === "LR" ? BAR_SIZE : { width: BAR_SIZE.height, height: BAR_SIZE.width }),
    });
  }
  // A node's box holds the shape, centred, with room for the label line above and below.
  const box = (node: Omit<LaidNode, "x" | "y">) => ({
    width: Math.max(node.width, textWidth(node.shortLabel)),
    height: node.height + 2 * LABEL_LINE,
  });

  const places = new Set(net.places);
  const edgeKeys: { v: string; w: string; name: string; kind: LaidEdge["kind"] }[] = [];
  net.arcs.forEach((arc, i) => {
    const fromPlace = places.has(arc.from);
    const v = fromPlace ? placeKey(arc.from) : transitionKey(arc.from);
    const w = fromPlace ? transitionKey(arc.to) : placeKey(arc.to);
    edgeKeys.push({ v, w, name: `a${i}`, kind: "arc" });
  });
  net.inhibitorArcs.forEach((arc, i) => {
    edgeKeys.push({
      v: placeKey(arc.place),
      w: transitionKey(arc.transition),
      name: `i${i}`,
      kind: "inhibitor",
    });
  });

  const placed = specs.size > DAGRE_MAX_NODES
    ? layeredPositions(specs, box, edgeKeys, direction)
    : dagrePositions(specs, box, edgeKeys, direction);

  const nodes: LaidNode[] = [];
  const byKey = new Map<string, LaidNode>();
  for (const [key, spec] of specs) {
    const at = placed.nodes.get(key)!;
    const node = { ...spec, x: at.x, y: at.y };
    nodes.push(node);
    byKey.set(key, node);
  }
  const edges = edgeKeys.map((e, i): LaidEdge => {
    const from = byKey.get(e.v)!;
    const to = byKey.get(e.w)!;
    const inner = placed.inner[i]!;
    const start = direction === "TB"
      ? belowLabel(from, inner[0] ?? to)
      : clip(from, inner[0] ?? to);
    const end = clip(to, inner.at(-1) ?? from);
    return { from: from.id, to: to.id, kind: e.kind, points: [start, ...inner, end] };
  });
  return { width: placed.width, height: placed.height, nodes, edges };
}

/** Node centres, each edge's inner points, and the drawing's size. */
interface Positions {
  readonly width: number;
  readonly height: number;
  readonly nodes: ReadonlyMap<string, Point>;
  readonly inner: readonly (readonly Point[])[];
}

type Box = (node: Omit<LaidNode, "x" | "y">) => { width: number; height: number };
type EdgeKey = { v: string; w: string; name: string };

function dagrePositions(
  specs: ReadonlyMap<string, Omit<LaidNode, "x" | "y">>,
  box: Box,
  edgeKeys: readonly EdgeKey[],
  direction: Direction,
): Positions {
  const g = new Graph({ multigraph: true });
  g.setGraph({
    rankdir: direction,
    nodesep: 28,
    ranksep: direction === "LR" ? 56 : 40,
    edgesep: 12,
    marginx: 12,
    marginy: 12,
  });
  g.setDefaultEdgeLabel(() => ({}));
  for (const [key, spec] of specs) g.setNode(key, box(spec));
  for (const e of edgeKeys) g.setEdge(e.v, e.w, {}, e.name);
  layout(g);
  const nodes = new Map<string, Point>();
  for (const key of specs.keys()) {
    const at = g.node(key);
    nodes.set(key, { x: at.x ?? 0, y: at.y ?? 0 });
  }
  const inner = edgeKeys.map((e) => {
    const routed: readonly Point[] = g.edge({ v: e.v, w: e.w, name: e.name })?.points ?? [];
    return routed.slice(1, -1).map((p) => ({ x: p.x, y: p.y }));
  });
  const size = g.graph();
  return { width: size.width ?? 0, height: size.height ?? 0, nodes, inner };
}

function layeredPositions(
  specs: ReadonlyMap<string, Omit<LaidNode, "x" | "y">>,
  box: Box,
  edgeKeys: readonly EdgeKey[],
  direction: Direction,
): Positions {
  // Top to bottom is the left-to-right drawing turned, boxes turned first; the label sits
  // below the shape only, so the box's centre is half a line below the shape's.
  const across = direction === "LR";
  const drawing = layeredLayout(
    [...specs].map(([key, spec]) => {
      const { width, height } = box(spec);
      const tall = height - LABEL_LINE;
      return across ? { key, width, height: tall } : { key, width: tall, height: width };
    }),
    edgeKeys,
    { nodesep: across ? 16 : 32, ranksep: across ? 56 : 36, margin: 12 },
  );
  const turn = (p: Point): Point => (across ? p : { x: p.y, y: p.x });
  const nodes = new Map<string, Point>();
  for (const [key, at] of drawing.nodes) {
    const { x, y } = turn(at);
    nodes.set(key, { x, y: y - LABEL_LINE / 2 });
  }
  return {
    width: across ? drawing.width : drawing.height,
    height: across ? drawing.height : drawing.width,
    nodes,
    inner: drawing.bends.map((bend) => (bend ? [turn(bend)] : [])),
  };
}

/**
 * Where an arc leaves `node` in a top-to-bottom drawing: below its label when it heads down
 * (the label sits under the shape, so an arc from the shape's edge would cross it), else
 * where it leaves the shape.
 */
function belowLabel(node: LaidNode, toward: Point): Point {
  const port = { x: node.x, y: node.y + node.height / 2 + LABEL_LINE + 2 };
  return toward.y > port.y + 4 ? port : clip(node, toward);
}

/** Where the segment from `node`'s centre towards `toward` leaves the node's shape. */
function clip(node: LaidNode, toward: Point): Point {
  const dx = toward.x - node.x;
  const dy = toward.y - node.y;
  if (dx === 0 && dy === 0) return { x: node.x, y: node.y };
  if (node.kind === "place") {
    const length = Math.hypot(dx, dy);
    return { x: node.x + (dx / length) * PLACE_RADIUS, y: node.y + (dy / length) * PLACE_RADIUS };
  }
  const scale = Math.min(
    dx === 0 ? Infinity : node.width / 2 / Math.abs(dx),
    dy === 0 ? Infinity : node.height / 2 / Math.abs(dy),
  );
  return { x: node.x + dx * scale, y: node.y + dy * scale };
}

function placeKey(id: string): string {
  return `p:${id}`;
}

function transitionKey(id: string): string {
  return `t:${id}`;
}

function shorten(text: string): string {
  const chars = [...text];
  return chars.length <= LABEL_CHARS ? text : chars.slice(0, LABEL_CHARS - 1).join("") + "…";
}

/** An estimate of the drawn width of 12 px sans-serif text, without a DOM to measure it. */
function textWidth(text: string): number {
  return [...text].length * 7 + 4;
}
