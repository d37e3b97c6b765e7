/**
 * The net as a picture: draws a {@link NetLayout} as SVG (places as circles, transitions as
 * bars, flow arcs with arrowheads, inhibitor arcs with circle heads, labels), colours the nodes
 * by activation after each run, and shows a node's id, label and value in a tooltip on hover or
 * keyboard focus.
 *
 * @example
 * ```ts
 * import { NetView } from "./net_view.ts";
 * import { layoutNet } from "./layout.ts";
 * declare const net: import("../core/net/types.ts").PetriNet;
 * const view = new NetView(document.querySelector("#net-figure")!);
 * view.show(layoutNet(net, (t) => t));
 * view.colour(new Map([["t_a", 0.9]]), new Map([["p_in", 1]]));
 * ```
 *
 * @module
 */

import { formatNumber, html, svg } from "./dom.ts";
import type { LaidEdge, LaidNode, NetLayout, Point } from "./layout.ts";

/** The colour of activation 0 and of activation 1; values between are interpolated. */
export const ACTIVATION_COLOURS = { low: [255, 255, 255], high: [26, 95, 180] } as const;

/**
 * The fill for an activation: white at 0, blue at 1, clamped outside [0, 1]; grey when the value
 * is not finite.
 *
 * @example
 * ```ts
 * import { activationColour } from "./net_view.ts";
 * activationColour(1); // "rgb(26, 95, 180)"
 * ```
 */
export function activationColour(value: number): string {
  if (!Number.isFinite(value)) return "rgb(190, 190, 190)";
  const t = Math.min(1, Math.max(0, value));
  const { low, high } = ACTIVATION_COLOURS;
  const mix = (i: 0 | 1 | 2) => Math.round(low[i] + (high[i] - low[i]) * t);
  return `rgb(${mix(0)}, ${mix(1)}, ${mix(2)})`;
}

/** Draws one net into a container (the SVG and its tooltip are created inside it). */
export class NetView {
  readonly #container: HTMLElement;
  readonly #svg: SVGSVGElement;
  readonly #tooltip: HTMLElement;
  #nodes = new Map<string, { node: LaidNode; element: SVGGElement }>();
  #values = new Map<string, number>();

