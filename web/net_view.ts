/**
 * The net as a picture: draws a {@link NetLayout} as SVG that fills the width it gets, zooms
 * and pans (wheel, drag, pinch, keyboard, toolbar), colours the nodes by activation or by a
 * trace's residuals, and names a node in a tooltip on hover or focus. Labels grow when zoomed
 * out and hide below {@link LABEL_MIN_SCALE}, so they stay legible; the layout direction is
 * the one that shows the net larger for the view's width.
 *
 * @example
 * ```ts
 * import { NetView } from "./net_view.ts";
 * import { layoutNet } from "./layout.ts";
 * declare const net: import("../core/net/mod.ts").PetriNet;
 * const view = new NetView(document.querySelector("#net-figure")!);
 * view.show((direction) => layoutNet(net, (t) => t, direction));
 * view.colour(new Map([["t_a", 0.9]]), new Map([["p_in", 1]]));
 * view.zoomBy(2); // twice as large, around the middle
 * view.fit();
 * ```
 *
 * @module
 */

import { formatNumber, html, svg } from "./dom.ts";
import type { Direction, LaidEdge, LaidNode, NetLayout, Point } from "./layout.ts";

/** The colour of activation 0 and of activation 1; values between are interpolated. */
export const ACTIVATION_COLOURS = { low: [255, 255, 255], high: [26, 95, 180] } as const;
/** The colour of residual 0 and of residual 1. */
export const RESIDUAL_COLOURS = { low: [255, 255, 255], high: [198, 70, 0] } as const;

/** Below this zoom, labels are hidden (they would be under 7.5 px on screen). */
export const LABEL_MIN_SCALE = 0.45;
/** Labels are 12 px in the drawing; zoomed out below this they grow to stay legible. */
const LABEL_GROW_BELOW = 0.8;
/** The most labels grow. */
const MAX_GROW = 1.4;
const MAX_SCALE = 4;
/** "Fit" never enlarges a small net beyond this. */
const MAX_FIT_SCALE = 1.6;
const ZOOM_STEP = 1.25;
const PAN_STEP = 60;
const MIN_HEIGHT = 220;
/** Views narrower than this (phones) lay the net out top to bottom. */
export const NARROW = 640;

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
  return mix(ACTIVATION_COLOURS, value);
}

/**
 * The fill for a residual: white at 0, dark orange at 1, clamped outside [0, 1]; grey when the
 * value is not finite.
 *
 * @example
 * ```ts
 * import { residualColour } from "./net_view.ts";
 * residualColour(1); // "rgb(198, 70, 0)"
 * ```
 */
export function residualColour(value: number): string {
  return mix(RESIDUAL_COLOURS, value);
}

function mix(
  colours: { readonly low: readonly number[]; readonly high: readonly number[] },
  value: number,
): string {
  if (!Number.isFinite(value)) return "rgb(190, 190, 190)";
  const t = Math.min(1, Math.max(0, value));
  const { low, high } = colours;
  const at = (i: number) => Math.round(low[i]! + (high[i]! - low[i]!) * t);
  return `rgb(${at(0)}, ${at(1)}, ${at(2)})`;
}

/** What the colours mean: a run's activations, or a trace's residuals. */
export type Measure = "activation" | "residual";

/** Options of {@link NetView.colour}. */
export interface ColourOptions {
  /** What the values are (default `activation`). */
  readonly measure?: Measure;
  /** A line more for a node's tooltip, by transition id. */
  readonly notes?: ReadonlyMap<string, string>;
}

/** The view's zoom: drawing point p is shown at `scale · p + (x, y)` in the viewport. */
interface Zoom {
  readonly scale: number;
  readonly x: number;
  readonly y: number;
}

