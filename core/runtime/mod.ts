/**
 * The runtime: ORT sessions of a compiled net, behind one queue. {@link ModelSession} is the
 * served model's session (`session.ts`); the queue batches and bounds runs (`scheduler.ts`);
 * the codec packs rows into the graph contract's tensors (`codec.ts`); a failed session heals
 * (`healing.ts`); `worker/` runs ORT off the serving thread.
 *
 * @module
 */

export {
  IN_PLACE_MAX_MS,
  IN_PLACE_MAX_ROWS,
  ModelSession,
  type ModelSessionOptions,
  type RunRecord,
} from "./session.ts";
export {
  type BatchInfo,
  DEFAULT_MAX_BATCH_ROWS,
  type Execute,
  type QueueLimits,
  type RunOptions,
  Scheduler,
  type SchedulerOptions,
} from "./scheduler.ts";
export {
  allocateInputs,
  type IndexedColumns,
  type InputRow,
  type NetColumns,
  type OutputRow,
  type PackedInputs,
  type PackedOutputs,
  packRows,
  unpackRows,
} from "./codec.ts";
export { type BusyReason, messageOf, ModelBusyError, RunCancelledError } from "./errors.ts";
export type { HealingPolicy, HealthEvent, HealthState } from "./healing.ts";
export type { OrtModule, OrtSession, OrtSessionOptions, OrtTensor } from "./ort_module.ts";
