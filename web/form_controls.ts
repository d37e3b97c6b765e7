/**
 * The pieces every field of a request form is made of (`form_view.ts`, `map_field.ts`): the
 * {@link FieldView} contract, the labelled wrappers, number boxes read as the server reads
 * numbers (a typo is an issue, never silently dropped), JSON text boxes, and own-key records
 * (so that `__proto__` is an ordinary key).
 *
 * @example
 * ```ts
 * import { numberInput, readNumber } from "./form_controls.ts";
 * const input = numberInput("x", "x-help", "");
 * input.value = "1e3";
 * readNumber(input, ["body", "x"], []); // 1000
 * ```
 *
 * @module
 */

import type { ValidationIssue } from "../core/schemas/mod.ts";
import { html } from "./dom.ts";
import type { FormField } from "./form_fields.ts";

/** One field's controls. */
export interface FieldView {
  readonly element: HTMLElement;
  /** The field's JSON value, or {@link ABSENT} to leave it out; issues are pushed to `issues`. */
  read(issues: ValidationIssue[]): unknown;
  /** The control an issue at `path` (after the field name) concerns. */
  control(path: readonly (string | number)[]): HTMLElement | undefined;
  /** Sets the field from a JSON value (the schema's example). */
  fill(value: unknown): void;
}

/** What a field reads as when it is left out of the body. */
export const ABSENT = Symbol("absent");

/** A fieldset for a field of several controls: its name as legend, then its description. */
export function fieldset(
  field: FormField,
  base: string,
  ...content: HTMLElement[]
): HTMLFieldSetElement {
  return html(
    "fieldset",
    { class: `field ${field.kind}`, "data-field": field.name },
    html("legend", {}, html("code", {}, field.name), requirement(field)),
    html("p", { class: "help", id: `${base}-help` }, field.description),
    ...content,
  );
}

/** A field of one control: its name as label, its description, the control. */
export function labelled(
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

/** " (optional)" or " (default …)" after a field's name; nothing for a required field. */
export function requirement(field: FormField): HTMLElement | string {
  if (field.required) return "";
  const text = field.defaultValue === undefined
    ? "optional"
    : `default ${JSON.stringify(field.defaultValue)}`;
  return html("span", { class: "optional" }, ` (${text})`);
}

/** A text box for a number (typed as text, so that a typo is reported). */
export function numberInput(
  id: string,
  describedBy: string,
  placeholder: string,
): HTMLInputElement {
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

/** A decimal number as JSON and Python write it. */
export const NUMBER = /^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/;

/** A typed number; `undefined` when the box is empty; an issue when it is not a number. */
export function readNumber(
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

/** JSON text parsed; an issue (and {@link ABSENT}) when it is not JSON. */
export function parseJson(
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
export function ownRecord(entries: readonly [string, unknown][]): Record<string, unknown> {
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

/** A plain object (not null, not an array). */
export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** `object[key]` when it is an own property of a plain object. */
export function ownValue(object: unknown, key: string): unknown {
  return isObject(object) && Object.hasOwn(object, key) ? object[key] : undefined;
}

/** Two ways of entering one field, as radio buttons; see {@link modeChoice}. */
export interface ModeChoice<M extends string> {
  readonly element: HTMLFieldSetElement;
  /** Checks the button of `mode` (without calling back). */
  check(mode: M): void;
}

/**
 * Radio buttons `BASE-mode-MODE` under `legend`, the first checked; `onChange` gets the mode
 * picked.
 */
export function modeChoice<M extends string>(
  base: string,
  legend: string,
  modes: readonly (readonly [M, string])[],
  onChange: (mode: M) => void,
): ModeChoice<M> {
  const inputs = new Map<M, HTMLInputElement>();
  const labels = modes.map(([value, text], i) => {
    const input = html("input", {
      type: "radio",
      name: `${base}-mode`,
      id: `${base}-mode-${value}`,
      value,
      checked: i === 0,
    });
    input.addEventListener("change", () => onChange(value));
    inputs.set(value, input);
    return html("label", { class: "mode", for: input.id }, input, ` ${text}`);
  });
  return {
    element: html("fieldset", { class: "modes" }, html("legend", {}, legend), ...labels),
    check(mode) {
      const input = inputs.get(mode);
      if (input) input.checked = true;
    },
  };
}
