/**
 * A scored log as a process analyst looks at it: the histogram of trace scores, a sortable,
 * paged table of the traces (most anomalous first, error entries after), and the picked
 * trace's attributes, events and residuals, with the net coloured by them. Only one page of
 * rows is in the page at a time, fetched from the scoring worker; cells carry `data-*`
 * attributes so tests read what the page shows.
 *
 * @example
 * ```ts
 * import { LogResults } from "./log_results.ts";
 * declare const host: import("./log_results.ts").ResultsHost;
 * const results = new LogResults(document.querySelector("#log-results")!, host);
 * await results.show({
 *   traces: 10,
 *   errors: 1,
 *   ids: ["t_a"],
 *   attributes: ["amount"],
 *   seconds: 0.1,
 *   notes: [],
 *   storeBytes: 0,
 * });
 * ```
 *
 * @module
 */

import { ColumnChooser } from "./column_chooser.ts";
import { formatNumber, html } from "./dom.ts";
import { histogramChart } from "./histogram.ts";
import { residualColour } from "./net_view.ts";
import { captionedTable } from "./results.ts";
import type { ScoreHistogram, StoredTrace, TableOrder } from "./result_store.ts";
import type { RowsPage, ScoreSummary } from "./score_protocol.ts";

/** What the results view asks of the page. */
export interface ResultsHost {
  rows(order: TableOrder, offset: number, limit: number): Promise<RowsPage>;
  histogram(bins: number): Promise<ScoreHistogram>;
  /** A transition's label (its id when it has none). */
  label(transition: string): string;
  /** Colours the net by a trace's residuals (transition id → residual); undefined clears it. */
  showOnNet(trace: StoredTrace | undefined, residuals: ReadonlyMap<string, number>): void;
}

const PAGE_SIZES = [25, 50, 100] as const;
const BINS = 40;

