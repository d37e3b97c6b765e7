/**
 * The two SVG charts of the playground: bars (sensitivity gradients) and a curve (the
 * counterfactual target's activation over the search range, the boundary marked, a jump over
 * 0.5 drawn as a step). Both are drawn at the width they get, so their text keeps the page's
 * size, and neither grows taller than the window.
 *
 * @example
 * ```ts
 * import { barChart, curveChart } from "./charts.ts";
 * document.body.append(
 *   barChart("Marking gradients", [["p_in", 0.25], ["p_other", -0.1]]),
 *   curveChart({
 *     title: "t_a over p_in",
 *     xLabel: "p_in (marking)",
 *     points: [{ x: 0, y: 0.1 }, { x: 1, y: 0.9 }],
 *     boundary: { x: 0.5, y: 0.5 },
 *   }),
 * );
 * ```
 *
 * @module
 */

import { formatNumber, html, svg } from "./dom.ts";

/** A point of a curve. */
export interface CurvePoint {
  readonly x: number;
  readonly y: number;
}

/**
 * The room a chart has: the width it is drawn at (in CSS pixels, so that its text keeps the
 * page's size) and the window's height, which bounds a chart's own height.
 */
export interface ChartRoom {
  readonly width: number;
  readonly viewportHeight: number;
}

/** The room of a chart drawn before it is in the page: a phone-sized one. */
export const DEFAULT_ROOM: ChartRoom = { width: 360, viewportHeight: 800 };

const BAR_ROW = 22;
const BAR_VALUE = 90;
/** The most bars a chart draws: the largest ones by size (the table beside lists them all). */
export const MAX_BARS = 20;
/** A chart's figure adds 6 px of padding and a 1 px border on each side. */
const FIGURE_FRAME = 14;

/**
 * A horizontal bar per entry, in the given order; the zero line sits where negative and
 * positive values both fit. Each bar carries `data-key` and `data-value`. Of more than
 * {@link MAX_BARS} entries, only the largest by size that are not 0 are drawn, largest first,
 * and the caption says so.
 */
export function barChart(
  title: string,
  all: readonly (readonly [string, number])[],
  width: number = DEFAULT_ROOM.width,
): HTMLElement {
  const entries = largest(all, MAX_BARS);
  const barWidth = Math.max(240, Math.round(width - FIGURE_FRAME));
  const labelWidth = Math.round(Math.min(220, Math.max(96, barWidth * 0.3)));
  const labelChars = Math.floor((labelWidth - 8) / 7);
  const height = Math.max(1, entries.length) * BAR_ROW + 8;
  const finite = entries.map(([, v]) => v).filter(Number.isFinite);
  const min = Math.min(0, ...finite);
  const max = Math.max(0, ...finite);
  const span = max - min || 1;
  const plot = barWidth - labelWidth - BAR_VALUE;
  const x = (v: number) => labelWidth + ((v - min) / span) * plot;
  const zero = x(0);
  const rows = entries.map(([key, value], i) => {
    const y = 4 + i * BAR_ROW;
    const ok = Number.isFinite(value);
    const left = ok ? Math.min(zero, x(value)) : zero;
    const width = ok ? Math.abs(x(value) - zero) : 0;
    return svg(
      "g",
      { class: "bar-row" },
      svg(
        "text",
        { x: labelWidth - 6, y: y + 15, "text-anchor": "end", class: "key" },
        short(key, labelChars),
      ),
      svg(
        "rect",
        {
          class: `bar ${value < 0 ? "negative" : "positive"}`,
          x: left.toFixed(2),
          y: y + 3,
          width: Math.max(width, ok && value !== 0 ? 1 : 0).toFixed(2),
          height: BAR_ROW - 6,
          "data-key": key,
          "data-value": ok ? String(value) : "null",
        },
        svg("title", {}, `${key}: ${formatNumber(value)}`),
      ),
      svg(
        "text",
        { x: barWidth - 2, y: y + 15, "text-anchor": "end", class: "value" },
        formatNumber(value),
      ),
    );
  });
  const some = entries.length === all.length
    ? ""
    : entries.length === 0
    ? ` (all ${all.length} are 0)`
    : entries.length < MAX_BARS
    ? ` (the ${entries.length} of ${all.length} that are not 0, largest first; the table lists all)`
    : ` (the ${entries.length} largest of ${all.length}, largest first; the table lists all)`;
  if (entries.length === 0) {
    return html("figure", { class: "chart" }, html("figcaption", {}, title + some));
  }
  const chart = svg(
    "svg",
    {
      class: "chart chart-bars",
      viewBox: `0 0 ${barWidth} ${height}`,
      role: "img",
      "aria-label": `${title}${some}: ` +
        entries.map(([k, v]) => `${k} ${formatNumber(v)}`).join(", "),
    },
    svg("line", { class: "zero", x1: zero, x2: zero, y1: 0, y2: height }),
    ...rows,
  );
  return html("figure", { class: "chart" }, html("figcaption", {}, title + some), chart);
}

