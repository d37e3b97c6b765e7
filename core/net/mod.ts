/**
 * The net: the Petri-net model types, the model-description parser and validator, and the
 * structural queries (presets, postsets, source places) every later stage reads.
 *
 * @module
 */

export type {
  Arc,
  ArcOutputValue,
  Firing,
  GuardOp,
  InhibitorArc,
  InputSpec,
  InputSpecEntry,
  ModuleSettings,
  Parameters,
  PetriModel,
  PetriNet,
  Routing,
  StructuralGuard,
} from "./types.ts";
export { arcKey, compareIds } from "./types.ts";
export { type NetStructure, netStructure } from "./structure.ts";
export {
  describeModel,
  MODEL_DESCRIPTION_FORMAT,
  ModelDescriptionError,
  type ModelIssue,
  parseModelDescription,
} from "./parse.ts";
export { MODEL_LIMITS, ModelLimitError, type ModelLimits } from "./model_limits.ts";
export { quoteId } from "./quote_id.ts";
export { DescriptionFileError, readDescriptionFile } from "./read_description_file.ts";