/** Draws one net into a container (toolbar, viewport and tooltip are created inside it). */
export class NetView {
  readonly #container: HTMLElement;
  readonly #viewport: HTMLElement;
  readonly #svg: SVGSVGElement;
  readonly #layer: SVGGElement;
  readonly #tooltip: HTMLElement;
  readonly #zoomText: HTMLElement;
  readonly #legend: HTMLElement | undefined;
  #layout: NetLayout | undefined;
  #zoom: Zoom = { scale: 1, x: 0, y: 0 };
  /** How the view was last fitted, while the user has not zoomed or panned since: resizing fits again. */
  #fitted: "width" | "all" | undefined = "width";
  #nodes = new Map<string, { node: LaidNode; element: SVGGElement }>();
  #values = new Map<string, number>();
  #measure: Measure = "activation";
  #notes: ReadonlyMap<string, string> = new Map();
  #pointers = new Map<number, { x: number; y: number }>();
  #draw: ((direction: Direction) => NetLayout) | undefined;
  /** The net laid out each way, as asked for (Fit compares both). */
  readonly #layouts = new Map<Direction, NetLayout>();
  #direction: Direction = "LR";
  /** Whether the view was narrower than {@link NARROW} when last laid out. */
  #narrow = false;
  #lastColour: Parameters<NetView["colour"]> | undefined;
  #dragged = false;

