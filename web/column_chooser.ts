/**
 * Which trace attributes the log table shows as columns: a log may carry dozens or hundreds of
 * attributes per trace, so the table shows a few ({@link defaultColumns}: the case id first)
 * and this disclosure lets the user tick others, found by a search box. The attributes left out
 * stay one click away in each row.
 *
 * @example
 * ```ts
 * import { ColumnChooser } from "./column_chooser.ts";
 * const chooser = new ColumnChooser(() => console.log(chooser.columns));
 * chooser.reset(["amount", "case_id", "x0", "x1"]);
 * chooser.columns; // ["case_id", "amount", "x0"]
 * document.body.append(chooser.element);
 * ```
 *
 * @module
 */

import { html } from "./dom.ts";

/** Columns shown before the user picks any. */
export const DEFAULT_COLUMNS = 3;
/** The most attributes listed in the chooser at once; the search box finds the others. */
const MAX_LISTED = 200;
/** Names of the case id, by preference: shown first. */
const CASE_KEYS = ["concept:name", "case:concept:name", "case_id", "case", "id"];

const NATURAL = new Intl.Collator("en", { numeric: true });

/**
 * The columns shown at first: the case id (if the log has one), then the other attributes in
 * natural order (`x2` before `x10`), `count` in all.
 *
 * @example
 * ```ts
 * import { defaultColumns } from "./column_chooser.ts";
 * defaultColumns(["x10", "x2", "concept:name", "x1"]); // ["concept:name", "x1", "x2"]
 * ```
 */
export function defaultColumns(keys: readonly string[], count = DEFAULT_COLUMNS): string[] {
  const caseKey = CASE_KEYS.find((key) => keys.includes(key));
  const rest = [...keys].filter((key) => key !== caseKey).sort(NATURAL.compare);
  return [...(caseKey === undefined ? [] : [caseKey]), ...rest].slice(0, count);
}

/** The chooser of the log table's attribute columns. */
export class ColumnChooser {
  /** The disclosure to put above the table. */
  readonly element: HTMLDetailsElement;
  readonly #summary = html("summary", {});
  readonly #search = html("input", {
    id: "log-columns-search",
    type: "search",
    autocomplete: "off",
    spellcheck: "false",
    "aria-describedby": "log-columns-count",
    "aria-controls": "log-columns-list",
  });
  readonly #count = html("p", { id: "log-columns-count", class: "help", "aria-live": "polite" });
  readonly #list = html("ul", { id: "log-columns-list", class: "chooser-list" });
  readonly #onChange: () => void;
  #keys: readonly string[] = [];
  #chosen: string[] = [];

  /** `onChange` runs when the user ticks or unticks a column. */
  constructor(onChange: () => void) {
    this.#onChange = onChange;
    const none = html("button", { type: "button", class: "secondary" }, "Show none");
    const first = html("button", { type: "button", class: "secondary" }, "Show the first three");
    none.addEventListener("click", () => this.#set([]));
    first.addEventListener("click", () => this.#set(defaultColumns(this.#keys)));
    this.#search.addEventListener("input", () => this.#drawList());
    this.#search.addEventListener("keydown", (event) => {
      if (event.key === "Enter") event.preventDefault();
    });
    this.element = html(
      "details",
      { class: "column-chooser", id: "log-columns" },
      this.#summary,
      html(
        "div",
        { class: "chooser-body" },
        html(
          "div",
          { class: "map-search" },
          html("label", { for: this.#search.id }, "Find an attribute"),
          this.#search,
        ),
        this.#count,
        html(
          "fieldset",
          { class: "chooser-set" },
          html("legend", { class: "visually-hidden" }, "Attribute columns"),
          this.#list,
        ),
        html("div", { class: "chooser-actions" }, first, none),
      ),
    );
  }

  /** The chosen attribute columns, in the log's (natural) order. */
  get columns(): readonly string[] {
    return this.#chosen;
  }

  /** A new log's attribute keys: the default columns are chosen again. */
  reset(keys: readonly string[]): void {
    this.#keys = [...keys].sort(NATURAL.compare);
    this.#chosen = defaultColumns(keys);
    this.#search.value = "";
    this.element.open = false;
    this.element.hidden = keys.length === 0;
    this.#drawList();
  }

  #set(columns: readonly string[]): void {
    const order = new Map(this.#keys.map((key, i) => [key, i]));
    const caseKey = defaultColumns(this.#keys, 1)[0];
    // The case id stays first, the others follow the log's order.
    this.#chosen = [...new Set(columns)].sort((a, b) =>
      Number(b === caseKey) - Number(a === caseKey) || order.get(a)! - order.get(b)!
    );
    // Ticks are updated in place, so that the box just ticked keeps the focus.
    this.#refresh();
    this.#onChange();
  }

  #refresh(): void {
    this.#summary.textContent = `Attribute columns: ${this.#chosen.length} of ${this.#keys.length}`;
    const chosen = new Set(this.#chosen);
    for (const box of this.#list.querySelectorAll("input")) box.checked = chosen.has(box.value);
  }

  #drawList(): void {
    const term = this.#search.value.trim().toLowerCase();
    const matching = term === ""
      ? this.#keys
      : this.#keys.filter((key) => key.toLowerCase().includes(term));
    const chosen = new Set(this.#chosen);
    this.#list.replaceChildren(
      ...matching.slice(0, MAX_LISTED).map((key, i) => {
        const box = html("input", {
          type: "checkbox",
          id: `log-column-${i}`,
          value: key,
          checked: chosen.has(key),
        });
        box.addEventListener("change", () => {
          this.#set(
            box.checked ? [...this.#chosen, key] : this.#chosen.filter((k) => k !== key),
          );
        });
        return html("li", {}, html("label", { for: box.id }, box, " ", html("code", {}, key)));
      }),
    );
    this.#refresh();
    this.#count.textContent = matching.length === 0
      ? `No attribute name contains “${this.#search.value.trim()}”.`
      : matching.length > MAX_LISTED
      ? `${matching.length} attributes match; the first ${MAX_LISTED} are listed.`
      : term === ""
      ? `Tick the attributes to show as columns; the others are under each row's "more".`
      : `${matching.length} of ${this.#keys.length} attributes match.`;
  }
}
