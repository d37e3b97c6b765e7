/**
 * Reads the `module` section of a model description, with PETRA's defaults for absent
 * settings.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { readModule } from "./read_module.ts";
 * import { readNet } from "./read_net.ts";
 * const report = (path: string, message: string) => assert.fail(`${path}: ${message}`);
 * const { net } = readNet({
 *   places: ["p_in", "p_out"],
 *   transitions: ["t_go"],
 *   arcs: [{ from: "p_in", to: "t_go" }, { from: "t_go", to: "p_out" }],
 * }, report);
 * const module = readModule({ sharpness: 4 }, net, report);
 * assert.deepEqual(module, { sharpness: 4, numSteps: 0, firing: "sigmoid", routing: "independent" });
 * ```
 *
 * @module
 */

import {
  expected,
  isAbsent,
  isFloat32,
  isIntegerAtLeast,
  isObject,
  type JsonObject,
  keyPath,
  own,
  type Report,
} from "./json_checks.ts";
import { beyondFloat32, isFiniteFloat32, MODEL_LIMITS } from "./model_limits.ts";
import { quoteId } from "./quote_id.ts";
import { findCycle, netStructure } from "./structure.ts";
import type { Firing, ModuleSettings, PetriNet, Routing } from "./types.ts";

const FIRINGS: readonly Firing[] = ["sigmoid", "ste"];
const ROUTINGS: readonly Routing[] = ["independent", "softmax"];

const DEFAULT_MODULE: ModuleSettings = {
  sharpness: 1.0,
  numSteps: 0,
  firing: "sigmoid",
  routing: "independent",
};

/** Reads `module` with PETRA's defaults; a net with `num_steps` 0 must have no cycle. */
export function readModule(value: unknown, net: PetriNet, report: Report): ModuleSettings {
  if (!isAbsent(value) && !isObject(value)) {
    expected(report, "module", "an object {sharpness, num_steps, firing, routing}", value);
  }
  const src = isObject(value) ? value : {};
  const d = DEFAULT_MODULE;
  const settings: ModuleSettings = {
    sharpness: readSetting(
      src,
      "sharpness",
      "a finite float32 number",
      isFloat32,
      d.sharpness,
      report,
    ),
    numSteps: readSetting(src, "num_steps", STEP_COUNT, isStepCount, d.numSteps, report),
    firing: readSetting(src, "firing", oneOf(FIRINGS), isMember(FIRINGS), d.firing, report),
    routing: readSetting(src, "routing", oneOf(ROUTINGS), isMember(ROUTINGS), d.routing, report),
  };
  // An invalid num_steps is already reported; a cycle message would only add noise.
  const steps = own(src, "num_steps");
  if (settings.numSteps === 0 && (isAbsent(steps) || isStepCount(steps))) checkAcyclic(net, report);
  checkScaledRates(net, settings.sharpness, report);
  return settings;
}

const STEP_COUNT = `an integer from 0 to ${MODEL_LIMITS.maxNumSteps}`;

/** The graph multiplies by `rate · sharpness` in float32: it must fit. */
function checkScaledRates(net: PetriNet, sharpness: number, report: Report): void {
  for (const [t, rate] of net.rates) {
    const scale = rate * sharpness;
    if (isFiniteFloat32(scale)) continue;
    report(
      keyPath("net.rates", t),
      `rate ${rate} times module.sharpness ${sharpness} is ${beyondFloat32(scale)}`,
    );
  }
}

/** Reads one optional module setting; absent or `null` gives `fallback`. */
function readSetting<T>(
  src: JsonObject,
  key: string,
  what: string,
  valid: (value: unknown) => value is T,
  fallback: T,
  report: Report,
): T {
  const value = own(src, key);
  if (isAbsent(value)) return fallback;
  if (valid(value)) return value;
  expected(report, `module.${key}`, what, value);
  return fallback;
}

function isStepCount(value: unknown): value is number {
  return isIntegerAtLeast(value, 0) && value <= MODEL_LIMITS.maxNumSteps;
}

function isMember<T extends string>(choices: readonly T[]): (value: unknown) => value is T {
  return (value): value is T => choices.includes(value as T);
}

function oneOf(choices: readonly string[]): string {
  return `one of ${choices.map(quoteId).join(", ")}`;
}

/** Acyclic mode evaluates in topological order, which a cycle does not have. */
function checkAcyclic(net: PetriNet, report: Report): void {
  const cycle = findCycle(net, netStructure(net));
  if (cycle === undefined) return;
  report(
    "module.num_steps",
    `the net has a cycle ${cycle.map(quoteId).join(" -> ")}, which num_steps 0 (acyclic mode) ` +
      "cannot evaluate: use num_steps > 0",
  );
}