  /**
   * @param container an element with `position: relative`; the drawing replaces its content
   * @param legend the colour scale's legend, whose text and gradient follow the measure
   */
  constructor(container: HTMLElement, legend?: HTMLElement) {
    this.#container = container;
    this.#legend = legend;
    this.#svg = svg("svg", { id: "net-svg", role: "group" });
    this.#layer = svg("g", { class: "zoom-layer" });
    this.#svg.append(this.#layer);
    this.#viewport = html("div", {
      class: "net-viewport",
      tabindex: 0,
      "aria-label": "The net drawing: arrow keys pan, plus and minus zoom, 0 fits it to the view",
      "aria-describedby": "net-keys",
    }, this.#svg);
    this.#tooltip = html("div", { id: "net-tooltip", role: "tooltip", hidden: true });
    this.#zoomText = html("span", { class: "zoom-text", "aria-live": "polite" });
    const button = (text: string, label: string, action: () => void) => {
      const b = html("button", { type: "button", class: "secondary", "aria-label": label }, text);
      b.addEventListener("click", action);
      return b;
    };
    const toolbar = html(
      "div",
      { class: "net-tools", role: "toolbar", "aria-label": "Zoom" },
      button("+", "Zoom in", () => this.zoomBy(ZOOM_STEP)),
      button("−", "Zoom out", () => this.zoomBy(1 / ZOOM_STEP)),
      button("Fit", "Fit the net to the view", () => this.fit()),
      button("1:1", "1:1, actual size", () => this.zoomBy(1 / this.#zoom.scale)),
      this.#zoomText,
    );
    const keys = html(
      "p",
      { id: "net-keys", class: "visually-hidden" },
      "Tab to a node and use the arrow keys to move between nodes.",
    );
    container.replaceChildren(toolbar, this.#viewport, this.#tooltip, keys);
    this.#wire();
    new ResizeObserver(() => this.#resized()).observe(this.#viewport);
  }

  /** The SVG element (tests count its `.node` children). */
  get element(): SVGSVGElement {
    return this.#svg;
  }

  /** The current zoom factor (1: the drawing's own size). */
  get scale(): number {
    return this.#zoom.scale;
  }

  /**
   * Replaces the drawing, laid out by `draw` in the direction that suits the view (top to
   * bottom below {@link NARROW} px, left to right above), and fills the view's width; colours
   * are cleared. A resize across that width lays the net out again.
   */
  show(draw: (direction: Direction) => NetLayout): void {
    this.#draw = draw;
    this.#layouts.clear();
    this.#lastColour = undefined;
    this.#start();
  }

  /**
   * Lays the net out the way that suits the view's width (top to bottom on a phone), unless
   * that drawing is too wide to read at the view's width and the other way is wider to read,
   * and fills the width.
   */
  #start(): void {
    this.#narrow = this.#viewportSize().width < NARROW;
    const wanted: Direction = this.#narrow ? "TB" : "LR";
    const other: Direction = wanted === "TB" ? "LR" : "TB";
    let direction = wanted;
    if (this.#widthScale(this.#layoutFor(wanted)) < LABEL_MIN_SCALE) {
      if (this.#widthScale(this.#layoutFor(other)) > this.#widthScale(this.#layoutFor(wanted))) {
        direction = other;
      }
    }
    this.#direction = direction;
    this.#render(this.#layoutFor(direction));
  }

  #layoutFor(direction: Direction): NetLayout {
    let layout = this.#layouts.get(direction);
    if (!layout && this.#draw) this.#layouts.set(direction, layout = this.#draw(direction));
    return layout!;
  }

  /** The scale that fills the view's width with `layout`. */
  #widthScale(layout: NetLayout): number {
    return Math.min(this.#viewportSize().width / Math.max(1, layout.width), MAX_FIT_SCALE);
  }

  #render(layout: NetLayout): void {
    this.#layout = layout;
    const places = layout.nodes.filter((n) => n.kind === "place").length;
    const transitions = layout.nodes.length - places;
    this.#svg.setAttribute(
      "aria-label",
      `The net: ${places} places (circles), ${transitions} transitions (bars)`,
    );
    this.#nodes.clear();
    this.#values.clear();
    this.#hideTooltip();
    const edges = svg("g", { class: "edges" }, ...layout.edges.map(drawEdge));
    const nodes = svg("g", { class: "nodes" });
    // Reading order (along the flow, then across it) for keyboard moves between nodes.
    const ordered = [...layout.nodes].sort((a, b) =>
      this.#direction === "LR" ? a.x - b.x || a.y - b.y : a.y - b.y || a.x - b.x
    );
    const elements = ordered.map((node, i) => {
      const element = drawNode(node);
      element.tabIndex = i === 0 ? 0 : -1;
      element.addEventListener("pointerenter", () => this.#showTooltip(node.id, node.kind));
      element.addEventListener("pointerleave", () => this.#hideTooltip());
      element.addEventListener("focus", () => {
        this.#reveal(element);
        this.#showTooltip(node.id, node.kind);
      });
      element.addEventListener("blur", () => this.#hideTooltip());
      element.addEventListener("keydown", (event) => {
        const step = MOVES[event.key];
        if (event.key === "Escape") this.#hideTooltip();
        if (step === undefined) return;
        event.preventDefault();
        event.stopPropagation();
        const next = step === "first" ? 0 : step === "last" ? elements.length - 1 : i + step;
        const target = elements[Math.min(elements.length - 1, Math.max(0, next))]!;
        for (const other of elements) other.tabIndex = other === target ? 0 : -1;
        target.focus({ preventScroll: true });
      });
      this.#nodes.set(key(node.kind, node.id), { node, element });
      return element;
    });
    nodes.append(...elements);
    this.#layer.replaceChildren(markers(), edges, nodes);
    this.#setMeasure("activation");
    this.#viewport.style.height = `${this.#fitHeight()}px`;
    this.#fitWidth();
  }

  /** Colours every node by its value (nodes missing from the maps are uncoloured). */
  colour(
    transitions: ReadonlyMap<string, number>,
    places: ReadonlyMap<string, number>,
    options: ColourOptions = {},
  ): void {
    this.#lastColour = [transitions, places, options];
    this.#setMeasure(options.measure ?? "activation");
    this.#notes = options.notes ?? new Map();
    this.#values.clear();
    for (const [kind, values] of [["transition", transitions], ["place", places]] as const) {
      for (const [id, value] of values) this.#values.set(key(kind, id), value);
    }
    const paint = this.#measure === "residual" ? residualColour : activationColour;
    for (const [k, { node, element }] of this.#nodes) {
      const value = this.#values.get(k);
      const shape = element.querySelector(".shape") as SVGElement;
      if (value === undefined) {
        shape.style.removeProperty("fill");
        element.removeAttribute("data-value");
      } else {
        shape.style.fill = paint(value);
        element.dataset.value = String(value);
      }
      element.dataset.measure = this.#measure;
      element.setAttribute("aria-label", describe(node, value, this.#measure));
    }
  }

  /**
   * Shows the whole net as large as the view allows (never enlarging a small net beyond 1.6×):
   * laid out whichever way (left to right, or top to bottom) makes it larger, in a view as
   * tall as the drawing needs, up to three quarters of the window.
   */
  fit(): void {
    if (!this.#layout) return;
    const { width } = this.#viewportSize();
    const most = this.#mostHeight();
    const scaleOf = (layout: NetLayout) =>
      Math.min(
        width / Math.max(1, layout.width),
        most / Math.max(1, layout.height),
        MAX_FIT_SCALE,
      );
    const other: Direction = this.#direction === "LR" ? "TB" : "LR";
    if (this.#draw && scaleOf(this.#layoutFor(other)) > scaleOf(this.#layout) * 1.05) {
      this.#direction = other;
      const colour = this.#lastColour;
      this.#render(this.#layoutFor(other));
      if (colour) this.colour(...colour);
    }
    const layout = this.#layout;
    const scale = scaleOf(layout);
    const height = Math.round(Math.max(MIN_HEIGHT, Math.min(most, scale * layout.height + 8)));
    this.#viewport.style.height = `${height}px`;
    this.#fitted = "all";
    this.#fitAll();
  }

  /** Fits the drawing into the viewport as it is now. */
  #fitAll(): void {
    const layout = this.#layout;
    if (!layout) return;
    const { width, height } = this.#viewportSize();
    const w = Math.max(1, layout.width);
    const h = Math.max(1, layout.height);
    const scale = Math.min(width / w, height / h, MAX_FIT_SCALE);
    this.#apply({ scale, x: (width - scale * w) / 2, y: (height - scale * h) / 2 });
    this.#fitted = "all";
  }

  /** Fills the viewport's width (never enlarging beyond 1.6×), showing the top of the net. */
  #fitWidth(): void {
    const layout = this.#layout;
    if (!layout) return;
    const { width, height } = this.#viewportSize();
    const w = Math.max(1, layout.width);
    const h = Math.max(1, layout.height);
    const scale = Math.min(width / w, MAX_FIT_SCALE);
    const y = scale * h <= height ? (height - scale * h) / 2 : 0;
    this.#apply({ scale, x: (width - scale * w) / 2, y });
    this.#fitted = "width";
  }

  /** Zooms by `factor` around a viewport point (default: the middle). */
  zoomBy(factor: number, around?: Point): void {
    const { width, height } = this.#viewportSize();
    const at = around ?? { x: width / 2, y: height / 2 };
    const { scale, x, y } = this.#zoom;
    const next = Math.min(MAX_SCALE, Math.max(this.#minScale(), scale * factor));
    const ratio = next / scale;
    this.#apply({ scale: next, x: at.x - (at.x - x) * ratio, y: at.y - (at.y - y) * ratio });
    this.#fitted = undefined;
  }

  /** Moves the drawing by `dx`, `dy` pixels. */
  panBy(dx: number, dy: number): void {
    const { scale, x, y } = this.#zoom;
    this.#apply({ scale, x: x + dx, y: y + dy });
    this.#fitted = undefined;
  }

  #wire(): void {
    const viewport = this.#viewport;
    viewport.addEventListener("wheel", (event) => {
      event.preventDefault();
      const box = viewport.getBoundingClientRect();
      const delta = event.deltaMode === 1 ? event.deltaY * 16 : event.deltaY;
      if (event.shiftKey && !event.ctrlKey) return this.panBy(-delta, 0);
      this.zoomBy(Math.exp(-delta * 0.002), {
        x: event.clientX - box.left,
        y: event.clientY - box.top,
      });
    }, { passive: false });
    viewport.addEventListener("pointerdown", (event) => {
      if (event.button !== 0) return;
      this.#pointers.set(event.pointerId, { x: event.clientX, y: event.clientY });
      this.#dragged = false;
      viewport.setPointerCapture(event.pointerId);
    });
    viewport.addEventListener("pointermove", (event) => {
      const last = this.#pointers.get(event.pointerId);
      if (!last) return;
      const now = { x: event.clientX, y: event.clientY };
      if (this.#pointers.size >= 2) {
        const [a, b] = [...this.#pointers.entries()];
        const other = a![0] === event.pointerId ? b![1] : a![1];
        const before = Math.hypot(last.x - other.x, last.y - other.y);
        const after = Math.hypot(now.x - other.x, now.y - other.y);
        const box = viewport.getBoundingClientRect();
        if (before > 0) {
          this.zoomBy(after / before, {
            x: (now.x + other.x) / 2 - box.left,
            y: (now.y + other.y) / 2 - box.top,
          });
        }
      } else {
        const dx = now.x - last.x;
        const dy = now.y - last.y;
        if (this.#dragged || Math.abs(dx) + Math.abs(dy) > 3) {
          this.#dragged = true;
          viewport.classList.add("panning");
          this.#hideTooltip();
          this.panBy(dx, dy);
        } else return; // below the threshold: keep the start point
      }
      this.#pointers.set(event.pointerId, now);
    });
    const release = (event: PointerEvent) => {
      this.#pointers.delete(event.pointerId);
      if (this.#pointers.size === 0) viewport.classList.remove("panning");
    };
    viewport.addEventListener("pointerup", release);
    viewport.addEventListener("pointercancel", release);
    viewport.addEventListener("keydown", (event) => {
      if (event.target !== viewport) return;
      const pans: Record<string, [number, number]> = {
        ArrowLeft: [PAN_STEP, 0],
        ArrowRight: [-PAN_STEP, 0],
        ArrowUp: [0, PAN_STEP],
        ArrowDown: [0, -PAN_STEP],
      };
      const pan = pans[event.key];
      if (pan) this.panBy(...pan);
      else if (event.key === "+" || event.key === "=") this.zoomBy(ZOOM_STEP);
      else if (event.key === "-" || event.key === "_") this.zoomBy(1 / ZOOM_STEP);
      else if (event.key === "0") this.fit();
      else return;
      event.preventDefault();
    });
  }

  #apply(zoom: Zoom): void {
    const layout = this.#layout;
    if (!layout) return;
    const { width, height } = this.#viewportSize();
    // Keep at least 40 px of the drawing in view.
    const keep = 40;
    const w = zoom.scale * layout.width;
    const h = zoom.scale * layout.height;
    const x = Math.min(width - keep, Math.max(keep - w, zoom.x));
    const y = Math.min(height - keep, Math.max(keep - h, zoom.y));
    this.#zoom = { scale: zoom.scale, x, y };
    this.#layer.setAttribute(
      "transform",
      `translate(${x.toFixed(2)} ${y.toFixed(2)}) scale(${zoom.scale.toFixed(4)})`,
    );
    const hidden = zoom.scale < LABEL_MIN_SCALE;
    this.#svg.classList.toggle("labels-hidden", hidden);
    const grow = zoom.scale < LABEL_GROW_BELOW
      ? Math.min(MAX_GROW, LABEL_GROW_BELOW / zoom.scale)
      : 1;
    this.#layer.style.fontSize = `${(12 * grow).toFixed(2)}px`;
    this.#svg.dataset.scale = zoom.scale.toFixed(4);
    this.#zoomText.textContent = `${Math.round(zoom.scale * 100)}%` +
      (hidden ? ": zoom in to read the labels" : "");
    this.#hideTooltip();
  }

  /** A height for the viewport: the net at the width's fit, within 220 px and 75% of the window. */
  #fitHeight(): number {
    const layout = this.#layout;
    if (!layout) return MIN_HEIGHT;
    const scale = this.#widthScale(layout);
    return Math.round(
      Math.min(this.#mostHeight(), Math.max(MIN_HEIGHT, scale * layout.height + 8)),
    );
  }

  /** The tallest the viewport gets: three quarters of the window. */
  #mostHeight(): number {
    return Math.max(MIN_HEIGHT + 40, Math.round(globalThis.innerHeight * 0.75));
  }

  #minScale(): number {
    const layout = this.#layout;
    if (!layout) return 0.1;
    const { width, height } = this.#viewportSize();
    const fit = Math.min(width / Math.max(1, layout.width), height / Math.max(1, layout.height));
    return Math.min(0.5, fit / 2);
  }

  #viewportSize(): { width: number; height: number } {
    return {
      width: this.#viewport.clientWidth || 600,
      height: this.#viewport.clientHeight || MIN_HEIGHT,
    };
  }

  #resized(): void {
    if (!this.#layout) return;
    // Across the phone's width the net is laid out again, the way that suits the new width.
    if (this.#draw && (this.#viewportSize().width < NARROW) !== this.#narrow) {
      const colour = this.#lastColour;
      this.#start();
      if (colour) this.colour(...colour);
      return;
    }
    if (this.#fitted === "all") {
      this.fit();
    } else if (this.#fitted === "width") {
      const height = `${this.#fitHeight()}px`;
      if (this.#viewport.style.height !== height) this.#viewport.style.height = height;
      this.#fitWidth();
    } else {
      this.#apply(this.#zoom);
    }
  }

  /** Pans so that `element` (a node, with its label) is in view: keyboard focus follows it. */
  #reveal(element: SVGGElement): void {
    const box = element.getBoundingClientRect();
    const view = this.#viewport.getBoundingClientRect();
    const pad = 12;
    const shift = (low: number, high: number, from: number, to: number) =>
      low < from + pad
        ? from + pad - low
        : high > to - pad
        ? Math.max(to - pad - high, from + pad - low)
        : 0;
    const dx = shift(box.left, box.right, view.left, view.right);
    const dy = shift(box.top, box.bottom, view.top, view.bottom);
    if (dx !== 0 || dy !== 0) this.panBy(dx, dy);
  }

  #setMeasure(measure: Measure): void {
    this.#measure = measure;
    this.#svg.dataset.measure = measure;
    const legend = this.#legend;
    if (!legend) return;
    legend.dataset.measure = measure;
    const name = legend.querySelector(".measure");
    if (name) name.textContent = measure;
  }

  #showTooltip(id: string, kind: LaidNode["kind"]): void {
    const entry = this.#nodes.get(key(kind, id));
    if (!entry || this.#dragged && this.#pointers.size > 0) return;
    const { node, element } = entry;
    const value = this.#values.get(key(kind, id));
    const note = kind === "transition" ? this.#notes.get(id) : undefined;
    const measure = this.#measure;
    this.#tooltip.replaceChildren(
      html("strong", {}, `${node.kind} ${node.id}`),
      html("span", {}, `label: ${node.label}`),
      html(
        "span",
        {},
        value === undefined
          ? measure === "activation" ? "activation: not run yet" : `${measure}: none`
          : `${measure}: ${formatNumber(value)}`,
      ),
      ...(note ? [html("span", {}, note)] : []),
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

function describe(node: LaidNode, value: number | undefined, measure: Measure): string {
  const label = node.kind === "transition" && node.label !== node.id ? ` (${node.label})` : "";
  const shown = value === undefined ? "" : `, ${measure} ${formatNumber(value)}`;
  return `${node.kind} ${node.id}${label}${shown}`;
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
      "aria-label": describe(node, undefined, "activation"),
      "data-id": node.id,
      "data-kind": node.kind,
    },
    shape,
    svg(
      "text",
      {
        class: "label",
        y: node.height / 2 + 3,
        "text-anchor": "middle",
        "dominant-baseline": "hanging",
      },
      node.shortLabel,
    ),
  );
}
