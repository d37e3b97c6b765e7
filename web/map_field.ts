/**
 * A map of numbers keyed by place id, entered as one box per place or as the whole map in
 * JSON; both give the same body. A large net lists only the places that matter (its inputs,
 * those the sidecar names, those holding a value) and a search box finds any other, so a net
 * of thousands of places stays as quick as a small one.
 * @example
 * ```ts
 * import { mapFieldView } from "./map_field.ts";
 * const view = mapFieldView("forward-", {
 *   kind: "idMap",
 *   name: "input_marking",
 *   description: "tokens per place",
 *   required: false,
 *   nullable: false,
 * }, { places: ["p_a", "p_b"], transitions: [], label: (t) => t });
 * view.fill({ p_a: 1 });
 * view.read([]); // { p_a: 1 }
 * ```
 *
 * @module
 */

import type { ValidationIssue } from "../core/schemas/mod.ts";
import { html } from "./dom.ts";
import {
  ABSENT,
  fieldset,
  type FieldView,
  isObject,
  modeChoice,
  NUMBER,
  numberInput,
  ownRecord,
  ownValue,
  parseJson,
  readNumber,
} from "./form_controls.ts";
import type { IdMapField } from "./form_fields.ts";
import type { FormContext } from "./form_view.ts";

/** Nets with at most this many places list every place. */
export const SHOW_ALL_PLACES = 24;
/** The most rows listed at once; a search matching more lists the first ones. */
export const MAX_ROWS = 200;