/**
 * All the entries when there are at most `count`; else the `count` largest by size that are
 * not 0, largest first (a non-finite value counts as largest).
 */
function largest(
  entries: readonly (readonly [string, number])[],
  count: number,
): readonly (readonly [string, number])[] {
  if (entries.length <= count) return entries;
  const size = (v: number) => (Number.isFinite(v) ? Math.abs(v) : Infinity);
  return entries.filter(([, v]) => v !== 0)
    .map((entry, i) => ({ entry, i }))
    .sort((a, b) => size(b.entry[1]) - size(a.entry[1]) || a.i - b.i)
    .slice(0, count)
    .map(({ entry }) => entry);
}

/**
 * Ticks under an x axis at `baseline`, labelled with their values: the first anchored at its
 * start, the last at its end, any between (or a lone one) at their middle.
 */
export function xAxisTicks(
  values: readonly number[],
  sx: (x: number) => number,
  baseline: number,
): SVGGElement[] {
  const anchor = (i: number) =>
    values.length === 1 ? "middle" : i === 0 ? "start" : i === values.length - 1 ? "end" : "middle";
  return values.map((v, i) =>
    svg(
      "g",
      { class: "tick" },
      svg("line", { x1: sx(v), x2: sx(v), y1: baseline, y2: baseline + 4 }),
      svg("text", { x: sx(v), y: baseline + 16, "text-anchor": anchor(i) }, formatNumber(v)),
    )
  );
}

/** What {@link curveChart} draws. */
export interface CurveChartOptions {
  readonly title: string;
  /** Names the x axis, e.g. `p_submitted (value)`. */
  readonly xLabel: string;
  /** The curve, sorted by x. */
  readonly points: readonly CurvePoint[];
  /**
   * The boundary found, marked with a line and a dot. `jump`: the activation leaps over 0.5
   * there (straight-through firing), so the step from the curve's level just before it up or
   * down to the boundary's activation is drawn and labelled.
   */
  readonly boundary?: CurvePoint & { readonly jump?: boolean };
  /** The original input, marked with a diamond when it lies in the x range. */
  readonly original?: CurvePoint;
}

const CURVE = { left: 44, right: 14, top: 12, bottom: 24 } as const;

/**
 * The curve chart's size in `room`: its width, and a height of half of it, at least 180 px
 * and at most 320 px or 42% of the window, so that the whole chart shows on any screen.
 *
 * @example
 * ```ts
 * import { curveSize } from "./charts.ts";
 * curveSize({ width: 1254, viewportHeight: 800 }); // { width: 1240, height: 320 }
 * ```
 */
export function curveSize(room: ChartRoom): { width: number; height: number } {
  const width = Math.max(240, Math.round(room.width - FIGURE_FRAME));
  const most = Math.max(180, Math.min(320, Math.round(room.viewportHeight * 0.42)));
  return { width, height: Math.max(180, Math.min(most, Math.round(width / 2))) };
}

