/**
 * A layered drawing of a Petri net, laid out left to right by dagre: places are circles,
 * transitions are bars, flow arcs and inhibitor arcs are polylines whose ends touch the shapes.
 * Pure geometry (no DOM), so it is tested in Deno; `net_view.ts` draws it.
 *
 * @example
 * ```ts
 * import { layoutNet } from "./layout.ts";
 * declare const net: import("../core/net/types.ts").PetriNet;
 * const drawing = layoutNet(net, (t) => net.labels.get(t) ?? t);
 * drawing.nodes.length === net.places.length + net.transitions.length; // true
 * ```
 *
 * @module
 */

import { Graph, layout } from "@dagrejs/dagre";
import type { PetriNet } from "../core/net/types.ts";

/** Radius of a place's circle. */
export const PLACE_RADIUS = 18;
/** Width and height of a transition's bar. */
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

/**
 * Lays the net out left to right (sources on the left).
 *
 * @example
 * ```ts
 * import { layoutNet } from "./layout.ts";
 * declare const net: import("../core/net/types.ts").PetriNet;
 * layoutNet(net, (t) => t).edges.filter((e) => e.kind === "inhibitor").length;
 * // net.inhibitorArcs.length
 * ```
 */
export function layoutNet(net: PetriNet, label: (transition: string) => string): NetLayout {
  const g = new Graph({ multigraph: true });
  g.setGraph({ rankdir: "LR", nodesep: 28, ranksep: 56, edgesep: 12, marginx: 12, marginy: 12 });
  g.setDefaultEdgeLabel(() => ({}));

  const silent = new Set(net.silentTransitions);
  const specs = new Map<string, Omit<LaidNode, "x" | "y">>();
  const add = (key: string, node: Omit<LaidNode, "x" | "y">): void => {
    specs.set(key, node);
    // The box holds the shape, centred, with room for the label line above and below.
    g.setNode(key, {
      width: Math.max(node.width, textWidth(node.shortLabel)),
      height: node.height + 2 * LABEL_LINE,
    });
  };
  for (const id of net.places) {
    const diameter = 2 * PLACE_RADIUS;
    add(placeKey(id), {
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
    add(transitionKey(id), {
      id,
      kind: "transition",
      label: text,
      shortLabel: shorten(text),
      silent: silent.has(id),
      ...BAR_SIZE,
    });
  }

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
  for (const e of edgeKeys) g.setEdge(e.v, e.w, {}, e.name);

  layout(g);

  const nodes: LaidNode[] = [];
  const byKey = new Map<string, LaidNode>();
  for (const [key, spec] of specs) {
    const box = g.node(key);
    const node = { ...spec, x: box.x ?? 0, y: box.y ?? 0 };
    nodes.push(node);
    byKey.set(key, node);
  }
  const edges = edgeKeys.map((e): LaidEdge => {
    const from = byKey.get(e.v)!;
    const to = byKey.get(e.w)!;
    const routed: readonly Point[] = g.edge({ v: e.v, w: e.w, name: e.name })?.points ?? [];
    const inner = routed.slice(1, -1).map((p) => ({ x: p.x, y: p.y }));
    const start = clip(from, inner[0] ?? to);
    const end = clip(to, inner.at(-1) ?? from);
    return { from: from.id, to: to.id, kind: e.kind, points: [start, ...inner, end] };
  });
  const size = g.graph();
  return { width: size.width ?? 0, height: size.height ?? 0, nodes, edges };
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
