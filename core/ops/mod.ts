/**
 * The operations: forward, anomaly, counterfactual and sensitivity, pure functions of a loaded
 * model, and their table (`operations.ts`), from which the routes, the schemas, the OpenAPI
 * document and the playground's forms are all derived.
 *
 * @module
 */

export { RequestError } from "./errors.ts";
export { type IdMap, type OpsModel, type Runner, runRows } from "./model.ts";
export { IdValues } from "./id_values.ts";
export { forward, type ForwardRequest, type ForwardResponse } from "./forward.ts";
export {
  anomaly,
  type AnomalyEvent,
  type AnomalyRequest,
  type AnomalyResponse,
  scoreTraces,
} from "./anomaly.ts";
export {
  CLOSING_WIDTH,
  counterfactual,
  type CounterfactualRequest,
  type CounterfactualResponse,
  DEFAULT_TOLERANCE,
  type FlipChannel,
  MAX_SEARCH_ROWS,
} from "./counterfactual.ts";
export { sensitivity, type SensitivityRequest, type SensitivityResponse } from "./sensitivity.ts";
export {
  type AnyOperation,
  type BadRequest,
  defineOperation,
  type Operation,
  type RequestOf,
} from "./operation.ts";
export {
  type OperationName,
  OPERATIONS,
  type Operations,
  type OperationTable,
  type RequestTypes,
} from "./operations.ts";
export { type SchemaKit, schemaKit } from "./schema_kit.ts";
export type { AnySchema, ObjectSchema, ZodModule } from "./zod_types.ts";
export { JSON_TEXT, jsonPieces, stringifyJson, type WritesJson } from "./json.ts";
