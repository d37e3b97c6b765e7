/**
 * Log scoring: the traces of an event log scored in batches and written, in input order, as
 * PETRA's `score` writes them. `cli.ts batch`, `POST /batch` and the playground all drive it.
 *
 * @module
 */

export { type LogTally, scoreLog, type ScoreLogOptions, type Tally } from "./score_log.ts";
export {
  scoreBatches,
  type ScoreBatchesOptions,
  type ScoredBatch,
  type TraceFilter,
} from "./score_batches.ts";
export {
  type EntryLayout,
  entryLayout,
  type EntryScore,
  OUTPUT_FORMATS,
  type OutputFormat,
} from "./entry_layout.ts";
export { type EntrySink, textSink } from "./text_sink.ts";
export { type BatchSizeMeasurement, measureBatchSize } from "./measure_batch_size.ts";
export { ByteCounter, readingPasses } from "./byte_counter.ts";
export { pythonFloat, pythonString } from "./python_json.ts";
