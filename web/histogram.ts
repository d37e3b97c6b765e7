/**
 * The histogram of a scored log's trace scores, as an SVG chart that scales to its container:
 * one bar per bin (its range and count in a tooltip), the lowest, middle and highest score on
 * the x axis, the tallest bin's count on the y axis, and, when a trace is selected, a line at
 * its score. Error entries and non-finite scores are counted under the chart, not drawn.
 *
 * @example
 * ```ts
 * import { histogramChart } from "./histogram.ts";
 * const chart = histogramChart(
 *   { min: 0, max: 2, counts: [5, 1], nonFinite: 0, errors: 1 },
 *   1.5,
 * );
 * chart.querySelectorAll("rect.bin").length; // 2
 * ```
 *
 * @module
 */

import { xAxisTicks } from "./charts.ts";
import { formatNumber, html, svg } from "./dom.ts";
import type { ScoreHistogram } from "./result_store.ts";

const SIZE = { height: 160, left: 56, right: 14, top: 10, bottom: 24 } as const;

/**
 * The chart of `histogram`, with a line at `selected` (a trace's score) when given, drawn
 * `width` units wide (the width it will be shown at keeps its text at its CSS size).
 *
 * @example
 * ```ts
 * import { histogramChart } from "./histogram.ts";
 * const empty = histogramChart({ min: 0, max: 0, counts: [0, 0], nonFinite: 0, errors: 3 });
 * empty.textContent?.includes("3 error entries"); // true
 * ```
 */
export function histogramChart(
  histogram: ScoreHistogram,
  selected?: number,
  width = 640,
): HTMLElement {
  const { height, left, right, top, bottom } = SIZE;
  const { min, max, counts } = histogram;
  const plotW = width - left - right;
  const plotH = height - top - bottom;
  const tallest = Math.max(1, ...counts);
  const binWidth = plotW / counts.length;
  const span = max - min;
  const total = counts.reduce((a, b) => a + b, 0);
  const bars = counts.map((count, b) => {
    const h = (count / tallest) * plotH;
    const from = min + (span * b) / counts.length;
    const to = min + (span * (b + 1)) / counts.length;
    return svg(
      "rect",
      {
        class: "bin",
        x: (left + b * binWidth + 0.5).toFixed(2),
        y: (top + plotH - h).toFixed(2),
        width: Math.max(0, binWidth - 1).toFixed(2),
        height: Math.max(count > 0 ? 1 : 0, h).toFixed(2),
        "data-count": count,
      },
      svg("title", {}, `${count} traces scored ${formatNumber(from)} to ${formatNumber(to)}`),
    );
  });
  const sx = (x: number) => left + (span > 0 ? ((x - min) / span) * plotW : plotW / 2);
  const ticks = xAxisTicks(span > 0 ? [min, (min + max) / 2, max] : [min], sx, top + plotH);
  const marks: SVGElement[] = [];
  if (selected !== undefined && Number.isFinite(selected)) {
    marks.push(svg(
      "line",
      {
        class: "selected-score",
        x1: sx(selected),
        x2: sx(selected),
        y1: top,
        y2: top + plotH,
        "data-value": String(selected),
      },
      svg("title", {}, `the selected trace: ${formatNumber(selected)}`),
    ));
  }
  const chart = svg(
    "svg",
    {
      class: "chart histogram",
      viewBox: `0 0 ${width} ${height}`,
      role: "img",
      "aria-label": `Histogram of ${total} trace scores from ${formatNumber(min)} to ` +
        `${formatNumber(max)}; the tallest bin holds ${Math.max(0, ...counts)} traces`,
    },
    svg("rect", { class: "plot", x: left, y: top, width: plotW, height: plotH }),
    svg(
      "g",
      { class: "tick" },
      svg("text", { x: left - 6, y: top + 10, "text-anchor": "end" }, String(tallest)),
      svg("text", { x: left - 6, y: top + plotH, "text-anchor": "end" }, "0"),
    ),
    ...bars,
    ...ticks,
    ...marks,
  );
  const notes = [
    histogram.errors > 0 ? `${count(histogram.errors, "error entry", "error entries")}` : "",
    histogram.nonFinite > 0
      ? `${count(histogram.nonFinite, "non-finite score", "non-finite scores")}`
      : "",
  ].filter(Boolean);
  return html(
    "figure",
    { class: "chart histogram-figure" },
    html("figcaption", {}, `Trace scores (${count(total, "trace", "traces")} scored)`),
    chart,
    // In the page's flow, not the drawing: it wraps on a phone instead of being clipped.
    html("p", { class: "axis-label" }, "trace score (sum of residuals): higher is more anomalous"),
    ...(notes.length > 0 ? [html("p", { class: "hint" }, `Not drawn: ${notes.join(", ")}.`)] : []),
  );
}

function count(n: number, one: string, many: string): string {
  return `${n.toLocaleString("en")} ${n === 1 ? one : many}`;
}
