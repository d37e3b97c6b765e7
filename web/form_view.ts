/**
 * Builds an accessible HTML form from a {@link RequestForm} for one loaded net, reads it back
 * into a JSON request body, and shows validation issues next to the fields they concern.
 * Numbers are typed as text, so a typo is reported rather than silently dropped.
 *
 * @example
 * ```ts
 * import * as z from "zod";
 * import { createSchemas } from "../core/schemas/mod.ts";
 * import { describeRequest } from "./form_fields.ts";
 * import { buildRequestForm } from "./form_view.ts";
 * const form = buildRequestForm("forward", describeRequest(createSchemas(z).requests.forward), {
 *   places: ["p_in"],
 *   transitions: ["t_a"],
 *   label: (t) => t,
 * }, () => {});
 * document.body.append(form.element);
 * const read = form.read(); // { ok: true, body: { input_marking: {} } }
 * ```
 *
 * @module
 */

import type { InputSpec } from "../core/net/mod.ts";
import type { ValidationIssue } from "../core/schemas/mod.ts";
import { html } from "./dom.ts";
import {
  ABSENT,
  fieldset,
  type FieldView,
  isObject,
  labelled,
  modeChoice,
  numberInput,
  ownValue,
  parseJson,
  readNumber,
} from "./form_controls.ts";
import { mapFieldView } from "./map_field.ts";
import type {
  ChoiceField,
  FormField,
  IdField,
  JsonField,
  ListField,
  NumberField,
  NumbersField,
  RequestForm,
  TextField,
} from "./form_fields.ts";

/** What a form needs to know of the loaded net. */
export interface FormContext {
  /** Place ids, sorted. */
  readonly places: readonly string[];
  /** Transition ids, sorted. */
  readonly transitions: readonly string[];
  /** A transition's label (its id when it has none). */
  label(transition: string): string;
  /**
   * The bundle's input specs, by the field they fill (`input_marking`, `input_values`): a
   * constant starts in its place's box, an attribute is named beside it.
   */
  readonly specs?: ReadonlyMap<string, InputSpec>;
  /**
   * The places a large net's map fields list before any search: its inputs (source places,
   * initially marked places). Places named by `specs` or holding a value are listed too.
   */
  readonly inputPlaces?: readonly string[];
}

/** A body read from the form, or the issues that kept it from being read. */
export type ReadResult =
  | { readonly ok: true; readonly body: Record<string, unknown> }
  | { readonly ok: false; readonly issues: readonly ValidationIssue[] };

/** A rendered request form. */
export interface RequestFormView {
  readonly element: HTMLFormElement;
  /** Reads the controls into a JSON request body. */
  read(): ReadResult;
  /** Lists issues above the form and marks the fields they name; an empty list clears them. */
  showIssues(issues: readonly ValidationIssue[]): void;
  /** Shows one message above the form (e.g. a 400 detail from the operation). */
  showError(message: string): void;
  /** Enables or disables the Run button while an operation runs. */
  setBusy(busy: boolean): void;
}

