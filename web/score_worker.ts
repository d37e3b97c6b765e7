/**
 * The playground's scoring worker: scores a whole event log off the page's thread with the
 * code `cli.ts batch` runs (the same readers, specs and batch pipeline). The scores stay here;
 * the page asks for table pages, the histogram, single traces and downloads. The worker makes
 * no request but for ORT's own files.
 *
 * @example
 * ```ts
 * // Bundled by tools/build_web.ts into score_worker.js; the page starts it with
 * // new Worker(new URL("./score_worker.js", import.meta.url), { type: "module" })
 * import "./score_worker.ts";
 * ```
 *
 * @module
 */

import { messageOf, type Model } from "../core/bundle/mod.ts";
import {
  ByteCounter,
  entryLayout,
  measureBatchSize,
  readingPasses,
  scoreBatches,
} from "../core/log_scoring/mod.ts";
import {
  chooseColumns,
  csvRowBatches,
  decodeText,
  detectFormat,
  readBytes,
  readTraces,
  TraceReadError,
} from "../core/event_log/mod.ts";
import { workerOrt } from "../core/runtime/worker/mod.ts";
import { openBundle } from "./open_bundle.ts";
import { ResultStore } from "./result_store.ts";
import type {
  Answers,
  CsvColumns,
  FromScoreWorker,
  LogFormat,
  OpenedModel,
  Progress,
  ScoreSummary,
  ToScoreWorker,
} from "./score_protocol.ts";

/** Batches in flight, as `cli.ts batch` runs them. */
const PIPELINE_DEPTH = 2;
/** How often progress is posted. */
const PROGRESS_MS = 100;

/** The worker's side of `postMessage`. */
interface WorkerScope {
  postMessage(message: FromScoreWorker): void;
  addEventListener(type: "message", listener: (event: MessageEvent<ToScoreWorker>) => void): void;
}

const scope = globalThis as unknown as WorkerScope;

let model: Model | undefined;
let batchSize = 0;
let store: ResultStore | undefined;
let running: AbortController | undefined;

scope.addEventListener("message", ({ data }) => {
  if (data.op === "cancel") {
    running?.abort(new Cancelled());
    return;
  }
  void answer(data);
});

async function answer(request: Exclude<ToScoreWorker, { op: "cancel" }>): Promise<void> {
  const progress = (value: Progress) =>
    scope.postMessage({ op: "progress", id: request.id, progress: value });
  try {
    const value = await handle(request, progress);
    scope.postMessage({ op: "done", id: request.id, value });
  } catch (error) {
    scope.postMessage({
      op: "failed",
      id: request.id,
      message: messageOf(error),
      cancelled: error instanceof Cancelled,
    });
  }
}

async function handle(
  request: Exclude<ToScoreWorker, { op: "cancel" }>,
  progress: (value: Progress) => void,
): Promise<Answers[keyof Answers]> {
  switch (request.op) {
    case "open":
      return await open(request);
    case "columns":
      return await csvColumns(request.file, request.format);
    case "score":
      return await score(request, progress);
    case "rows": {
      const results = scored();
      const order = results.order(request.order);
      const end = Math.min(order.length, request.offset + request.limit);
      const rows = [];
      for (let at = request.offset; at < end; at++) rows.push(results.trace(order[at]!));
      return { total: order.length, rows };
    }
    case "trace":
      return scored().trace(request.index);
    case "histogram":
      return scored().histogram(request.bins);
    case "download":
      return download(request.format, progress);
  }
}

/**
 * Opens the bundle with its session in a worker of its own (`ort_worker.ts`), as
 * `cli.ts batch` does: this worker reads and packs the next batch while that one runs the model.
 */
async function open(
  request: Extract<ToScoreWorker, { op: "open" }>,
): Promise<OpenedModel> {
  const query = `?backend=${request.backend}&assets=${encodeURIComponent(request.assets)}`;
  const ort = workerOrt(() =>
    new Worker(new URL(`./ort_worker.js${query}`, import.meta.url), {
      type: "module",
      name: "petri-serve ORT",
    })
  );
  const opened = await openBundle(ort, request.files, {
    sessionOptions: { executionProviders: [request.backend] },
  });
  const previous = model;
  model = opened;
  store = undefined;
  await previous?.[Symbol.asyncDispose]();
  batchSize = (await measureBatchSize(opened.session)).size;
  return { batchSize };
}