  /** @param container an element with `position: relative`; the drawing replaces its content */
  constructor(container: HTMLElement) {
    this.#container = container;
    this.#svg = svg("svg", { id: "net-svg", role: "group" });
    this.#tooltip = html("div", { id: "net-tooltip", role: "tooltip", hidden: true });
    container.replaceChildren(this.#svg, this.#tooltip);
  }

  /** The SVG element (tests count its `.node` children). */
  get element(): SVGSVGElement {
    return this.#svg;
  }

  /** Replaces the drawing; activations are cleared. */
  show(layout: NetLayout): void {
    const places = layout.nodes.filter((n) => n.kind === "place").length;
    const transitions = layout.nodes.length - places;
    const width = Math.max(1, Math.ceil(layout.width));
    const height = Math.max(1, Math.ceil(layout.height));
    this.#svg.setAttribute("viewBox", `0 0 ${width} ${height}`);
    this.#svg.style.maxWidth = `${width}px`;
    // Shrink to fit narrow screens, but not below 60 %: wider nets scroll instead.
    this.#svg.style.minWidth = `${Math.round(width * 0.6)}px`;
    this.#svg.setAttribute(
      "aria-label",
      `The net: ${places} places (circles), ${transitions} transitions (bars)`,
    );
    this.#nodes.clear();
    this.#values.clear();
    this.#hideTooltip();
    const edges = svg("g", { class: "edges" }, ...layout.edges.map(drawEdge));
    const nodes = svg("g", { class: "nodes" });
    // Reading order (left to right, then top to bottom) for keyboard moves between nodes.
    const ordered = [...layout.nodes].sort((a, b) => a.x - b.x || a.y - b.y);
    const elements = ordered.map((node, i) => {
      const element = drawNode(node);
      element.tabIndex = i === 0 ? 0 : -1;
      element.addEventListener("pointerenter", () => this.#showTooltip(node.id, node.kind));
      element.addEventListener("pointerleave", () => this.#hideTooltip());
      element.addEventListener("focus", () => this.#showTooltip(node.id, node.kind));
      element.addEventListener("blur", () => this.#hideTooltip());
      element.addEventListener("keydown", (event) => {
        const step = MOVES[event.key];
        if (event.key === "Escape") this.#hideTooltip();
        if (step === undefined) return;
        event.preventDefault();
        const next = step === "first" ? 0 : step === "last" ? elements.length - 1 : i + step;
        const target = elements[Math.min(elements.length - 1, Math.max(0, next))]!;
        for (const other of elements) other.tabIndex = other === target ? 0 : -1;
        target.focus();
      });
      this.#nodes.set(key(node.kind, node.id), { node, element });
      return element;
    });
    nodes.append(...elements);
    this.#svg.replaceChildren(markers(), edges, nodes);
  }

  /** Colours every node by its activation (nodes missing from the maps are uncoloured). */
  colour(
    transitions: ReadonlyMap<string, number>,
    places: ReadonlyMap<string, number>,
  ): void {
    this.#values.clear();
    for (const [kind, values] of [["transition", transitions], ["place", places]] as const) {
      for (const [id, value] of values) this.#values.set(key(kind, id), value);
    }
    for (const [k, { node, element }] of this.#nodes) {
      const value = this.#values.get(k);
      const shape = element.querySelector(".shape") as SVGElement;
      if (value === undefined) {
        shape.style.removeProperty("fill");
        element.removeAttribute("data-value");
      } else {
        shape.style.fill = activationColour(value);
        element.dataset.value = String(value);
      }
      element.setAttribute("aria-label", describe(node, value));
    }
  }

  #showTooltip(id: string, kind: LaidNode["kind"]): void {
    const entry = this.#nodes.get(key(kind, id));
    if (!entry) return;
    const { node, element } = entry;
    const value = this.#values.get(key(kind, id));
    this.#tooltip.replaceChildren(
      html("strong", {}, `${node.kind} ${node.id}`),
      html("span", {}, `label: ${node.label}`),
      html(
        "span",
        {},
        value === undefined ? "activation: not run yet" : `activation: ${formatNumber(value)}`,
      ),
    );
    this.#tooltip.dataset.id = node.id;
    this.#tooltip.hidden = false;
    const box = element.getBoundingClientRect();
    const frame = this.#container.getBoundingClientRect();
    const tip = this.#tooltip.getBoundingClientRect();
    const left = Math.min(
      Math.max(0, box.left - frame.left + box.width / 2 - tip.width / 2),
      Math.max(0, frame.width - tip.width),
    );
    const above = box.top - frame.top - tip.height - 6;
    const top = above >= 0 ? above : box.bottom - frame.top + 6;
    this.#tooltip.style.left = `${left}px`;
    this.#tooltip.style.top = `${top}px`;
  }

  #hideTooltip(): void {
    this.#tooltip.hidden = true;
  }
}

const MOVES: Readonly<Record<string, number | "first" | "last">> = {
  ArrowRight: 1,
  ArrowDown: 1,
  ArrowLeft: -1,
  ArrowUp: -1,
  Home: "first",
  End: "last",
};

function key(kind: LaidNode["kind"], id: string): string {
  return `${kind}:${id}`;
}

function describe(node: LaidNode, value: number | undefined): string {
  const label = node.kind === "transition" && node.label !== node.id ? ` (${node.label})` : "";
  const activation = value === undefined ? "" : `, activation ${formatNumber(value)}`;
  return `${node.kind} ${node.id}${label}${activation}`;
}

function markers(): SVGDefsElement {
  return svg(
    "defs",
    {},
    svg(
      "marker",
      {
        id: "net-arrow",
        viewBox: "0 0 10 10",
        refX: 10,
        refY: 5,
        markerWidth: 7,
        markerHeight: 7,
        orient: "auto-start-reverse",
      },
      svg("path", { d: "M0 0 L10 5 L0 10 z", class: "arrow-head" }),
    ),
    svg(
      "marker",
      {
        id: "net-inhibitor",
        viewBox: "0 0 10 10",
        refX: 9,
        refY: 5,
        markerWidth: 7,
        markerHeight: 7,
        orient: "auto",
      },
      svg("circle", { cx: 5, cy: 5, r: 4, class: "inhibitor-head" }),
    ),
  );
}

function drawEdge(edge: LaidEdge): SVGPathElement {
  const marker = edge.kind === "inhibitor" ? "net-inhibitor" : "net-arrow";
  return svg("path", {
    class: `edge ${edge.kind}`,
    d: smoothPath(edge.points),
    "marker-end": `url(#${marker})`,
    "data-from": edge.from,
    "data-to": edge.to,
  });
}

/** A path through the points, rounding the inner corners; the last segment stays straight. */
function smoothPath(points: readonly Point[]): string {
  const fmt = (p: Point) => `${p.x.toFixed(1)} ${p.y.toFixed(1)}`;
  if (points.length === 0) return "";
  let d = `M${fmt(points[0]!)}`;
  for (let i = 1; i < points.length - 1; i++) {
    const p = points[i]!;
    const next = points[i + 1]!;
    const mid = { x: (p.x + next.x) / 2, y: (p.y + next.y) / 2 };
    d += ` Q${fmt(p)} ${fmt(mid)}`;
  }
  return points.length > 1 ? `${d} L${fmt(points.at(-1)!)}` : d;
}

function drawNode(node: LaidNode): SVGGElement {
  const shape = node.kind === "place"
    ? svg("circle", { class: "shape", r: node.width / 2 })
    : svg("rect", {
      class: "shape",
      x: -node.width / 2,
      y: -node.height / 2,
      width: node.width,
      height: node.height,
    });
  const classes = ["node", node.kind, node.silent ? "silent" : ""].filter(Boolean).join(" ");
  return svg(
    "g",
    {
      class: classes,
      transform: `translate(${node.x.toFixed(1)} ${node.y.toFixed(1)})`,
      role: "img",
      "aria-label": describe(node, undefined),
      "data-id": node.id,
      "data-kind": node.kind,
    },
    shape,
    svg(
      "text",
      { class: "label", y: node.height / 2 + 13, "text-anchor": "middle" },
      node.shortLabel,
    ),
  );
}
