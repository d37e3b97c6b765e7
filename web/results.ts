/**
 * Renders the four operations' results as tables (and charts): every number cell carries
 * `data-field`, `data-key` and `data-value` (the full-precision number, `null` when not
 * finite), and the JSON, written as the server writes it, is shown below.
 *
 * @example
 * ```ts
 * import { forwardResult } from "./results.ts";
 * const element = forwardResult({
 *   transition_activations: new Map([["t_a", 0.9]]),
 *   place_activations: new Map([["p_in", 1]]),
 * }, (t) => t);
 * element.querySelector("td[data-key='t_a']")?.getAttribute("data-value"); // "0.9"
 * ```
 *
 * @module
 */

import {
  type AnomalyResponse,
  type CounterfactualResponse,
  DEFAULT_TOLERANCE,
  type ForwardResponse,
  type SensitivityResponse,
  stringifyJson,
} from "../core/ops/mod.ts";
import { barChart, type ChartRoom, curveChart, type CurvePoint, DEFAULT_ROOM } from "./charts.ts";
import { formatNumber, html } from "./dom.ts";
import { activationColour } from "./net_view.ts";

/** A transition's label. */
export type LabelOf = (transition: string) => string;

/** The forward result: a table of transition activations and one of place activations. */
export function forwardResult(answer: ForwardResponse, label: LabelOf): HTMLElement {
  return result(
    "forward",
    answer,
    idTable("Transition activations", "transition_activations", answer.transition_activations, {
      label,
      swatch: true,
    }),
    idTable("Place activations", "place_activations", answer.place_activations, { swatch: true }),
  );
}

/** The anomaly result: the trace score and a table of residuals. */
export function anomalyResult(answer: AnomalyResponse, label: LabelOf): HTMLElement {
  return result(
    "anomaly",
    answer,
    fieldTable("Trace score", [["trace_score", answer.trace_score]]),
    idTable(
      "Per-transition residuals",
      "per_transition_residuals",
      answer.per_transition_residuals,
      {
        label,
      },
    ),
  );
}

/**
 * The counterfactual result: its fields as a table, and the target's activation curve over the
 * search range with the boundary marked; a boundary whose activation is not within `tolerance`
 * of 0.5 is a jump over it (straight-through firing) and is drawn as a step.
 */
export function counterfactualResult(
  answer: CounterfactualResponse,
  curve: readonly CurvePoint[],
  xLabel: string,
  targetName: string,
  tolerance: number = DEFAULT_TOLERANCE,
  room: ChartRoom = DEFAULT_ROOM,
): HTMLElement {
  const rows: [string, unknown][] = Object.entries(answer);
  const parts: HTMLElement[] = [];
  if (!answer.found) {
    parts.push(
      html("p", { class: "note" }, "No crossing of 0.5 within search_range: found is false."),
    );
  }
  parts.push(fieldTable("Counterfactual", rows));
  if (curve.length > 1) {
    parts.push(curveChart({
      title: `Activation of ${targetName} over the search range`,
      xLabel,
      points: curve,
      ...(answer.found
        ? {
          boundary: {
            x: answer.counterfactual_input,
            y: answer.counterfactual_activation,
            jump: !(Math.abs(answer.counterfactual_activation - 0.5) < tolerance),
          },
          original: { x: answer.original_input, y: answer.original_activation },
        }
        : {}),
    }, room));
  }
  return result("counterfactual", answer, ...parts);
}

/**
 * The sensitivity result: the base activation, a table of both gradients per place, and a bar
 * chart of each (side by side when `room` is wide enough), drawn for `room`.
 */
export function sensitivityResult(
  answer: SensitivityResponse,
  room: ChartRoom = DEFAULT_ROOM,
): HTMLElement {
  // The .charts grid puts two charts side by side from 530 px (two 260 px columns, a 10 px gap).
  const each = room.width >= 530 ? (room.width - 10) / 2 : room.width;
  const places = [
    ...new Set([...answer.marking_gradients.keys(), ...answer.value_gradients.keys()]),
  ];
  const body = places.map((place) =>
    html(
      "tr",
      {},
      html("th", { scope: "row" }, html("code", {}, place)),
      maybeCell("marking_gradients", place, answer.marking_gradients.get(place)),
      maybeCell("value_gradients", place, answer.value_gradients.get(place)),
    )
  );
  const table = captionedTable(
    "Gradients of the target's activation",
    ["place", "marking gradient", "value gradient"],
    body,
  );
  return result(
    "sensitivity",
    answer,
    fieldTable("Target", [
      ["target_transition", answer.target_transition],
      ["target_label", answer.target_label],
      ["base_activation", answer.base_activation],
    ]),
    table,
    html(
      "div",
      { class: "charts" },
      barChart("marking_gradients", [...answer.marking_gradients], each),
      barChart("value_gradients", [...answer.value_gradients], each),
    ),
  );
}