/** Renders the form of request `kind`. `onSubmit` runs on Enter or the Run button. */
export function buildRequestForm(
  kind: string,
  form: RequestForm,
  context: FormContext,
  onSubmit: () => void,
): RequestFormView {
  const prefix = `${kind}-`;
  const views = new Map<string, FieldView>();
  for (const field of form.fields) views.set(field.name, fieldView(prefix, field, context));
  const issuesBox = html("div", { class: "issues", id: `${prefix}issues`, hidden: true });
  const run = html("button", { type: "submit", class: "run", id: `${prefix}run` }, `Run ${kind}`);
  const element = html(
    "form",
    { id: `form-${kind}`, class: "request-form", novalidate: true, "data-kind": kind },
    html("p", { class: "help" }, form.description),
    issuesBox,
    ...[...views.values()].map((v) => v.element),
    html("div", { class: "actions" }, run),
  );
  element.addEventListener("submit", (event) => {
    event.preventDefault();
    onSubmit();
  });
  if (form.example !== undefined && exampleFits(form, form.example, context)) {
    for (const [name, view] of views) {
      const value = ownValue(form.example, name);
      if (value !== undefined) view.fill(value);
    }
  }
  // The sidecar's constants win over the schema's example: they are this model's inputs.
  for (const [name, spec] of context.specs ?? []) {
    const constants = [...spec].flatMap(([place, entry]) =>
      "constant" in entry ? [[place, entry.constant] as const] : []
    );
    if (constants.length > 0) views.get(name)?.fill(Object.fromEntries(constants));
  }

  const clearMarks = () => {
    for (const control of element.querySelectorAll("[aria-invalid]")) {
      control.removeAttribute("aria-invalid");
    }
  };
  const showBox = (title: string, items: readonly HTMLElement[]) => {
    issuesBox.replaceChildren(
      html("p", {}, html("strong", {}, title)),
      ...(items.length > 0 ? [html("ul", {}, ...items)] : []),
    );
    issuesBox.setAttribute("role", "alert");
    issuesBox.hidden = false;
  };

  return {
    element,
    read() {
      const issues: ValidationIssue[] = [];
      const body: Record<string, unknown> = {};
      for (const [name, view] of views) {
        const value = view.read(issues);
        if (value !== ABSENT) body[name] = value;
      }
      return issues.length > 0 ? { ok: false, issues } : { ok: true, body };
    },
    showIssues(issues) {
      clearMarks();
      if (issues.length === 0) {
        issuesBox.hidden = true;
        issuesBox.replaceChildren();
        return;
      }
      const items = issues.map((issue) => {
        const [, name, ...rest] = issue.loc;
        const control = typeof name === "string" ? views.get(name)?.control(rest) : undefined;
        control?.setAttribute("aria-invalid", "true");
        const where = issue.loc.slice(1).join(" › ") || "request";
        const text = `${where}: ${issue.msg}`;
        if (!control?.id) return html("li", {}, text);
        const link = html("a", { href: `#${control.id}` }, text);
        link.addEventListener("click", (event) => {
          event.preventDefault();
          control.focus();
        });
        return html("li", {}, link);
      });
      showBox("The request is not valid:", items);
    },
    showError(message) {
      clearMarks();
      showBox(message, []);
    },
    setBusy(busy) {
      run.disabled = busy;
      element.setAttribute("aria-busy", String(busy));
    },
  };
}

function fieldView(prefix: string, field: FormField, context: FormContext): FieldView {
  switch (field.kind) {
    case "idMap":
      return mapFieldView(prefix, field, context);
    case "id":
      return idView(prefix, field, context);
    case "text":
      return textView(prefix, field);
    case "choice":
      return choiceView(prefix, field);
    case "numbers":
      return numbersView(prefix, field);
    case "number":
      return numberView(prefix, field);
    case "list":
      return listView(prefix, field, context);
    case "json":
      return jsonView(prefix, field);
  }
}

// ---------------------------------------------------------------------------------------------
// Field kinds

function idView(prefix: string, field: IdField, context: FormContext): FieldView {
  const id = `${prefix}${field.name}`;
  const ids = field.domain === "place" ? context.places : context.transitions;
  const options = ids.map((value) => {
    const label = field.domain === "transition" ? context.label(value) : value;
    return html("option", { value }, label === value ? value : `${value} (${label})`);
  });
  const select = html("select", { id, "aria-describedby": `${id}-help` }, ...options);
  return {
    element: labelled(field, id, select),
    read: () => select.value,
    control: () => select,
    fill(value) {
      if (typeof value === "string" && ids.includes(value)) select.value = value;
    },
  };
}

function textView(prefix: string, field: TextField): FieldView {
  const id = `${prefix}${field.name}`;
  const input = html("input", { id, type: "text", "aria-describedby": `${id}-help` });
  return {
    element: labelled(field, id, input),
    read: () => input.value === "" && !field.required ? ABSENT : input.value,
    control: () => input,
    fill(value) {
      if (typeof value === "string") input.value = value;
    },
  };
}

