/**
 * A PETRA `.pt` bundle read into a model without running anything from the file: the zip,
 * a restricted pickle machine, the object graph to a `petri-net-model/1` description, then the
 * validation a `model.json` gets. Every failure is a `BundleError` naming the file.
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { readPtModel } from "./read_pt_model.ts";
 * const fixture = new URL("../../tests/fixtures/conformance/rest_serving/", import.meta.url);
 * const files = {
 *   pt: await Deno.readFile(new URL("model.pt", fixture)),
 *   sidecar: await Deno.readTextFile(new URL("model.pt.meta.json", fixture)),
 *   ptName: "model.pt",
 *   sidecarName: "model.pt.meta.json",
 * };
 * const { model, savedAt } = readPtModel(files);
 * assert.deepEqual(model.net.places, ["p_application", "p_approved", "p_declined"]);
 * assert.equal(savedAt?.toISOString(), "2026-11-21T13:06:09.000Z");
 * ```
 *
 * @module
 */

import { BundleError, invalidModelError } from "../bundle/bundle_error.ts";
import { ModelDescriptionError, parseModelDescription } from "../net/parse.ts";
import type { PetriModel } from "../net/types.ts";
import { describePetraModule, PetraShapeError } from "./describe_petra_module.ts";
import { readPetraSidecar } from "./read_petra_sidecar.ts";
import { PT_LIMITS, type PtLimits } from "./pt_limits.ts";
import { readTorchZip } from "./read_torch_zip.ts";
import { PickleError, unpickle } from "./unpickle.ts";

/** The two files of a PETRA bundle, with the names messages should use for them. */
export interface PtBundleFiles {
  /** The `.pt` file's bytes. */
  readonly pt: Uint8Array;
  /** PETRA's sidecar text (`NAME.pt.meta.json`). */
  readonly sidecar: string;
  /** How messages name the `.pt` file. */
  readonly ptName: string;
  /** How messages name the sidecar. */
  readonly sidecarName: string;
}

/** What {@link readPtModel} read. */
export interface PtModel {
  /** The validated model, as `parseModelDescription` returns it for a `model.json`. */
  readonly model: PetriModel;
  /** The `petri-net-model/1` description read from the file (with PETRA's extra fields). */
  readonly description: Record<string, unknown>;
  /** When PETRA saved the model, from its sidecar (absent when it has none). */
  readonly savedAt?: Date;
}

/**
 * Reads a PETRA bundle into a validated model.
 *
 * @throws {BundleError} naming the `.pt` file or its sidecar and what is wrong: not a zip,
 * truncated, a limit crossed, a pickle opcode or global outside the allowed set, a graph that
 * is not a PETRA module, or a model that fails validation.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { readPtModel } from "./read_pt_model.ts";
 * const files = { pt: new Uint8Array(4), sidecar: "{}", ptName: "x.pt", sidecarName: "x.pt.meta.json" };
 * assert.throws(() => readPtModel(files), { message: /^Cannot load bundle: x\.pt / });
 * ```
 */
export function readPtModel(files: PtBundleFiles, limits: PtLimits = PT_LIMITS): PtModel {
  const { ptName, sidecarName } = files;
  const sidecar = readPetraSidecar(files.sidecar, sidecarName);
  const zip = readTorchZip(files.pt, ptName, limits);
  let graph: object;
  try {
    graph = describePetraModule(unpickle(zip.pickle, limits), zip.storages);
  } catch (error) {
    if (error instanceof PickleError || error instanceof PetraShapeError) {
      throw new BundleError(`${ptName} is not a PETRA model: ${error.message}`, { cause: error });
    }
    throw error;
  }
  const description: Record<string, unknown> = {
    ...graph,
    ...pick(sidecar, "scenario_name"),
    ...pick(sidecar, "scenario_description"),
    ...pick(sidecar, "input_marking_spec"),
    ...pick(sidecar, "input_values_spec"),
    ...pick(sidecar, "petra_version"),
  };
  let model: PetriModel;
  try {
    model = parseModelDescription(description);
  } catch (error) {
    if (!(error instanceof ModelDescriptionError)) throw error;
    throw invalidModelError(error, sidecarName, ptName, "holds an invalid model");
  }
  const savedAt = sidecar.saved_at === undefined ? undefined : new Date(sidecar.saved_at);
  return {
    model,
    description,
    ...(savedAt !== undefined && !Number.isNaN(savedAt.getTime()) ? { savedAt } : {}),
  };
}

function pick<K extends string>(from: Partial<Record<K, unknown>>, key: K): object {
  return from[key] === undefined ? {} : { [key]: from[key] };
}
