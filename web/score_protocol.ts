/**
 * The messages between the page and its scoring worker. Every request carries an `id` that its
 * `done`, `failed` and `progress` messages echo; the log travels as the picked `File` (a
 * handle the worker streams), never as its bytes.
 *
 * @module
 */

import type { AnyBundleFiles } from "../core/pt/mod.ts";
import type { TraceFormat } from "../core/event_log/mod.ts";
import type { BackendName } from "./backends.ts";
import type { ScoreHistogram, StoredTrace, TableOrder } from "./result_store.ts";

/** The log formats the page offers; `auto` tells them from the file name. */
export const LOG_FORMATS = ["auto", "xes", "csv", "json", "jsonl"] as const;

/** One of {@link LOG_FORMATS}. */
export type LogFormat = "auto" | TraceFormat;

/** The download formats: `batch`'s two and a spreadsheet's. */
export const DOWNLOAD_FORMATS = ["json", "jsonl", "csv"] as const;

/** One of {@link DOWNLOAD_FORMATS}. */
export type DownloadFormat = (typeof DOWNLOAD_FORMATS)[number];

/** A request from the page. */
export type ToScoreWorker =
  | {
    /** Loads a bundle on a backend (the worker's own session of the page's model). */
    readonly op: "open";
    readonly id: number;
    readonly files: AnyBundleFiles;
    readonly backend: BackendName;
    /** The directory holding `ort/` (absolute URL). */
    readonly assets: string;
  }
  | {
    /** Reads a CSV log's header row and the columns `batch` would pick by default. */
    readonly op: "columns";
    readonly id: number;
    readonly file: File;
    readonly format: LogFormat;
  }
  | {
    /** Scores a log; the results replace the previous ones. */
    readonly op: "score";
    readonly id: number;
    readonly file: File;
    readonly format: LogFormat;
    readonly caseColumn?: string | undefined;
    readonly activityColumn?: string | undefined;
  }
  | { readonly op: "cancel" }
  | {
    /** A page of the table. */
    readonly op: "rows";
    readonly id: number;
    readonly order: TableOrder;
    readonly offset: number;
    readonly limit: number;
  }
  | { readonly op: "trace"; readonly id: number; readonly index: number }
  | { readonly op: "histogram"; readonly id: number; readonly bins: number }
  | { readonly op: "download"; readonly id: number; readonly format: DownloadFormat };

/** A CSV log's header and `batch`'s default choice of columns (undefined: not found). */
export interface CsvColumns {
  readonly header: readonly string[];
  readonly caseColumn: string | undefined;
  readonly activityColumn: string | undefined;
}

/** The model the worker opened. */
export interface OpenedModel {
  /** Traces per model run, measured as `batch --batch-size auto` measures it. */
  readonly batchSize: number;
}

/** What a finished scoring run reports. */
export interface ScoreSummary {
  /** Traces scored or failed. */
  readonly traces: number;
  readonly errors: number;
  /** The scored transition ids, in the store's order. */
  readonly ids: readonly string[];
  /** The keys of the traces' attributes, sorted. */
  readonly attributes: readonly string[];
  /** Seconds from the start of reading to the last trace stored. */
  readonly seconds: number;
  /** Lines for the user (pm4py's column names used, spec entries naming no place). */
  readonly notes: readonly string[];
  /** Bytes the results take in the worker's memory. */
  readonly storeBytes: number;
}

/** A page of the table. */
export interface RowsPage {
  /** Traces the filter lets through. */
  readonly total: number;
  readonly rows: readonly StoredTrace[];
}

/** How a scoring run or a download is going. */
export interface Progress {
  /** Traces done (stored, or written). */
  readonly traces: number;
  /** How far the reading of the file is, 0 to 1 (undefined for a download or an empty file). */
  readonly fraction: number | undefined;
  /** Seconds since the start. */
  readonly seconds: number;
}

/** What each request answers. */
export interface Answers {
  readonly open: OpenedModel;
  readonly columns: CsvColumns;
  readonly score: ScoreSummary;
  readonly rows: RowsPage;
  readonly trace: StoredTrace;
  readonly histogram: ScoreHistogram;
  readonly download: Blob;
}

/** A message from the worker. */
export type FromScoreWorker =
  | { readonly op: "done"; readonly id: number; readonly value: unknown }
  | {
    readonly op: "failed";
    readonly id: number;
    readonly message: string;
    /** The request was cancelled. */
    readonly cancelled: boolean;
  }
  | { readonly op: "progress"; readonly id: number; readonly progress: Progress };