function choiceView(prefix: string, field: ChoiceField): FieldView {
  const id = `${prefix}${field.name}`;
  const select = html(
    "select",
    { id, "aria-describedby": `${id}-help` },
    ...field.options.map((value) => html("option", { value }, value)),
  );
  if (typeof field.defaultValue === "string") select.value = field.defaultValue;
  return {
    element: labelled(field, id, select),
    read: () => select.value,
    control: () => select,
    fill(value) {
      if (typeof value === "string" && field.options.includes(value)) select.value = value;
    },
  };
}

function numbersView(prefix: string, field: NumbersField): FieldView {
  const base = `${prefix}${field.name}`;
  const names = field.count === 2
    ? ["lo", "hi"]
    : Array.from({ length: field.count }, (_, i) => `item ${i + 1}`);
  const inputs = names.map((_, i) => numberInput(`${base}-${i}`, `${base}-help`, ""));
  const fill = (value: unknown) => {
    if (!Array.isArray(value)) return;
    inputs.forEach((input, i) => {
      if (typeof value[i] === "number") input.value = String(value[i]);
    });
  };
  fill(field.defaultValue);
  const rows = names.map((name, i) =>
    html("div", { class: "row" }, html("label", { for: inputs[i]!.id }, name), inputs[i]!)
  );
  return {
    element: fieldset(field, base, html("div", { class: "rows inline" }, ...rows)),
    read(issues) {
      if (inputs.every((input) => input.value.trim() === "") && !field.required) return ABSENT;
      const values = inputs.map((input, i) => {
        const value = readNumber(input, ["body", field.name, i], issues);
        if (value === undefined) {
          issues.push({ type: "missing", loc: ["body", field.name, i], msg: "Field required" });
        }
        return value;
      });
      return values;
    },
    control: ([i]) => inputs[Number(i)] ?? inputs[0],
    fill,
  };
}

function numberView(prefix: string, field: NumberField): FieldView {
  const id = `${prefix}${field.name}`;
  const input = numberInput(id, `${id}-help`, "");
  if (typeof field.defaultValue === "number") input.value = String(field.defaultValue);
  const bound = field.min
    ? html("span", { class: "bound" }, `${field.min.inclusive ? "≥" : ">"} ${field.min.value}`)
    : "";
  return {
    element: labelled(field, id, input, bound),
    read(issues) {
      const value = readNumber(input, ["body", field.name], issues);
      return value === undefined ? (field.required ? null : ABSENT) : value;
    },
    control: () => input,
    fill(value) {
      if (typeof value === "number") input.value = String(value);
    },
  };
}

function jsonView(prefix: string, field: JsonField): FieldView {
  const id = `${prefix}${field.name}`;
  const area = html("textarea", {
    id,
    rows: 2,
    spellcheck: "false",
    "aria-describedby": `${id}-help`,
  });
  if (field.defaultValue !== undefined) area.value = JSON.stringify(field.defaultValue);
  return {
    element: labelled(field, id, area, html("span", { class: "bound" }, "JSON")),
    read(issues) {
      if (area.value.trim() === "") return field.required ? null : ABSENT;
      return parseJson(area.value, ["body", field.name], issues);
    },
    control: () => area,
    fill(value) {
      area.value = JSON.stringify(value);
    },
  };
}

