/**
 * PETRA's own sidecar `NAME.pt.meta.json`, read leniently (unknown keys ignored); its specs
 * are validated with the model.
 *
 * @module
 */

import { BundleError } from "../bundle/bundle_error.ts";
import { parseJsonObject } from "../bundle/sidecar.ts";
import { own } from "../net/json_checks.ts";

/** The fields of a PETRA sidecar that petri-serve uses. */
export interface PetraSidecar {
  /** The scenario's name, when recorded. */
  readonly scenario_name?: string;
  /** The scenario's description, when recorded. */
  readonly scenario_description?: string;
  /** Place id -> how a trace gives its marking (validated later, with the net). */
  readonly input_marking_spec?: unknown;
  /** Place id -> how a trace gives its value. */
  readonly input_values_spec?: unknown;
  /** The PETRA version that saved the model. */
  readonly petra_version?: string;
  /** When PETRA saved the model (`YYYY-MM-DDTHH:MM:SSZ`). */
  readonly saved_at?: string;
}

/**
 * Parses the sidecar's text.
 *
 * @throws {BundleError} naming the sidecar when it is not a JSON object, a text field is not a
 * string, or it is a petri-serve `.onnx` sidecar instead.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { readPetraSidecar } from "./read_petra_sidecar.ts";
 * assert.equal(readPetraSidecar('{"scenario_name": "demo"}', "m.pt.meta.json").scenario_name, "demo");
 * assert.throws(() => readPetraSidecar("not json", "m.pt.meta.json"), { message: /m\.pt\.meta\.json/ });
 * ```
 */
export function readPetraSidecar(text: string, name: string): PetraSidecar {
  const json = parseJsonObject(text, name);
  if (own(json, "onnx_sha256") !== undefined) {
    throw new BundleError(`${name} is a petri-serve .onnx sidecar, not PETRA's .pt sidecar`);
  }
  const result: Record<string, unknown> = {};
  for (const key of ["scenario_name", "scenario_description", "petra_version", "saved_at"]) {
    const value = own(json, key);
    if (value === undefined || value === null) continue;
    if (typeof value !== "string") {
      throw new BundleError(`${name} has ${key} of type ${typeof value}, expected a string`);
    }
    result[key] = value;
  }
  for (const key of ["input_marking_spec", "input_values_spec"]) {
    const value = own(json, key);
    if (value !== undefined && value !== null) result[key] = value;
  }
  return result as PetraSidecar;
}
