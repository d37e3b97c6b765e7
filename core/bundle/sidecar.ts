/**
 * The sidecar `NAME.onnx.meta.json` of a bundle: built when a model is compiled, read and checked
 * when a bundle is loaded.
 *
 * @module
 */

import { describeModel } from "../net/describe_model.ts";
import { isObject, type JsonObject, own } from "../net/json_checks.ts";
import { quoteId } from "../net/quote_id.ts";
import { compareIds, type PetriModel } from "../net/types.ts";
import { sha256 } from "./sha256.ts";
import { PACKAGE_NAME, PACKAGE_VERSION } from "./version.ts";
import { BundleError, messageOf } from "./bundle_error.ts";

/** The sidecar's `format` value. */
export const BUNDLE_FORMAT = "petri-serve-bundle/1";
/** One input-spec entry as JSON: a constant, or a trace attribute read as a number. */
export type SidecarSpecEntry = { readonly constant: number } | { readonly attribute: string };

/** The sidecar: the fields PETRA's `.pt.meta.json` holds, then petri-serve's own. */
export interface Sidecar {
  /** Always {@link BUNDLE_FORMAT}. */
  readonly format: typeof BUNDLE_FORMAT;
  /** `null` when the model description has none. */
  readonly scenario_name: string | null;
  /** `null` when the model description has none. */
  readonly scenario_description: string | null;
  /** Place id -> how a trace gives that place's marking (read by log scoring). */
  readonly input_marking_spec: Readonly<Record<string, SidecarSpecEntry>>;
  /** Place id -> how a trace gives that place's value. */
  readonly input_values_spec: Readonly<Record<string, SidecarSpecEntry>>;
  /** The PETRA version the model was trained with, when the description states it. */
  readonly petra_version?: string;
  /** The package that compiled the bundle, as `name@version`, e.g. `@petri/serve@0.1.0`. */
  readonly producer: string;
  /** When the bundle was compiled: UTC, `YYYY-MM-DDTHH:MM:SSZ`. */
  readonly saved_at: string;
  /** SHA-256 of the `.onnx` file's bytes, lowercase hex. */
  readonly onnx_sha256: string;
}

/** Who compiled a bundle; recorded in the sidecar and the ONNX `producer_*` fields. */
export interface Producer {
  /** Package name, e.g. `@petri/serve`. */
  readonly name: string;
  /** Package version, e.g. `0.1.0`. */
  readonly version: string;
}

/** Options of {@link createSidecar} and {@link compileBundle}. */
export interface BundleOptions {
  /**
   * Who compiled the bundle.
   * @default {this package}
   */
  readonly producer?: Producer;
  /**
   * When the bundle was compiled; a fixed time makes bundles reproducible.
   * @default {new Date()}
   */
  readonly savedAt?: Date;
}

/**
 * Builds the sidecar of a compiled model (an object; {@link formatSidecar} writes its text).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { parseModelDescription } from "../net/parse.ts";
 * import { createSidecar } from "./sidecar.ts";
 * const petriModel = parseModelDescription(JSON.parse(
 *   await Deno.readTextFile("examples/rest_serving/rest_serving.model.json"),
 * ));
 * const sidecar = await createSidecar(petriModel, new Uint8Array([1, 2, 3]), {
 *   savedAt: new Date("2026-01-01T00:00:00Z"),
 * });
 * assert.deepEqual(sidecar.input_marking_spec, { p_application: { attribute: "risk_score" } });
 * ```
 */
export async function createSidecar(
  model: PetriModel,
  onnxBytes: Uint8Array,
  options: BundleOptions = {},
): Promise<Sidecar> {
  const description = describeModel(model) as Record<string, unknown>;
  const producer = options.producer ?? { name: PACKAGE_NAME, version: PACKAGE_VERSION };
  return {
    format: BUNDLE_FORMAT,
    scenario_name: model.scenarioName ?? null,
    scenario_description: model.scenarioDescription ?? null,
    input_marking_spec: description.input_marking_spec as Sidecar["input_marking_spec"],
    input_values_spec: description.input_values_spec as Sidecar["input_values_spec"],
    ...(model.petraVersion === undefined ? {} : { petra_version: model.petraVersion }),
    producer: `${producer.name}@${producer.version}`,
    saved_at: formatSavedAt(options.savedAt ?? new Date()),
    onnx_sha256: await sha256Hex(onnxBytes),
  };
}