/** Events (or any list of objects): one text row per item, or the whole list as JSON. */
function listView(prefix: string, field: ListField, context: FormContext): FieldView {
  const base = `${prefix}${field.name}`;
  const listId = `${base}-suggestions`;
  const labels = [...new Set(context.transitions.map((t) => context.label(t)))].sort();
  const datalist = html(
    "datalist",
    { id: listId },
    ...labels.map((label) => html("option", { value: label })),
  );
  const rows = html("ol", { class: "list-rows", id: `${base}-rows` });
  const area = html("textarea", {
    id: `${base}-json`,
    rows: 4,
    spellcheck: "false",
    "aria-describedby": `${base}-help`,
  });
  const typedPanel = html("div", { class: "list-typed" });
  const jsonPanel = html(
    "div",
    { class: "list-json", hidden: true },
    html("label", { for: area.id }, `${field.name} as JSON (a list of objects)`),
    area,
  );
  const add = html(
    "button",
    { type: "button", class: "secondary", id: `${base}-add` },
    `Add ${singular(field.name)}`,
  );

  const addRow = (value = "", focus = false) => {
    const input = html("input", {
      type: "text",
      list: listId,
      autocomplete: "off",
      "aria-describedby": `${base}-item-help`,
    });
    input.value = value;
    const remove = html("button", { type: "button", class: "remove secondary" }, "Remove");
    const label = html("label", {});
    const row = html("li", { class: "row" }, label, input, remove);
    remove.addEventListener("click", () => {
      const next = row.nextElementSibling ?? row.previousElementSibling;
      row.remove();
      renumber();
      ((next?.querySelector("input") as HTMLInputElement | null) ?? add).focus();
    });
    rows.append(row);
    renumber();
    if (focus) input.focus();
  };
  const renumber = () => {
    [...rows.children].forEach((row, i) => {
      const input = row.querySelector("input")!;
      const label = row.querySelector("label")!;
      const remove = row.querySelector("button")!;
      input.id = `${base}-${i}`;
      label.htmlFor = input.id;
      label.textContent = `${capitalise(singular(field.name))} ${i + 1} ${field.itemField}`;
      remove.setAttribute("aria-label", `Remove ${singular(field.name)} ${i + 1}`);
    });
  };
  const typedValues = () =>
    [...rows.querySelectorAll("input")].map((input) => input.value).filter((v) => v !== "");
  const setRows = (items: readonly unknown[]) => {
    rows.replaceChildren();
    for (const item of items) {
      const text = ownValue(item, field.itemField);
      if (typeof text === "string") addRow(text);
    }
  };
  let current: "typed" | "json" = "typed";
  const switchMode = (next: "typed" | "json") => {
    if (next === current) return;
    if (next === "json") {
      area.value = JSON.stringify(typedValues().map((v) => ({ [field.itemField]: v })));
    } else {
      try {
        const items = JSON.parse(area.value);
        if (Array.isArray(items)) setRows(items);
      } catch {
        // Keep the typed rows: the JSON cannot be shown as rows.
      }
    }
    current = next;
    typedPanel.hidden = next !== "typed";
    jsonPanel.hidden = next !== "json";
  };
  add.addEventListener("click", () => addRow("", true));
  typedPanel.append(
    rows,
    add,
    html("p", { class: "help", id: `${base}-item-help` }, field.itemDescription),
  );

  const element = fieldset(
    field,
    base,
    modeChoice(
      base,
      `Enter ${field.name} by`,
      [["typed", "typing them"], ["json", "pasting JSON"]],
      switchMode,
    ).element,
    typedPanel,
    jsonPanel,
    datalist,
  );
  return {
    element,
    read(issues) {
      if (current === "typed") return typedValues().map((v) => ({ [field.itemField]: v }));
      if (area.value.trim() === "") return [];
      return parseJson(area.value, ["body", field.name], issues);
    },
    control(path) {
      if (current === "json") return area;
      const input = rows.querySelectorAll("input")[Number(path[0])];
      return (input as HTMLInputElement | undefined) ?? add;
    },
    fill(value) {
      if (Array.isArray(value)) setRows(value);
    },
  };
}

// ---------------------------------------------------------------------------------------------
// Helpers

/** Whether the schema's example names only ids of this net (else the form starts empty). */
function exampleFits(form: RequestForm, example: unknown, context: FormContext): boolean {
  if (!isObject(example)) return false;
  const places = new Set(context.places);
  const transitions = new Set(context.transitions);
  const labels = new Set(context.transitions.map((t) => context.label(t)));
  return form.fields.every((field) => {
    const value = ownValue(example, field.name);
    if (value === undefined || value === null) return true;
    switch (field.kind) {
      case "idMap":
        return isObject(value) && Object.keys(value).every((id) => places.has(id));
      case "id":
        return typeof value === "string" &&
          (field.domain === "place" ? places : transitions).has(value);
      case "list":
        return Array.isArray(value) &&
          value.every((item) => labels.has(String(ownValue(item, field.itemField))));
      default:
        return true;
    }
  });
}

function singular(name: string): string {
  return name.endsWith("s") ? name.slice(0, -1) : name;
}

function capitalise(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}
