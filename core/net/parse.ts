/**
 * Reads the model description `petri-net-model/1`: the net, the module settings and the
 * trained parameters of a PETRA module, as one JSON document. Each section has its reader
 * (`read_*.ts`); this module re-exports the error and the writer, so one import serves both.
 *
 * @module
 */

import { describeModel, MODEL_DESCRIPTION_FORMAT } from "./describe_model.ts";
import {
  expected,
  isAbsent,
  isObject,
  type JsonObject,
  own,
  type Report,
  show,
} from "./json_checks.ts";
import { ModelDescriptionError, type ModelIssue } from "./model_description_error.ts";
import { quoteId } from "./quote_id.ts";
import { readInputSpec } from "./read_input_spec.ts";
import { readModule } from "./read_module.ts";
import { readNet } from "./read_net.ts";
import { readParameters } from "./read_parameters.ts";
import { checkSizes } from "./size_gate.ts";
import type { PetriModel } from "./types.ts";

export { describeModel, MODEL_DESCRIPTION_FORMAT, ModelDescriptionError, type ModelIssue };

/**
 * Validates a parsed `petri-net-model/1` JSON document and turns it into a {@link PetriModel}
 * with sorted id lists and `Map` tables. Keys the format does not describe are ignored; an
 * optional field that is `null` counts as absent (Python writes `None` so).
 *
 * @throws {ModelDescriptionError} listing every problem found, not only the first.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { describeModel, parseModelDescription } from "./parse.ts";
 * const model = parseModelDescription({
 *   format: "petri-net-model/1",
 *   net: {
 *     places: ["p_in", "p_out"],
 *     transitions: ["t_go"],
 *     arcs: [{ from: "p_in", to: "t_go" }, { from: "t_go", to: "p_out" }],
 *   },
 *   parameters: {
 *     arc_weights: [
 *       { from: "p_in", to: "t_go", weight: 1.2 },
 *       { from: "t_go", to: "p_out", weight: 0.9 },
 *     ],
 *     transition_thresholds: { t_go: 0.1 },
 *   },
 * });
 * assert.equal(model.module.sharpness, 1); // PETRA's default for an absent module
 * assert.deepEqual(parseModelDescription(describeModel(model)), model);
 * ```
 */
export function parseModelDescription(json: unknown): PetriModel {
  const issues: ModelIssue[] = [];
  const report: Report = (path, message) => void issues.push({ path, message });
  if (!isObject(json)) {
    report("(root)", `expected a model description object, got ${show(json)}`);
    throw new ModelDescriptionError(issues);
  }
  // Counting first: past a size limit, reading each entry would cost what the limit prevents.
  if (!checkSizes(json, report)) throw new ModelDescriptionError(issues);
  readFormat(json, report);
  const sidecar = readSidecar(json, report);
  const reading = readNet(own(json, "net"), report);
  const module = readModule(own(json, "module"), reading.net, report);
  const parameters = readParameters(own(json, "parameters"), reading, report);
  if (issues.length > 0) throw new ModelDescriptionError(issues);
  return { net: reading.net, module, parameters, ...sidecar };
}

type Sidecar = Pick<
  PetriModel,
  "scenarioName" | "scenarioDescription" | "petraVersion" | "inputMarkingSpec" | "inputValuesSpec"
>;

function readFormat(json: JsonObject, report: Report): void {
  const format = own(json, "format");
  if (format !== MODEL_DESCRIPTION_FORMAT) {
    expected(report, "format", quoteId(MODEL_DESCRIPTION_FORMAT), format);
  }
}

function readSidecar(json: JsonObject, report: Report): Sidecar {
  const scenarioName = readOptionalString(json, "scenario_name", report);
  const scenarioDescription = readOptionalString(json, "scenario_description", report);
  const petraVersion = readOptionalString(json, "petra_version", report);
  return {
    ...(scenarioName === undefined ? {} : { scenarioName }),
    ...(scenarioDescription === undefined ? {} : { scenarioDescription }),
    ...(petraVersion === undefined ? {} : { petraVersion }),
    inputMarkingSpec: readInputSpec(own(json, "input_marking_spec"), "input_marking_spec", report),
    inputValuesSpec: readInputSpec(own(json, "input_values_spec"), "input_values_spec", report),
  };
}

function readOptionalString(json: JsonObject, key: string, report: Report): string | undefined {
  const value = own(json, key);
  if (isAbsent(value)) return undefined;
  if (typeof value === "string") return value;
  expected(report, key, "a string", value);
  return undefined;
}
