/**
 * Reads a request's zod schema (`core/schemas/mod.ts`) into the fields of a form: which control
 * each field needs, its description, default and bounds. The playground's forms are built from
 * this, so they follow the same schemas as the server's validation and OpenAPI document.
 *
 * | schema                                   | field kind | control                          |
 * | ---------------------------------------- | ---------- | -------------------------------- |
 * | `record(string, number)`                 | `idMap`    | one number per place of the net  |
 * | other `record`s                          | `json`     | a JSON object                    |
 * | `string` named `*_place`/`*_transition`  | `id`       | a choice of the net's ids        |
 * | `enum`                                   | `choice`   | a choice of the enum's values    |
 * | `tuple` of numbers                       | `numbers`  | one number per item              |
 * | `number`                                 | `number`   | a number                         |
 * | `array` of objects with a `string` field | `list`     | rows of that field, or JSON      |
 *
 * @example
 * ```ts
 * import * as z from "zod";
 * import { createSchemas } from "../core/schemas/mod.ts";
 * import { describeRequest } from "./form_fields.ts";
 * const form = describeRequest(createSchemas(z).requests.counterfactual);
 * form.fields.map((f) => f.kind);
 * // ["idMap", "idMap", "id", "id", "choice", "numbers", "number"]
 * ```
 *
 * @module
 */

/** The parts of a zod 4 schema this module reads. */
export interface SchemaLike {
  readonly def: SchemaDef;
  meta(): Record<string, unknown> | undefined;
}

interface SchemaDef {
  readonly type: string;
  readonly innerType?: SchemaLike;
  readonly defaultValue?: unknown;
  readonly shape?: Readonly<Record<string, SchemaLike>>;
  readonly valueType?: SchemaLike;
  readonly element?: SchemaLike;
  readonly items?: readonly SchemaLike[];
  readonly entries?: Readonly<Record<string, string | number>>;
  readonly checks?: readonly { readonly _zod: { readonly def: CheckDef } }[];
}

interface CheckDef {
  readonly check: string;
  readonly value?: unknown;
  readonly inclusive?: boolean;
}

/** What every field has. */
interface FieldBase {
  /** The JSON key. */
  readonly name: string;
  /** The schema's description (the server's OpenAPI document shows the same text). */
  readonly description: string;
  /** False when the field may be left out (it is optional or has a default). */
  readonly required: boolean;
  /** The default applied when the field is left out. */
  readonly defaultValue?: unknown;
}

/** A map of numbers keyed by place id (a marking or a value map). */
export interface IdMapField extends FieldBase {
  readonly kind: "idMap";
  /** True when `null` is allowed (then an empty map is sent as absent). */
  readonly nullable: boolean;
}

/** Any other value, entered as JSON. */
export interface JsonField extends FieldBase {
  readonly kind: "json";
}

/** One id of the net; `domain` says which set it must belong to. */
export interface IdField extends FieldBase {
  readonly kind: "id";
  readonly domain: "place" | "transition";
}

/** A free string. */
export interface TextField extends FieldBase {
  readonly kind: "text";
}

/** One of a fixed set of strings. */
export interface ChoiceField extends FieldBase {
  readonly kind: "choice";
  readonly options: readonly string[];
}

/** A fixed-length list of numbers, e.g. `[lo, hi]`. */
export interface NumbersField extends FieldBase {
  readonly kind: "numbers";
  readonly count: number;
}

/** One number, with its lower bound when the schema has one. */
export interface NumberField extends FieldBase {
  readonly kind: "number";
  readonly min?: { readonly value: number; readonly inclusive: boolean };
}

/** A list of objects, typed one row per item (its `itemField` string) or pasted as JSON. */
export interface ListField extends FieldBase {
  readonly kind: "list";
  /** The item's string field that a row edits, e.g. an event's `name`. */
  readonly itemField: string;
  /** That field's description. */
  readonly itemDescription: string;
}

/** One field of a request form. */
export type FormField =
  | IdMapField
  | JsonField
  | IdField
  | TextField
  | ChoiceField
  | NumbersField
  | NumberField
  | ListField;