/** A line chart of activation (0 to 1) over the x range of `points`, drawn for `room`. */
export function curveChart(
  options: CurveChartOptions,
  room: ChartRoom = DEFAULT_ROOM,
): HTMLElement {
  const { left, right, top, bottom } = CURVE;
  const { width, height } = curveSize(room);
  const xs = options.points.map((p) => p.x);
  const lo = Math.min(...xs);
  const hi = Math.max(...xs);
  const span = hi - lo || 1;
  const plotW = width - left - right;
  const plotH = height - top - bottom;
  const sx = (x: number) => left + ((x - lo) / span) * plotW;
  const sy = (y: number) => top + (1 - Math.min(1, Math.max(0, y))) * plotH;
  const inRange = (p: CurvePoint | undefined): p is CurvePoint =>
    p !== undefined && Number.isFinite(p.x) && p.x >= lo && p.x <= hi;

  const d = options.points
    .filter((p) => Number.isFinite(p.y))
    .map((p, i) => `${i === 0 ? "M" : "L"}${sx(p.x).toFixed(2)} ${sy(p.y).toFixed(2)}`)
    .join(" ");
  const yTicks = [0, 0.5, 1].map((v) =>
    svg(
      "g",
      { class: "tick" },
      svg("line", { x1: left - 4, x2: left, y1: sy(v), y2: sy(v) }),
      svg("text", { x: left - 7, y: sy(v) + 4, "text-anchor": "end" }, String(v)),
    )
  );
  const xTicks = xAxisTicks([lo, (lo + hi) / 2, hi], sx, top + plotH);
  const marks: SVGElement[] = [];
  if (inRange(options.original)) {
    const { x, y } = options.original;
    const cx = sx(x);
    const cy = sy(y);
    marks.push(
      svg(
        "path",
        {
          class: "original",
          d: `M${cx} ${cy - 6} L${cx + 6} ${cy} L${cx} ${cy + 6} L${cx - 6} ${cy} Z`,
          "data-x": String(x),
          "data-y": String(y),
        },
        svg("title", {}, `original input ${formatNumber(x)}: activation ${formatNumber(y)}`),
      ),
    );
  }
  const step = inRange(options.boundary) && options.boundary.jump
    ? stepAt(options.points, options.boundary)
    : undefined;
  if (inRange(options.boundary)) {
    const { x, y } = options.boundary;
    marks.push(
      svg("line", { class: "boundary-line", x1: sx(x), x2: sx(x), y1: top, y2: top + plotH }),
    );
    if (step) {
      marks.push(svg(
        "line",
        {
          class: "step",
          x1: sx(x),
          x2: sx(x),
          y1: sy(step.from),
          y2: sy(y),
          "data-x": String(x),
          "data-from": String(step.from),
          "data-to": String(y),
        },
        svg("title", {}, `decision flips at ${formatNumber(x)}: ${stepText(step.from, y)}`),
      ));
    }
    marks.push(
      svg(
        "circle",
        {
          class: step ? "boundary jump" : "boundary",
          cx: sx(x),
          cy: sy(y),
          r: 5,
          "data-x": String(x),
          "data-y": String(y),
        },
        svg("title", {}, `boundary at ${formatNumber(x)}: activation ${formatNumber(y)}`),
      ),
    );
  }
  const summary = !options.boundary
    ? "no boundary in the range"
    : step
    ? `decision flips at ${formatNumber(options.boundary.x)}, ${
      stepText(step.from, options.boundary.y)
    }`
    : `boundary at ${formatNumber(options.boundary.x)}`;
  const chart = svg(
    "svg",
    {
      class: "chart chart-curve",
      viewBox: `0 0 ${width} ${height}`,
      role: "img",
      "aria-label": `${options.title} from ${formatNumber(lo)} to ${formatNumber(hi)}; ${summary}`,
    },
    svg("rect", { class: "plot", x: left, y: top, width: plotW, height: plotH }),
    svg("line", { class: "half", x1: left, x2: left + plotW, y1: sy(0.5), y2: sy(0.5) }),
    ...yTicks,
    ...xTicks,
    svg("path", { class: "curve", d }),
    ...marks,
  );
  const legend = html(
    "p",
    { class: "legend" },
    html("span", { class: "key-curve" }, "activation"),
    html("span", { class: "key-half" }, "0.5"),
    options.boundary
      ? html("span", { class: "key-boundary" }, step ? "boundary (a jump over 0.5)" : "boundary")
      : "",
    inRange(options.original) ? html("span", { class: "key-original" }, "original input") : "",
  );
  return html(
    "figure",
    { class: "chart" },
    html("figcaption", {}, options.title),
    chart,
    // In the page's flow, not the drawing: a long place id wraps instead of being clipped.
    html("p", { class: "axis-label" }, options.xLabel),
    legend,
  );
}

/**
 * The level the curve jumps from at a boundary: of the samples nearest the boundary on each
 * side, the one on the other side of 0.5 from the boundary's activation.
 */
function stepAt(
  points: readonly CurvePoint[],
  boundary: CurvePoint,
): { readonly from: number } | undefined {
  const before = points.filter((p) => p.x < boundary.x && Number.isFinite(p.y)).at(-1);
  const after = points.find((p) => p.x > boundary.x && Number.isFinite(p.y));
  const side = Math.sign(boundary.y - 0.5);
  const across = [before, after].find((p) => p && Math.sign(p.y - 0.5) === -side);
  return across && side !== 0 ? { from: across.y } : undefined;
}

function stepText(from: number, to: number): string {
  return `activation ${formatNumber(from)} → ${formatNumber(to)}`;
}

function short(key: string, chars: number): string {
  return key.length > chars ? `${key.slice(0, chars - 1)}…` : key;
}