/** The sidecar's file text: keys sorted (at every level), indent 2, trailing newline. */
export function formatSidecar(sidecar: Sidecar): string {
  return JSON.stringify(sortKeys(sidecar), null, 2) + "\n";
}

/**
 * Reads and checks a sidecar's text; `name` is how messages name the file.
 *
 * @throws {BundleError} naming the file and the field at fault.
 */
export function readSidecar(text: string, name: string): Sidecar {
  const json = parseJsonObject(text, name);
  const format = own(json, "format");
  if (format === undefined) {
    throw new BundleError(`${name} has no format field (expected ${quoteId(BUNDLE_FORMAT)})`);
  }
  if (format !== BUNDLE_FORMAT) {
    throw new BundleError(
      `${name} has format ${show(format)}, expected ${quoteId(BUNDLE_FORMAT)}`,
    );
  }
  const hash = own(json, "onnx_sha256");
  if (typeof hash !== "string" || !/^[0-9a-fA-F]{64}$/.test(hash)) {
    throw new BundleError(`${name} has no valid onnx_sha256 (64 hex digits), got ${show(hash)}`);
  }
  const text_ = (key: string, nullable: boolean): string | null | undefined => {
    const value = own(json, key);
    if (value === undefined || typeof value === "string") return value;
    if (value === null && nullable) return null;
    throw new BundleError(`${name} has ${key} ${show(value)}, expected a string`);
  };
  const spec = (key: string): Record<string, SidecarSpecEntry> => {
    const value = own(json, key);
    // PETRA reads a missing or null spec as empty.
    if (value === undefined || value === null) return {};
    if (isObject(value)) return value as Record<string, SidecarSpecEntry>;
    throw new BundleError(`${name} has ${key} ${show(value)}, expected an object`);
  };
  const petraVersion = text_("petra_version", false);
  return {
    format: BUNDLE_FORMAT,
    scenario_name: text_("scenario_name", true) ?? null,
    scenario_description: text_("scenario_description", true) ?? null,
    input_marking_spec: spec("input_marking_spec"),
    input_values_spec: spec("input_values_spec"),
    ...(typeof petraVersion === "string" ? { petra_version: petraVersion } : {}),
    producer: text_("producer", false) ?? "",
    saved_at: text_("saved_at", false) ?? "",
    onnx_sha256: hash.toLowerCase(),
  };
}

/**
 * Parses a sidecar file's text as a JSON object; `name` is how messages name the file.
 *
 * @throws {BundleError} when the text is not JSON, or not a JSON object.
 */
export function parseJsonObject(text: string, name: string): JsonObject {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new BundleError(`${name} is not valid JSON (${messageOf(error)})`);
  }
  if (!isObject(json)) throw new BundleError(`${name} does not hold a JSON object`);
  return json;
}

/** SHA-256 of `bytes`, lowercase hex: Web Crypto's, else ours (pages over plain HTTP have none). */
export async function sha256Hex(bytes: Uint8Array): Promise<string> {
  const subtle = globalThis.crypto?.subtle;
  const digest = subtle
    ? new Uint8Array(await subtle.digest("SHA-256", bytes as Uint8Array<ArrayBuffer>))
    : sha256(bytes);
  return [...digest].map((b) => b.toString(16).padStart(2, "0")).join("");
}

function formatSavedAt(date: Date): string {
  if (Number.isNaN(date.getTime())) throw new RangeError("savedAt is not a valid date");
  return date.toISOString().replace(/\.\d{3}Z$/, "Z");
}

/** A copy of a JSON value with object keys sorted by code point, as Python's `sort_keys`. */
function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (!isObject(value)) return value;
  const keys = Object.keys(value).sort(compareIds);
  return Object.fromEntries(keys.map((key) => [key, sortKeys(value[key])]));
}

function show(value: unknown): string {
  if (typeof value === "string") return quoteId(value);
  if (value === undefined) return "nothing";
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 40 ? `${text.slice(0, 37)}...` : text;
}