/** The results of one scored log. */
export class LogResults {
  readonly #root: HTMLElement;
  readonly #host: ResultsHost;
  #summary: ScoreSummary | undefined;
  #histogram: ScoreHistogram | undefined;
  #order: TableOrder = { by: "score", descending: true, filter: "all" };
  #offset = 0;
  #pageSize: number = PAGE_SIZES[1];
  #selected: StoredTrace | undefined;
  readonly #chart = html("div", { class: "histogram-box" });
  readonly #table = html("table", { id: "log-table" });
  readonly #pager = html("nav", { class: "pager", "aria-label": "Table pages" });
  readonly #detail = html("section", {
    id: "trace-detail",
    class: "trace-detail",
    "aria-live": "polite",
    hidden: true,
  });
  readonly #filter = html("select", { id: "log-filter" });
  readonly #size = html(
    "select",
    { id: "log-page-size" },
    ...PAGE_SIZES.map((n) => html("option", { value: n }, String(n))),
  );

  readonly #columns = new ColumnChooser(() => this.#drawTable());
  /** The page of rows shown, drawn again when the columns change. */
  #page: RowsPage | undefined;

  constructor(root: HTMLElement, host: ResultsHost) {
    this.#root = root;
    this.#host = host;
    this.#size.value = String(this.#pageSize);
    this.#filter.addEventListener("change", () => {
      this.#order = { ...this.#order, filter: this.#filter.value as TableOrder["filter"] };
      this.#offset = 0;
      void this.#render();
    });
    this.#size.addEventListener("change", () => {
      this.#pageSize = Number(this.#size.value);
      this.#offset = 0;
      void this.#render();
    });
  }

  /** Shows a new log's results (the first page, most anomalous first). */
  async show(summary: ScoreSummary): Promise<void> {
    this.#summary = summary;
    this.#order = { by: "score", descending: true, filter: "all" };
    this.#offset = 0;
    this.#selected = undefined;
    this.#detail.hidden = true;
    this.#filter.replaceChildren(
      html("option", { value: "all" }, `all traces (${n(summary.traces)})`),
      html("option", { value: "scored" }, `scored traces (${n(summary.traces - summary.errors)})`),
      html("option", { value: "errors" }, `error entries (${n(summary.errors)})`),
    );
    this.#filter.value = "all";
    this.#columns.reset(summary.attributes);
    this.#page = undefined;
    this.#histogram = await this.#host.histogram(BINS);
    this.#root.replaceChildren(
      this.#chart,
      html(
        "div",
        { class: "table-controls" },
        html("label", { for: this.#filter.id }, "Show "),
        this.#filter,
        html("label", { for: this.#size.id }, "Rows per page "),
        this.#size,
      ),
      this.#columns.element,
      html("div", { class: "table-wrap" }, this.#table),
      this.#pager,
      this.#detail,
    );
    this.#drawHistogram();
    await this.#render();
  }

  /** Removes the results (a new model or log). */
  clear(): void {
    this.#summary = undefined;
    this.#page = undefined;
    this.#selected = undefined;
    this.#root.replaceChildren();
  }

  #drawHistogram(): void {
    if (!this.#histogram) return;
    // Drawn at the width it gets, so its text keeps its size on a phone.
    // The figure's padding and border take 14 px of the box.
    const width = Math.max(240, Math.min(1200, (this.#chart.clientWidth || 640) - 14));
    this.#chart.replaceChildren(histogramChart(this.#histogram, this.#selected?.score, width));
  }

  async #render(): Promise<void> {
    const summary = this.#summary;
    if (!summary) return;
    const page = await this.#host.rows(this.#order, this.#offset, this.#pageSize);
    if (summary !== this.#summary) return;
    this.#page = page;
    this.#drawTable();
  }

  #drawTable(): void {
    const summary = this.#summary;
    const page = this.#page;
    if (!summary || !page) return;
    this.#table.replaceChildren(
      html(
        "caption",
        {},
        `Traces, ${orderText(this.#order)}` +
          (this.#order.filter === "all" ? "" : ` (${this.#filter.selectedOptions[0]?.text})`),
      ),
      this.#head(),
      html("tbody", {}, ...page.rows.map((row) => this.#row(row, summary.ids))),
    );
    this.#drawPager(page.total);
  }

  #head(): HTMLTableSectionElement {
    const sortable = (by: TableOrder["by"], text: string) => {
      const active = this.#order.by === by;
      const button = html("button", { type: "button", class: "sort" }, text);
      button.addEventListener("click", () => {
        const descending = active ? !this.#order.descending : by === "score";
        this.#order = { ...this.#order, by, descending };
        this.#offset = 0;
        void this.#render();
      });
      return html(
        "th",
        {
          scope: "col",
          "aria-sort": active ? (this.#order.descending ? "descending" : "ascending") : "none",
        },
        button,
      );
    };
    return html(
      "thead",
      {},
      html(
        "tr",
        {},
        sortable("index", "Trace"),
        sortable("score", "Score"),
        html("th", { scope: "col" }, "Largest residual"),
        ...this.#columns.columns.map((key) =>
          html("th", { scope: "col", class: "attributes" }, html("code", {}, key))
        ),
        ...(this.#columns.columns.length < (this.#summary?.attributes.length ?? 0)
          ? [html("th", { scope: "col", class: "attributes" }, "Other attributes")]
          : []),
      ),
    );
  }

  #row(trace: StoredTrace, ids: readonly string[]): HTMLTableRowElement {
    const selected = this.#selected?.index === trace.index;
    const open = html(
      "button",
      {
        type: "button",
        class: "trace-link",
        "aria-pressed": String(selected),
        "aria-label": `Show trace ${trace.index}`,
      },
      `#${trace.index}`,
    );
    open.addEventListener("click", () => void this.#select(trace, ids));
    const error = trace.error;
    let largest: HTMLElement | string = "";
    if (error === undefined && ids.length > 0) {
      let j = 0;
      for (let i = 1; i < trace.residuals.length; i++) {
        if (!(trace.residuals[i]! <= trace.residuals[j]!)) j = i;
      }
      largest = html(
        "span",
        {},
        html("code", {}, ids[j]!),
        ` ${formatNumber(trace.residuals[j]!)}`,
      );
    }
    return html(
      "tr",
      {
        "data-index": trace.index,
        "data-error": error === undefined ? undefined : "",
        class: [error === undefined ? "" : "error-row", selected ? "selected" : ""].join(" ")
          .trim() || undefined,
      },
      html("th", { scope: "row" }, open),
      error === undefined
        ? html(
          "td",
          { class: "num", "data-field": "trace_score", "data-value": jsonNumber(trace.score!) },
          formatNumber(trace.score!),
        )
        : html("td", { class: "status" }, html("span", { class: "badge" }, "error")),
      error === undefined
        ? html("td", { class: "largest" }, largest)
        : html("td", { class: "error-text", "data-field": "error" }, error),
      ...this.#attributeCells(trace),
    );
  }

  /** A cell per chosen column, then the other attributes behind a disclosure. */
  #attributeCells(trace: StoredTrace): HTMLTableCellElement[] {
    const columns = this.#columns.columns;
    const cells = columns.map((key) =>
      html(
        "td",
        { class: "attributes", "data-attribute": key },
        trace.attributes.get(key) ?? "",
      )
    );
    if (columns.length >= (this.#summary?.attributes.length ?? 0)) return cells;
    const shown = new Set(columns);
    const others = [...trace.attributes].filter(([key]) => !shown.has(key));
    cells.push(html(
      "td",
      { class: "attributes more" },
      others.length === 0 ? "" : html(
        "details",
        {},
        html(
          "summary",
          { "aria-label": `${others.length} more attributes of trace ${trace.index}` },
          `${others.length} more`,
        ),
        html("span", {}, attributesText(new Map(others))),
      ),
    ));
    return cells;
  }

  #drawPager(total: number): void {
    const size = this.#pageSize;
    const last = Math.max(0, Math.floor((total - 1) / size) * size);
    const go = (offset: number, text: string, label: string) => {
      const button = html("button", {
        type: "button",
        class: "secondary",
        "aria-label": label,
        disabled: total === 0 || offset === this.#offset,
      }, text);
      button.addEventListener("click", () => {
        this.#offset = offset;
        void this.#render();
      });
      return button;
    };
    const from = total === 0 ? 0 : this.#offset + 1;
    const to = Math.min(total, this.#offset + size);
    this.#pager.replaceChildren(
      go(0, "«", "First page"),
      go(Math.max(0, this.#offset - size), "‹", "Previous page"),
      html("span", { class: "range", "aria-live": "polite" }, `${n(from)}–${n(to)} of ${n(total)}`),
      go(Math.min(last, this.#offset + size), "›", "Next page"),
      go(last, "»", "Last page"),
    );
  }

  async #select(trace: StoredTrace, ids: readonly string[]): Promise<void> {
    this.#selected = trace;
    for (const row of this.#table.querySelectorAll("tbody tr")) {
      const on = (row as HTMLElement).dataset.index === String(trace.index);
      row.classList.toggle("selected", on);
      row.querySelector("button.trace-link")?.setAttribute("aria-pressed", String(on));
    }
    this.#drawHistogram();
    const residuals = new Map(ids.map((id, j) => [id, trace.residuals[j]!]));
    this.#host.showOnNet(trace.error === undefined ? trace : undefined, residuals);
    this.#detail.replaceChildren(...this.#detailContent(trace, ids));
    this.#detail.hidden = false;
    this.#detail.dataset.index = String(trace.index);
    await Promise.resolve();
  }

  #detailContent(trace: StoredTrace, ids: readonly string[]): HTMLElement[] {
    const observed = observedTransitions(ids, trace.events, (t) => this.#host.label(t));
    const head = html("h3", { id: "trace-detail-heading" }, `Trace ${trace.index}`);
    const status = trace.error === undefined
      ? html(
        "p",
        {},
        "Score ",
        html("strong", { "data-value": jsonNumber(trace.score!) }, formatNumber(trace.score!)),
        ` (${rankText(trace.score!, this.#histogram)}). `,
        html("a", { href: "#net" }, "The net"),
        " is coloured by this trace's residuals: the darker a transition, the more the model " +
          "and the trace disagree about it.",
      )
      : html(
        "p",
        { class: "error" },
        html("strong", {}, "Not scored: "),
        html("span", { "data-field": "error" }, trace.error),
      );
    const attributes = trace.attributes.size === 0
      ? html("p", { class: "hint" }, "No trace attributes.")
      : html(
        "dl",
        { class: "attribute-list" },
        ...[...trace.attributes].flatMap(([k, v]) => [
          html("dt", {}, html("code", {}, k)),
          html("dd", {}, v),
        ]),
      );
    const events = trace.events.length === 0 ? html("p", { class: "hint" }, "No events.") : html(
      "ol",
      { class: "event-list" },
      ...trace.events.map((event) =>
        html(
          "li",
          {},
          html("strong", {}, event.name),
          event.attributes.size > 0 ? ` ${attributesText(event.attributes)}` : "",
        )
      ),
    );
    const parts: HTMLElement[] = [
      head,
      status,
      html("h4", {}, `Attributes (${trace.attributes.size})`),
      bounded(attributes, trace.attributes.size, "Trace attributes"),
      html("h4", {}, `Events (${trace.events.length})`),
      bounded(events, trace.events.length, "Events"),
    ];
    if (trace.error === undefined && ids.length > 0) {
      const order = ids.map((_, j) => j).sort((a, b) =>
        trace.residuals[b]! - trace.residuals[a]! || a - b
      );
      const rows = order.map((j) => {
        const id = ids[j]!;
        const value = trace.residuals[j]!;
        const label = this.#host.label(id);
        return html(
          "tr",
          {},
          html("th", { scope: "row" }, html("code", {}, id), label === id ? "" : ` (${label})`),
          html("td", {}, observed.has(id) ? "yes" : "no"),
          html(
            "td",
            { class: "num", "data-key": id, "data-value": jsonNumber(value) },
            html("span", { class: "swatch", style: `background:${residualColour(value)}` }),
            formatNumber(value),
          ),
        );
      });
      parts.push(
        html("h4", {}, "Residuals"),
        captionedTable(
          "Per-transition residuals, largest first",
          ["Transition", "Observed", "Residual"],
          rows,
          "residuals",
        ),
      );
    }
    return parts;
  }
}

/** Lists longer than this scroll in a box of bounded height. */
const TALL_LIST = 12;

/** `list` in a focusable scrolling box when it has more than {@link TALL_LIST} items. */
function bounded(list: HTMLElement, items: number, name: string): HTMLElement {
  if (items <= TALL_LIST) return list;
  return html(
    "div",
    { class: "detail-scroll", tabindex: 0, role: "region", "aria-label": name },
    list,
  );
}

/**
 * The scored transitions a trace's events observe: an event observes the transition whose
 * label is its name (of transitions sharing a label, the last id), as `scoreRows` counts it.
 */
function observedTransitions(
  ids: readonly string[],
  events: readonly { readonly name: string }[],
  label: (t: string) => string,
): Set<string> {
  const byLabel = new Map<string, string>();
  for (const id of ids) byLabel.set(label(id), id);
  const observed = new Set<string>();
  for (const event of events) {
    const id = byLabel.get(event.name);
    if (id !== undefined) observed.add(id);
  }
  return observed;
}

function rankText(score: number, histogram: ScoreHistogram | undefined): string {
  if (!histogram || !Number.isFinite(score)) return "not a finite number";
  const span = histogram.max - histogram.min;
  if (span <= 0) return "every trace scored the same";
  const bin = Math.min(
    histogram.counts.length - 1,
    Math.floor(((score - histogram.min) / span) * histogram.counts.length),
  );
  const above = histogram.counts.slice(bin + 1).reduce((a, b) => a + b, 0);
  const total = histogram.counts.reduce((a, b) => a + b, 0);
  const share = total > 0 ? (100 * above) / total : 0;
  return share < 0.1
    ? "among the highest of the log"
    : `about ${
      share < 10 ? share.toFixed(1) : Math.round(share)
    }% of the scored traces score higher`;
}

function orderText(order: TableOrder): string {
  if (order.by === "index") return order.descending ? "last first" : "in log order";
  return order.descending
    ? "most anomalous first (error entries last)"
    : "least anomalous first (error entries last)";
}

function attributesText(attributes: ReadonlyMap<string, string>): string {
  return [...attributes].map(([k, v]) => `${k}=${v}`).join(", ");
}

function jsonNumber(value: number): string {
  return Number.isFinite(value) ? String(value) : "null";
}

function n(value: number): string {
  return value.toLocaleString("en");
}
