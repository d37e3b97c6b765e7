/**
 * Builds an accessible HTML form from a {@link RequestForm} (itself read from the zod schema)
 * for one loaded net, reads it back into a JSON request body, and shows validation issues next
 * to the fields they concern. Every control has a label, numbers are typed as text (so a typo is
 * reported, not silently dropped), and the form is submitted with Enter or its Run button.
 *
 * @example
 * ```ts
 * import * as z from "zod";
 * import { createSchemas } from "../core/schemas.ts";
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

import type { InputSpec } from "../core/net/types.ts";
import type { ValidationIssue } from "../core/schemas.ts";
import { html } from "./dom.ts";
import type {
  ChoiceField,
  FormField,
  IdField,
  IdMapField,
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

/** One field's controls. */
interface FieldView {
  readonly element: HTMLElement;
  /** The field's JSON value, or {@link ABSENT} to leave it out; issues are pushed to `issues`. */
  read(issues: ValidationIssue[]): unknown;
  /** The control an issue at `path` (after the field name) concerns. */
  control(path: readonly (string | number)[]): HTMLElement | undefined;
  /** Sets the field from a JSON value (the schema's example). */
  fill(value: unknown): void;
}

const ABSENT = Symbol("absent");

/**
 * Renders the form of request `kind`. `onSubmit` runs on Enter or the Run button.
 *
 * @example
 * ```ts
 * import { buildRequestForm } from "./form_view.ts";
 * declare const form: import("./form_fields.ts").RequestForm;
 * declare const context: import("./form_view.ts").FormContext;
 * const view = buildRequestForm("sensitivity", form, context, () => console.log("run"));
 * view.showError("target_transition 't_x' is not in the net's transition set");
 * ```
 */
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
      return idMapView(prefix, field, context);
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

function idMapView(prefix: string, field: IdMapField, context: FormContext): FieldView {
  const base = `${prefix}${field.name}`;
  const spec = context.specs?.get(field.name);
  const attributeOf = (place: string) => {
    const entry = spec?.get(place);
    return entry && "attribute" in entry ? entry.attribute : undefined;
  };
  const inputs = context.places.map((place, i) => {
    const attribute = attributeOf(place);
    const placeholder = attribute !== undefined
      ? `attribute ${attribute}`
      : field.required
      ? "default"
      : "not supplied";
    const input = numberInput(`${base}-${i}`, `${base}-help`, placeholder);
    if (attribute !== undefined) {
      input.setAttribute("aria-describedby", `${base}-help ${base}-${i}-source`);
    }
    return input;
  });
  // The label is the place id alone; where the sidecar reads the place from a trace
  // attribute, a note under it says which (and describes the box).
  const rows = context.places.map((place, i) => {
    const attribute = attributeOf(place);
    return html(
      "div",
      { class: "row" },
      html(
        "div",
        { class: "place-cell" },
        html("label", { for: inputs[i]!.id }, html("code", {}, place)),
        ...(attribute === undefined ? [] : [
          html(
            "span",
            { class: "source", id: `${base}-${i}-source` },
            "from attribute ",
            html("code", {}, attribute),
          ),
        ]),
      ),
      inputs[i]!,
    );
  });
  const element = fieldset(field, base, html("div", { class: "rows" }, ...rows));
  return {
    element,
    read(issues) {
      const entries: [string, number][] = [];
      context.places.forEach((place, i) => {
        const value = readNumber(inputs[i]!, ["body", field.name, place], issues);
        if (value !== undefined) entries.push([place, value]);
      });
      if (entries.length === 0 && !field.required) return ABSENT;
      return ownRecord(entries);
    },
    control: ([place]) => inputs[context.places.indexOf(String(place))] ?? inputs[0],
    fill(value) {
      if (!isObject(value)) return;
      context.places.forEach((place, i) => {
        const v = ownValue(value, place);
        if (typeof v === "number") inputs[i]!.value = String(v);
      });
    },
  };
}

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
  const mode = (value: "typed" | "json", text: string) => {
    const input = html("input", {
      type: "radio",
      name: `${base}-mode`,
      id: `${base}-mode-${value}`,
      value,
      checked: value === "typed",
    });
    input.addEventListener("change", () => switchMode(value));
    return html("label", { class: "mode", for: input.id }, input, ` ${text}`);
  };
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
    html(
      "fieldset",
      { class: "modes" },
      html("legend", {}, `Enter ${field.name} by`),
      mode("typed", "typing them"),
      mode("json", "pasting JSON"),
    ),
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

function fieldset(field: FormField, base: string, ...content: HTMLElement[]): HTMLFieldSetElement {
  return html(
    "fieldset",
    { class: `field ${field.kind}`, "data-field": field.name },
    html("legend", {}, html("code", {}, field.name), requirement(field)),
    html("p", { class: "help", id: `${base}-help` }, field.description),
    ...content,
  );
}

function labelled(
  field: FormField,
  id: string,
  control: HTMLElement,
  extra: HTMLElement | string = "",
): HTMLDivElement {
  return html(
    "div",
    { class: `field ${field.kind}`, "data-field": field.name },
    html("label", { for: id }, html("code", {}, field.name), requirement(field)),
    html("p", { class: "help", id: `${id}-help` }, field.description),
    html("div", { class: "control" }, control, extra),
  );
}

function requirement(field: FormField): HTMLElement | string {
  if (field.required) return "";
  const text = field.defaultValue === undefined
    ? "optional"
    : `default ${JSON.stringify(field.defaultValue)}`;
  return html("span", { class: "optional" }, ` (${text})`);
}

function numberInput(id: string, describedBy: string, placeholder: string): HTMLInputElement {
  return html("input", {
    id,
    type: "text",
    inputmode: "decimal",
    autocomplete: "off",
    spellcheck: "false",
    placeholder: placeholder || undefined,
    "aria-describedby": describedBy,
  });
}

const NUMBER = /^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/;

/** A typed number; `undefined` when the box is empty; an issue when it is not a number. */
function readNumber(
  input: HTMLInputElement,
  loc: readonly (string | number)[],
  issues: ValidationIssue[],
): number | undefined {
  const text = input.value.trim();
  if (text === "") return undefined;
  if (!NUMBER.test(text)) {
    issues.push({
      type: "float_parsing",
      loc,
      msg: "Input should be a valid number, unable to parse string as a number",
      input: text,
    });
    return undefined;
  }
  const value = Number(text);
  if (!Number.isFinite(value)) {
    issues.push({
      type: "finite_number",
      loc,
      msg: "Input should be a finite number",
      input: text,
    });
    return undefined;
  }
  return value;
}

function parseJson(
  text: string,
  loc: readonly (string | number)[],
  issues: ValidationIssue[],
): unknown {
  try {
    return JSON.parse(text);
  } catch (error) {
    issues.push({
      type: "json_invalid",
      loc,
      msg: `JSON decode error (${error instanceof Error ? error.message : String(error)})`,
    });
    return ABSENT;
  }
}

/** A plain object with these own entries; `__proto__` is an ordinary key, not the prototype. */
function ownRecord(entries: readonly [string, unknown][]): Record<string, unknown> {
  const record: Record<string, unknown> = {};
  for (const [key, value] of entries) {
    Object.defineProperty(record, key, {
      value,
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  return record;
}

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

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function ownValue(object: unknown, key: string): unknown {
  return isObject(object) && Object.hasOwn(object, key) ? object[key] : undefined;
}

function singular(name: string): string {
  return name.endsWith("s") ? name.slice(0, -1) : name;
}

function capitalise(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}