/** The header row of a CSV log and the columns `batch` picks by default. */
async function csvColumns(file: File, format: LogFormat): Promise<CsvColumns> {
  const { gzip } = detectFormat(file.name, format === "auto" ? "auto" : "csv");
  const name = file.name;
  const text = decodeText(readBytes(file.stream(), name, { gzip }), name);
  let header: string[] | undefined;
  for await (const batch of csvRowBatches(text, name)) {
    header = batch.rows.find((row) => !(row.length === 1 && row[0] === ""));
    if (header) break; // stops the reading: the rest of the file is not read
  }
  if (!header) throw new TraceReadError(`${name}: the file is empty (it has no header row)`);
  const columns: CsvColumns = { header, caseColumn: undefined, activityColumn: undefined };
  try {
    const choice = chooseColumns(header, {}, name);
    return { ...columns, caseColumn: choice.caseColumn, activityColumn: choice.activityColumn };
  } catch {
    const present = new Set(header);
    const found = (a: string, b: string) => (present.has(a) ? a : present.has(b) ? b : undefined);
    return {
      ...columns,
      caseColumn: found("case_id", "case:concept:name"),
      activityColumn: found("activity", "concept:name"),
    };
  }
}

async function score(
  request: Extract<ToScoreWorker, { op: "score" }>,
  progress: (value: Progress) => void,
): Promise<ScoreSummary> {
  const loaded = model;
  if (!loaded) throw new Error("No model is loaded in the scoring worker");
  running?.abort(new Cancelled());
  const stop = new AbortController();
  running = stop;
  store = undefined;
  const { file } = request;
  const name = file.name;
  const format = detectFormat(name, request.format).format;
  const counter = new ByteCounter(file.size, readingPasses(format));
  const notes: string[] = [];
  const traces = readTraces(() => counter.count(stoppable(file.stream(), stop.signal)), {
    name,
    format: request.format,
    caseColumn: request.caseColumn || undefined,
    activityColumn: request.activityColumn || undefined,
    onColumns: (choice) => choice.note && notes.push(choice.note),
  });
  const started = performance.now();
  let results: ResultStore | undefined;
  const report = () =>
    progress({
      traces: results?.count ?? 0,
      fraction: counter.fraction,
      seconds: (performance.now() - started) / 1000,
    });
  const timer = setInterval(report, PROGRESS_MS);
  try {
    const tally = await scoreBatches(loaded, traces, (batch) => {
      results ??= new ResultStore(batch.scored.ids);
      results.add(batch);
    }, { batchSize, depth: PIPELINE_DEPTH, signal: stop.signal });
    if (tally.read === 0 || !results) {
      throw new TraceReadError(`${name}: no traces parsed from the input file`);
    }
    report();
    store = results;
    return {
      traces: results.count,
      errors: results.errors,
      ids: results.ids,
      attributes: results.attributeKeys(),
      seconds: (performance.now() - started) / 1000,
      notes,
      storeBytes: results.byteSize,
    };
  } catch (error) {
    if (stop.signal.aborted) throw stop.signal.reason;
    throw error;
  } finally {
    clearInterval(timer);
    if (running === stop) running = undefined;
  }
}

function download(
  format: Extract<ToScoreWorker, { op: "download" }>["format"],
  progress: (value: Progress) => void,
): Blob {
  const results = scored();
  const started = performance.now();
  const parts: Blob[] = [];
  const written = (traces: number) =>
    progress({ traces, fraction: undefined, seconds: (performance.now() - started) / 1000 });
  const pieces = format === "csv"
    ? results.csvText(written)
    : results.entryText(entryLayout(format), written);
  for (const piece of pieces) parts.push(new Blob([piece]));
  const type = format === "csv"
    ? "text/csv"
    : format === "jsonl"
    ? "application/x-ndjson"
    : "application/json";
  return new Blob(parts, { type });
}

function scored(): ResultStore {
  if (!store) throw new Error("No log has been scored yet");
  return store;
}

/** Passes `stream` through until `signal` aborts, then fails it (the reader stops at once). */
function stoppable(
  stream: ReadableStream<Uint8Array>,
  signal: AbortSignal,
): ReadableStream<Uint8Array> {
  return stream.pipeThrough(
    new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, controller) {
        if (signal.aborted) controller.error(signal.reason);
        else controller.enqueue(chunk);
      },
    }),
    { signal },
  );
}

/** The reason a cancelled run stops with. */
class Cancelled extends Error {
  constructor() {
    super("Scoring was cancelled");
  }
}