/** The controls of a map field for the net of `context`. */
export function mapFieldView(prefix: string, field: IdMapField, context: FormContext): FieldView {
  const base = `${prefix}${field.name}`;
  const places = context.places;
  const index = new Map(places.map((place, i) => [place, i]));
  const spec = context.specs?.get(field.name);
  const small = places.length <= SHOW_ALL_PLACES;
  const listed = new Set([...spec?.keys() ?? [], ...context.inputPlaces ?? []]);
  /** Places shown whatever the search: they held a value or an issue. */
  const pinned = new Set<string>();
  const inputs = new Map<string, HTMLInputElement>();
  const rowsOf = new Map<string, HTMLElement>();

  const attributeOf = (place: string) => {
    const entry = spec?.get(place);
    return entry && "attribute" in entry ? entry.attribute : undefined;
  };
  const inputFor = (place: string): HTMLInputElement => {
    let input = inputs.get(place);
    if (input) return input;
    const i = index.get(place)!;
    const attribute = attributeOf(place);
    const placeholder = attribute !== undefined
      ? `attribute ${attribute}`
      : field.required
      ? "default"
      : "not supplied";
    input = numberInput(`${base}-${i}`, `${base}-help`, placeholder);
    if (attribute !== undefined) {
      input.setAttribute("aria-describedby", `${base}-help ${base}-${i}-source`);
    }
    inputs.set(place, input);
    return input;
  };
  // The label is the place id alone; where the sidecar reads the place from a trace
  // attribute, a note under it says which (and describes the box).
  const rowFor = (place: string): HTMLElement => {
    let row = rowsOf.get(place);
    if (row) return row;
    const input = inputFor(place);
    const attribute = attributeOf(place);
    row = html(
      "div",
      { class: "row", "data-place": place },
      html(
        "div",
        { class: "place-cell" },
        html("label", { for: input.id }, html("code", {}, place)),
        ...(attribute === undefined ? [] : [
          html(
            "span",
            { class: "source", id: `${input.id}-source` },
            "from attribute ",
            html("code", {}, attribute),
          ),
        ]),
      ),
      input,
    );
    rowsOf.set(place, row);
    return row;
  };
  const hasValue = (place: string) => (inputs.get(place)?.value.trim() ?? "") !== "";

  const search = html("input", {
    id: `${base}-search`,
    type: "search",
    autocomplete: "off",
    spellcheck: "false",
    placeholder: "a place id, or part of one",
    "aria-describedby": `${base}-count`,
    "aria-controls": `${base}-rows`,
  });
  const count = html("p", { class: "map-count help", id: `${base}-count`, "aria-live": "polite" });
  const rows = html("div", { class: "rows map-rows", id: `${base}-rows` });
  const draw = () => {
    const term = search.value.trim().toLowerCase();
    let shown: string[];
    if (term !== "") shown = places.filter((place) => place.toLowerCase().includes(term));
    else if (small) shown = [...places];
    else shown = places.filter((p) => listed.has(p) || pinned.has(p) || hasValue(p));
    const matches = shown.length;
    if (shown.length > MAX_ROWS) shown = shown.slice(0, MAX_ROWS);
    rows.replaceChildren(...shown.map(rowFor));
    count.textContent = term !== ""
      ? matches === 0
        ? `No place id contains “${search.value.trim()}”.`
        : `${matches} of ${places.length} places match` +
          (matches > MAX_ROWS ? `; the first ${MAX_ROWS} are listed.` : ".")
      : small
      ? ""
      : `${matches} of ${places.length} places listed` +
        (matches > MAX_ROWS ? ` (the first ${MAX_ROWS} here)` : "") +
        ": the net's inputs and those with a value. Search to enter any other.";
    count.hidden = count.textContent === "";
    rows.hidden = shown.length === 0;
  };
  search.addEventListener("input", draw);
  // Enter in the search box searches; it does not run the operation.
  search.addEventListener("keydown", (event) => {
    if (event.key === "Enter") event.preventDefault();
  });

  const area = html("textarea", {
    id: `${base}-json`,
    rows: 6,
    spellcheck: "false",
    "aria-describedby": `${base}-help ${base}-json-note`,
  });
  const note = html("p", {
    class: "field-note",
    id: `${base}-json-note`,
    role: "alert",
    hidden: true,
  });
  const listPanel = html(
    "div",
    { class: "map-list" },
    ...(small ? [] : [
      html(
        "div",
        { class: "map-search" },
        html("label", { for: search.id }, "Find a place"),
        search,
      ),
    ]),
    count,
    rows,
  );
  const jsonPanel = html(
    "div",
    { class: "map-json", hidden: true },
    html("label", { for: area.id }, `${field.name} as JSON: an object of place id → number`),
    area,
    note,
  );

  /** The list's entries: numbers where the box holds one, the text itself where it does not. */
  const listEntries = (): [string, unknown][] =>
    places.flatMap((place) => {
      const text = inputs.get(place)?.value.trim() ?? "";
      if (text === "") return [];
      return [[place, NUMBER.test(text) && Number.isFinite(Number(text)) ? Number(text) : text]];
    });
  const setList = (value: Record<string, unknown>) => {
    for (const input of inputs.values()) input.value = "";
    for (const place of places) {
      const v = ownValue(value, place);
      if (v === undefined || v === null) continue;
      inputFor(place).value = typeof v === "string" ? v : JSON.stringify(v);
      pinned.add(place);
    }
  };
  let mode: "list" | "json" = "list";
  const switchMode = (next: "list" | "json"): void => {
    if (next === mode) return;
    note.hidden = true;
    if (next === "json") {
      area.value = jsonOf(ownRecord(listEntries()));
    } else if (area.value.trim() !== "") {
      const problem = listProblem(area.value, index);
      if (problem !== undefined) {
        note.textContent = `${problem}: fix the JSON, or clear it, to go back to the list.`;
        note.hidden = false;
        modes.check("json");
        return;
      }
      setList(JSON.parse(area.value));
    } else {
      setList({});
    }
    mode = next;
    listPanel.hidden = mode !== "list";
    jsonPanel.hidden = mode !== "json";
    if (mode === "list") draw();
  };
  const modes = modeChoice(
    base,
    `Enter ${field.name} as`,
    [["list", "a list of places"], ["json", "JSON"]],
    switchMode,
  );

  const element = fieldset(
    field,
    base,
    modes.element,
    listPanel,
    jsonPanel,
  );
  draw();
  return {
    element,
    read(issues: ValidationIssue[]) {
      if (mode === "json") {
        if (area.value.trim() === "") return field.required ? {} : ABSENT;
        return parseJson(area.value, ["body", field.name], issues);
      }
      const entries: [string, number][] = [];
      for (const place of places) {
        const input = inputs.get(place);
        if (!input) continue;
        const value = readNumber(input, ["body", field.name, place], issues);
        if (value !== undefined) entries.push([place, value]);
      }
      if (entries.length === 0 && !field.required) return ABSENT;
      return ownRecord(entries);
    },
    control([place]) {
      if (mode === "json") return area;
      if (typeof place !== "string" || !index.has(place)) {
        return search.isConnected ? search : undefined;
      }
      pinned.add(place);
      if (search.value !== "" && !place.toLowerCase().includes(search.value.trim().toLowerCase())) {
        search.value = "";
      }
      draw();
      // Past the rows a list holds at once: the search for its id lists it.
      if (!rowFor(place).isConnected && search.isConnected) {
        search.value = place;
        draw();
      }
      return inputFor(place);
    },
    fill(value) {
      if (!isObject(value)) return;
      for (const place of places) {
        const v = ownValue(value, place);
        if (typeof v !== "number") continue;
        inputFor(place).value = String(v);
        pinned.add(place);
      }
      if (mode === "json") area.value = jsonOf(ownRecord(listEntries()));
      draw();
    },
  };
}

/** A map as JSON, one entry a line (an empty map as `{}`). */
function jsonOf(map: Record<string, unknown>): string {
  return Object.keys(map).length === 0 ? "{}" : JSON.stringify(map, null, 1);
}

/** Why JSON text cannot be shown as the list (not an object, or a key that is no place). */
function listProblem(text: string, places: ReadonlyMap<string, number>): string | undefined {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return `The JSON does not parse (${error instanceof Error ? error.message : String(error)})`;
  }
  if (!isObject(value)) return "The JSON is not an object";
  const stranger = Object.keys(value).find((key) => !places.has(key));
  return stranger === undefined
    ? undefined
    : `${JSON.stringify(stranger)} is not a place of the net`;
}