/** A request form: the schema's description and example, and its fields in schema order. */
export interface RequestForm {
  readonly description: string;
  /** The schema's example request (JSON), used to pre-fill the form when it fits the net. */
  readonly example?: unknown;
  readonly fields: readonly FormField[];
}

/**
 * Describes the form of a request schema (a zod object).
 *
 * @throws {TypeError} when the schema is not an object.
 */
export function describeRequest(schema: SchemaLike): RequestForm {
  const top = unwrap(schema);
  const shape = top.schema.def.shape;
  if (top.schema.def.type !== "object" || shape === undefined) {
    throw new TypeError(
      `Cannot build a form: the schema is a ${top.schema.def.type}, not an object`,
    );
  }
  return {
    description: top.description,
    ...(top.example === undefined ? {} : { example: top.example }),
    fields: Object.entries(shape).map(([name, field]) => describeField(name, field)),
  };
}

function describeField(name: string, schema: SchemaLike): FormField {
  const { schema: inner, description, optional, nullable, defaultValue, hasDefault } = unwrap(
    schema,
  );
  const base = {
    name,
    description,
    required: !optional && !hasDefault,
    ...(hasDefault ? { defaultValue } : {}),
  };
  const def = inner.def;
  switch (def.type) {
    case "record":
      if (def.valueType && unwrap(def.valueType).schema.def.type === "number") {
        return { ...base, kind: "idMap", nullable };
      }
      return { ...base, kind: "json" };
    case "string":
      if (name.endsWith("_place")) return { ...base, kind: "id", domain: "place" };
      if (name.endsWith("_transition")) return { ...base, kind: "id", domain: "transition" };
      return { ...base, kind: "text" };
    case "enum":
      return { ...base, kind: "choice", options: Object.values(def.entries ?? {}).map(String) };
    case "tuple": {
      const items = def.items ?? [];
      if (items.every((item) => unwrap(item).schema.def.type === "number")) {
        return { ...base, kind: "numbers", count: items.length };
      }
      return { ...base, kind: "json" };
    }
    case "number": {
      const bound = (def.checks ?? []).map((c) => c._zod.def).find((c) =>
        c.check === "greater_than" && typeof c.value === "number"
      );
      return bound
        ? {
          ...base,
          kind: "number",
          min: { value: bound.value as number, inclusive: bound.inclusive === true },
        }
        : { ...base, kind: "number" };
    }
    case "array": {
      const item = def.element ? unwrap(def.element).schema : undefined;
      const text = Object.entries(item?.def.shape ?? {}).find(([, field]) =>
        unwrap(field).schema.def.type === "string"
      );
      if (text) {
        return {
          ...base,
          kind: "list",
          itemField: text[0],
          itemDescription: unwrap(text[1]).description,
        };
      }
      return { ...base, kind: "json" };
    }
    default:
      return { ...base, kind: "json" };
  }
}

interface Unwrapped {
  readonly schema: SchemaLike;
  readonly description: string;
  readonly example: unknown;
  readonly optional: boolean;
  readonly nullable: boolean;
  readonly hasDefault: boolean;
  readonly defaultValue: unknown;
}

/** Strips default, optional, nullable and readonly wrappers; the outermost metadata wins. */
function unwrap(schema: SchemaLike): Unwrapped {
  let current = schema;
  let description: string | undefined;
  let example: unknown;
  let optional = false;
  let nullable = false;
  let hasDefault = false;
  let defaultValue: unknown;
  for (;;) {
    const meta = current.meta() ?? {};
    if (description === undefined && typeof meta.description === "string") {
      description = meta.description;
    }
    if (example === undefined && meta.example !== undefined) example = meta.example;
    const def = current.def;
    if (def.type === "default" || def.type === "prefault") {
      if (!hasDefault) defaultValue = def.defaultValue;
      hasDefault = true;
    } else if (def.type === "optional") {
      optional = true;
    } else if (def.type === "nullable") {
      nullable = true;
    } else if (def.type !== "readonly") {
      break;
    }
    if (!def.innerType) break;
    current = def.innerType;
  }
  return {
    schema: current,
    description: description ?? "",
    example,
    optional,
    nullable,
    hasDefault,
    defaultValue,
  };
}