/**
 * JSON text of a result as the server writes it (`Map`s as objects with sorted keys, non-finite
 * numbers as `null`), indented by two spaces.
 *
 * @example
 * ```ts
 * import { jsonText } from "./results.ts";
 * jsonText({ a: new Map([["__proto__", NaN]]) }); // '{\n  "a": {\n    "__proto__": null\n  }\n}'
 * ```
 */
export function jsonText(value: unknown): string {
  return stringifyJson(value, "  ");
}

// ---------------------------------------------------------------------------------------------

function result(kind: string, answer: unknown, ...parts: HTMLElement[]): HTMLElement {
  return html(
    "div",
    { class: "result", "data-kind": kind },
    ...parts,
    html(
      "details",
      { class: "json" },
      html("summary", {}, "Response JSON"),
      html("pre", {}, html("code", {}, jsonText(answer))),
    ),
  );
}

function idTable(
  caption: string,
  field: string,
  values: ReadonlyMap<string, number>,
  options: { label?: LabelOf; swatch?: boolean },
): HTMLElement {
  const { label, swatch } = options;
  const head = [
    html("th", { scope: "col" }, "id"),
    ...(label ? [html("th", { scope: "col" }, "label")] : []),
    html("th", { scope: "col" }, field.replace(/_/g, " ").replace(/^per transition /, "")),
  ];
  const rows = [...values].map(([id, value]) => {
    const cell = numberCell(field, id, value);
    if (swatch) {
      cell.prepend(
        html("span", {
          class: "swatch",
          style: `background: ${activationColour(value)}`,
          "aria-hidden": "true",
        }),
      );
    }
    return html(
      "tr",
      {},
      html("th", { scope: "row" }, html("code", {}, id)),
      ...(label ? [html("td", {}, label(id))] : []),
      cell,
    );
  });
  return wrap(html(
    "table",
    { "data-field": field },
    html("caption", {}, caption),
    html("thead", {}, html("tr", {}, ...head)),
    html("tbody", {}, ...rows),
  ));
}

function fieldTable(caption: string, rows: readonly [string, unknown][]): HTMLElement {
  return wrap(html(
    "table",
    { class: "fields" },
    html("caption", {}, caption),
    html(
      "tbody",
      {},
      ...rows.map(([key, value]) =>
        html(
          "tr",
          {},
          html("th", { scope: "row" }, html("code", {}, key)),
          typeof value === "number" || value === null
            ? numberCell(key, "", value ?? NaN)
            : html("td", { "data-field": key, "data-value": JSON.stringify(value) }, String(value)),
        )
      ),
    ),
  ));
}

function numberCell(field: string, key: string, value: number): HTMLTableCellElement {
  return html(
    "td",
    {
      class: "num",
      "data-field": field,
      "data-key": key || undefined,
      "data-value": Number.isFinite(value) ? String(value) : "null",
      title: Number.isFinite(value) ? String(value) : "not finite",
    },
    formatNumber(value),
  );
}

function maybeCell(field: string, key: string, value: number | undefined): HTMLTableCellElement {
  return value === undefined
    ? html("td", { class: "num absent" }, "—")
    : numberCell(field, key, value);
}

/** A table with a caption and a header row, in its scroll box (named after the caption). */
export function captionedTable(
  caption: string,
  columns: readonly string[],
  rows: readonly HTMLElement[],
  className?: string,
): HTMLElement {
  return wrap(html(
    "table",
    { class: className },
    html("caption", {}, caption),
    html("thead", {}, html("tr", {}, ...columns.map((c) => html("th", { scope: "col" }, c)))),
    html("tbody", {}, ...rows),
  ));
}

/** Tables of more rows than this scroll inside a box of bounded height. */
const TALL_ROWS = 12;

/**
 * A scrolling box for wide tables (at 360 px) and long ones (a net's hundreds of places),
 * focusable so the keyboard can scroll it.
 */
function wrap(table: HTMLTableElement): HTMLElement {
  const caption = table.querySelector("caption")?.textContent ?? "table";
  const tall = table.tBodies[0] !== undefined && table.tBodies[0].rows.length > TALL_ROWS;
  return html(
    "div",
    {
      class: tall ? "table-wrap tall" : "table-wrap",
      tabindex: 0,
      role: "region",
      "aria-label": caption,
    },
    table,
  );
}
