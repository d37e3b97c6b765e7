/**
 * `cli.ts batch BUNDLE --traces LOG`: scores every trace of an event log (XES, CSV, JSON or
 * JSONL, each also gzipped; a file, an `http(s)` URL, or `-` for standard input) with a bundle
 * and writes the list PETRA's `score` command writes: one entry per trace, in input order,
 * with `attributes`, `per_transition_residuals`, `trace_index` and `trace_score`, or
 * `attributes`, `error` and `trace_index` for a trace whose input specs cannot be resolved (a
 * missing attribute, or one that is not a number).
 *
 * The log is streamed through a pipeline ({@link scoreLog}): reading and parsing, scoring and
 * writing overlap, a batch at a time, so memory stays flat however large the file. The text
 * is laid out byte for byte as Python's `json.dump(entries, indent=2, sort_keys=True)` lays it
 * out, plus a final newline (`--output-format jsonl`: one compact entry a line); non-finite
 * numbers are written as `null`. `--shard I/N` writes a part for `cli.ts merge`: of an
 * uncompressed XES, JSON or JSONL log, only its share of the bytes is read (range sharding,
 * `cli/batch/log_plan.ts`); of other logs, every N-th trace is scored (modulo sharding).
 * `--output` appears only when complete (see {@link AtomicFile}).
 *
 * Permissions: `--allow-read`, plus `--allow-write` when `--output` is given, plus
 * `--allow-net=HOST` for a log at a URL, plus `--allow-ffi` with `--runtime native`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { batchCommand } from "./mod.ts";
 * const dir = await Deno.makeTempDir();
 * const log = "examples/rest_serving/applications.json";
 * const code = await batchCommand.run(
 *   ["examples/rest_serving", "--traces", log, "-o", `${dir}/scores.json`, "--quiet"],
 *   { out: () => {}, err: () => {} }, // err gets the summary line
 * );
 * assert.equal(code, 0);
 * const entries = JSON.parse(await Deno.readTextFile(`${dir}/scores.json`));
 * assert.deepEqual(entries[0].attributes, { case_id: "A-01", risk_score: "0.92" }); // raw text
 * assert.equal(typeof entries[0].trace_score, "number");
 * await Deno.remove(dir, { recursive: true });
 * ```
 *
 * @module
 */

import type { Model } from "../../core/bundle/mod.ts";
import type { OrtModule } from "../../core/runtime/mod.ts";
import { readTraces, type Trace, TraceReadError } from "../../core/event_log/mod.ts";
import { quoteId } from "../../core/net/mod.ts";
import { bundleLocation, readBundle, resolveBundlePath } from "../../adapter/deno/bundle_files.ts";
import {
  readRuntime,
  RUNTIME_OPTIONS,
  type RuntimeChoice,
  runtimeHelp,
  runtimeLoaders,
} from "../runtime_flags.ts";
import { parseArgs, UsageError } from "../args.ts";
import { type CliIo, type Command, InputError } from "../command.ts";
import { sameFile } from "../file_problems.ts";
import { AtomicFile } from "./atomic_file.ts";
import {
  type EntryLayout,
  entryLayout,
  type LogTally,
  measureBatchSize,
  OUTPUT_FORMATS,
  type OutputFormat,
  readingPasses,
  scoreLog,
} from "../../core/log_scoring/mod.ts";
import { type EntrySink, openEntrySink } from "./entry_sink.ts";
import { ByteCounter, Progress } from "./progress.ts";
import { Shard } from "./shard.ts";
import { type OpenedLog, openLog, SHARD_MODES, type ShardMode } from "./log_plan.ts";
import { headerEntry, type PartHeader, type PartTrailer, trailerEntry } from "./part_meta.ts";
import { LogTap } from "./log_identity.ts";

const FORMATS = ["auto", "xes", "csv", "json", "jsonl"] as const;
const MAX_BATCH_SIZE = 65536;
/** The exit code of a run with failed traces under `--fail-on-errors`. */
export const FAILED_TRACES_EXIT = 3;
/** Batches in flight: one scoring while the next is read and the one before is written. */
const PIPELINE_DEPTH = 2;
/** The signals that stop a run writing a file, removing its temporary file. */
const STOP_SIGNALS: readonly Deno.Signal[] = ["SIGINT", "SIGTERM"];

const OPTIONS = {
  traces: { type: "string" },
  format: { type: "string" },
  "case-column": { type: "string" },
  "activity-column": { type: "string" },
  output: { type: "string", short: "o" },
  "output-format": { type: "string" },
  shard: { type: "string" },
  "shard-mode": { type: "string" },
  "batch-size": { type: "string" },
  quiet: { type: "boolean", short: "q" },
  "fail-on-errors": { type: "boolean" },
  ...RUNTIME_OPTIONS,
} as const;

const HELP = `Usage: cli.ts batch BUNDLE --traces LOG [--format auto|xes|csv|json|jsonl[.gz]]
                    [--case-column case_id] [--activity-column activity]
                    [-o FILE] [--output-format json|jsonl]
                    [--shard I/N] [--shard-mode auto|range|modulo]
                    [--batch-size auto|N] [--runtime wasm|native] [--threads N] [-q]
                    [--fail-on-errors]

Scores every trace of an event log with a bundle and writes a JSON list, one entry per trace
in input order, as PETRA's score command writes it: attributes, per_transition_residuals,
trace_index and trace_score; or attributes, error and trace_index for a trace whose input
specs cannot be resolved (a missing or non-numeric attribute). Reading, scoring (in a worker
thread) and writing overlap, a batch at a time, so memory stays flat as files grow.

Arguments:
  BUNDLE                  a .onnx file with its .onnx.meta.json beside it, a PETRA .pt file
                          with its .pt.meta.json beside it, a directory holding one bundle,
                          a model description MODEL.json (compiled in memory), or an
                          http(s) URL of a bundle file

Options:
  --traces LOG            the event log (required): a file, an http(s) URL (a presigned
                          object-storage URL, say), or - for standard input; .xes, .csv,
                          .json (a list of traces) or .jsonl (one trace a line), each also
                          gzipped (.gz)
  --format FORMAT         auto, xes, csv, json or jsonl, each also with .gz (default: auto,
                          from LOG's name or URL path; required with --traces -)
  --case-column NAME      the CSV column of case ids (default: case_id, else pm4py's
                          case:concept:name)
  --activity-column NAME  the CSV column of activities (default: activity, else pm4py's
                          concept:name)
  -o, --output FILE       write to FILE, creating parent directories (default: standard
                          output); FILE appears only once complete: the entries go to a
                          temporary file beside it, renamed when done, and removed on an
                          error, SIGINT or SIGTERM
  --output-format FORMAT  json (default): PETRA's layout, json.dump(indent=2,
                          sort_keys=True); jsonl: one compact entry a line
  --shard I/N             write shard I of N (0 <= I < N) of the scores, a part for
                          'cli.ts merge', which joins the N parts into the output of one
                          whole run (see Sharding)
  --shard-mode MODE       auto (default): range when the log allows it, else modulo; range:
                          insist on range sharding; modulo: always modulo sharding
  --batch-size auto|N     traces per ONNX run, 1 to ${MAX_BATCH_SIZE}; auto (default) measures
                          the model at start-up and takes the smallest size near the lowest
                          cost per trace
${runtimeHelp(26)}
  -q, --quiet             no progress bar; only the summary line on stderr
  --fail-on-errors        exit ${FAILED_TRACES_EXIT} (instead of 0) when any trace got an error entry; the
                          output is written all the same
  -h, --help              show this help

Sharding: run N processes with --shard 0/N ... --shard N-1/N on the same log, then merge
their parts. Which mode a log gets:
  range   uncompressed XES, JSON and JSONL files and URLs: shard I reads only bytes
          [I*S/N, (I+1)*S/N) of the log's S bytes (plus its head and the trace straddling
          its end; from a URL with HTTP Range requests) and owns the traces starting there;
          its part numbers them from 0, and merge renumbers them
  modulo  CSV (a case's rows may lie anywhere), gzip, standard input: each shard reads the
          whole log and scores the traces whose index i has i mod N = I
  seq 0 3 | xargs -P 4 -I{} deno run --allow-read --allow-write cli.ts batch BUNDLE \\
    --traces log.xes --shard {}/4 -o parts/{}.json -q
  deno run --allow-read --allow-write cli.ts merge parts/*.json -o scores.json
(As a Kubernetes Indexed Job: --shard \$JOB_COMPLETION_INDEX/N with completions: N.)

Permissions: deno run --allow-read cli.ts batch ... (add --allow-write with --output, and
--allow-net=HOST for a log at a URL on HOST, e.g. --allow-net=bucket.s3.amazonaws.com, and
--allow-ffi with --runtime native).
`;

/** What the command line asked for. */
interface Settings {
  readonly bundle: string;
  readonly traces: string;
  readonly format: (typeof FORMATS)[number];
  /** `--format` ended in `.gz`; undefined: the name tells. */
  readonly gzip: boolean | undefined;
  readonly caseColumn: string | undefined;
  readonly activityColumn: string | undefined;
  readonly output: string | undefined;
  readonly outputFormat: OutputFormat;
  readonly shard: Shard | undefined;
  readonly shardMode: ShardMode;
  /** Undefined: measure it. */
  readonly batchSize: number | undefined;
  readonly quiet: boolean;
  /** `--fail-on-errors`: a run with failed traces exits {@link FAILED_TRACES_EXIT}. */
  readonly failOnErrors: boolean;
  /** `--runtime` and `--threads`. */
  readonly runtime: RuntimeChoice;
}

/**
 * The `batch` subcommand.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { batchCommand } from "./mod.ts";
 * assert.equal(batchCommand.name, "batch");
 * ```
 */
export const batchCommand: Command = {
  name: "batch",
  summary: "score an event log (XES, CSV, JSON or JSONL) with a bundle, as PETRA's score does",
  help: HELP,
  async run(args, io) {
    const started = performance.now();
    const settings = readSettings(args);
    const location = bundleLocation(settings.bundle);
    const bundlePath = typeof location === "string" ? await resolveBundlePath(location) : location;
    const log = await openLog(settings, io.err);
    try {
      await checkOutput(settings, log);
      await using model = await readBundle(await batchOrt(settings.runtime), bundlePath);
      return await scoreWith(model, settings, log, io, started);
    } finally {
      await log.source.close();
    }
  },
};

/**
 * `batch` with a model already loaded: what `batchCommand.run` does after loading the
 * bundle, for callers that score many logs with one model (the BUNDLE argument is still
 * required, and ignored).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { batchWithModel } from "./mod.ts";
 * import { loadOrt } from "../../adapter/deno/ort.ts";
 * import { readBundle } from "../../adapter/deno/bundle_files.ts";
 * await using model = await readBundle(await loadOrt(), "examples/rest_serving");
 * let out = "";
 * const args = ["-", "--traces", "examples/rest_serving/applications.json", "--batch-size", "8"];
 * const code = await batchWithModel(model, [...args, "--output-format", "jsonl", "-q"], {
 *   out: (text) => out += text,
 *   err: () => {},
 * });
 * assert.equal(code, 0);
 * assert.equal(JSON.parse(out.split("\n")[0]!).trace_index, 0);
 * ```
 */
export async function batchWithModel(
  model: Model,
  args: readonly string[],
  io: CliIo,
): Promise<number> {
  const started = performance.now();
  const settings = readSettings(args);
  const log = await openLog(settings, io.err);
  try {
    await checkOutput(settings, log);
    return await scoreWith(model, settings, log, io, started);
  } finally {
    await log.source.close();
  }
}

/** Scores the opened log and writes the entries (or a part); returns the exit code. */
async function scoreWith(
  model: Model,
  settings: Settings,
  log: OpenedLog,
  io: CliIo,
  started: number,
): Promise<number> {
  for (const line of specNotes(model)) io.err(line);
  const batchSize = settings.batchSize ?? (await measureBatchSize(model.session)).size;
  const file = settings.output === undefined ? undefined : await AtomicFile.create(settings.output);
  const stop = new AbortController();
  using _signals = file && onSignals(stop);
  const layout = entryLayout(settings.outputFormat);
  const sink = openEntrySink(file, layout, io.out);
  const scoring = performance.now();
  let tally: LogTally;
  try {
    tally = await scoreFile(model, settings, log, batchSize, { sink, layout }, stop.signal, io);
  } catch (error) {
    await sink.abort();
    if (error instanceof Interrupted) {
      io.err(`error: batch stopped by ${error.signal}; ${settings.output} was not written`);
      return error.code;
    }
    throw error;
  }
  const note = allFailedNote(tally);
  if (note) io.err(note);
  const now = performance.now();
  io.err(summaryLine(tally, (now - started) / 1000, (now - scoring) / 1000, settings, log));
  return settings.failOnErrors && tally.errors > 0 ? FAILED_TRACES_EXIT : 0;
}

// ---------------------------------------------------------------------------------------------
// Arguments and input checks

function readSettings(args: readonly string[]): Settings {
  const { flags, positionals } = parseArgs(args, OPTIONS);
  if (positionals.length !== 1) {
    throw new UsageError(
      positionals.length === 0
        ? "batch needs a BUNDLE argument"
        : `batch takes one BUNDLE argument, got ${positionals.length}`,
    );
  }
  if (flags.traces === undefined) throw new UsageError("batch needs --traces LOG");
  const gzipped = flags.format !== undefined && /\.gz$/i.test(flags.format);
  const format = flags.format === undefined ? undefined : flags.format.replace(/\.gz$/i, "");
  return {
    bundle: positionals[0]!,
    traces: flags.traces,
    format: readChoice("--format", FORMATS, format, flags.format) ?? "auto",
    gzip: gzipped ? true : undefined,
    caseColumn: flags["case-column"],
    activityColumn: flags["activity-column"],
    output: flags.output,
    outputFormat: readChoice("--output-format", OUTPUT_FORMATS, flags["output-format"]) ?? "json",
    shard: flags.shard === undefined ? undefined : Shard.parse(flags.shard),
    shardMode: readChoice("--shard-mode", SHARD_MODES, flags["shard-mode"], undefined, "mode") ??
      "auto",
    batchSize: readBatchSize(flags["batch-size"]),
    quiet: flags.quiet === true,
    failOnErrors: flags["fail-on-errors"] === true,
    runtime: readRuntime(flags),
  };
}

function readChoice<T extends string>(
  option: string,
  choices: readonly T[],
  text: string | undefined,
  written: string | undefined = text,
  noun = "format",
): T | undefined {
  if (text === undefined) return undefined;
  const choice = choices.find((c) => c === text.toLowerCase());
  if (choice === undefined) {
    throw new UsageError(
      `unknown ${noun} '${written}' for ${option}; use one of ${choices.join(", ")}`,
    );
  }
  return choice;
}

function readBatchSize(text: string | undefined): number | undefined {
  if (text === undefined || text === "auto") return undefined;
  const size = /^\d+$/.test(text) ? Number(text) : NaN;
  if (!(size >= 1 && size <= MAX_BATCH_SIZE)) {
    throw new UsageError(
      `option --batch-size expects a whole number from 1 to ${MAX_BATCH_SIZE}, got '${text}'`,
    );
  }
  return size;
}

/** The output must not be the traces file (it would be truncated while being read). */
async function checkOutput(settings: Settings, log: OpenedLog): Promise<void> {
  if (settings.output === undefined || log.source.formatName !== settings.traces) return;
  if (await sameFile(settings.output, [settings.traces])) {
    throw new UsageError(`--output ${settings.output} is the traces file itself`);
  }
}

/**
 * Spec entries naming ids that are not places of the net: PETRA passes them to the model,
 * which ignores them; so do we (they are still resolved, so a missing attribute still fails).
 */
function specNotes(model: Model): string[] {
  const notes: string[] = [];
  for (
    const [section, spec] of [
      ["input_marking_spec", model.inputMarkingSpec],
      ["input_values_spec", model.inputValuesSpec],
    ] as const
  ) {
    const unknown = [...spec.keys()].filter((id) => !model.placeIndex.has(id));
    if (unknown.length > 0) {
      notes.push(
        `note: the sidecar's ${section} names ${unknown.map(quoteId).join(", ")}, ` +
          `not ${unknown.length === 1 ? "a place" : "places"} of the net; ignored`,
      );
    }
  }
  return notes;
}

// ---------------------------------------------------------------------------------------------
// The run

/** This package's root: the ORT worker's modules are read from under it. */
const PACKAGE_ROOT = new URL("../../", import.meta.url);

/**
 * ORT in a worker, so scoring overlaps reading and writing; in this thread when the worker
 * could not load its modules because `--allow-read` was scoped to the bundle, the log and
 * Deno's npm cache (the scores are the same, the run slower).
 */
function batchOrt(runtime: RuntimeChoice): Promise<OrtModule> {
  const readable = PACKAGE_ROOT.protocol !== "file:" ||
    Deno.permissions.querySync({ name: "read", path: PACKAGE_ROOT }).state === "granted";
  const { loadOrt, loadWorkerOrt } = runtimeLoaders("batch", runtime);
  return readable ? loadWorkerOrt() : loadOrt();
}

async function scoreFile(
  model: Model,
  settings: Settings,
  log: OpenedLog,
  batchSize: number,
  { sink, layout }: { readonly sink: EntrySink; readonly layout: EntryLayout },
  signal: AbortSignal,
  io: CliIo,
): Promise<LogTally> {
  const { source, plan } = log;
  const range = plan.kind === "range" ? plan.range : undefined;
  const counter = new ByteCounter(
    range ? range.to - range.start : source.size,
    readingPasses(log.format),
  );
  let traces: AsyncIterable<Trace>;
  // A modulo shard identifies its log by the head of the stream it reads anyway.
  const tap = new LogTap();
  if (range) traces = range.traces((stream) => counter.count(stream));
  else {
    const open = () => counter.count(tap.tap(source.open()));
    traces = readTraces(source.reopenable ? open : open(), {
      name: source.name,
      format: log.format,
      gzip: log.gzip,
      caseColumn: settings.caseColumn,
      activityColumn: settings.activityColumn,
      onColumns: (choice) => choice.note && io.err(choice.note),
    });
  }
  const progress = new Progress(showProgress(settings), source.name, counter);
  try {
    if (plan.kind !== "whole") {
      const { index, count } = plan.shard;
      const header: PartHeader = plan.kind === "range"
        ? {
          mode: "range",
          index,
          count,
          format: log.format,
          size: range!.size,
          start: range!.start,
        }
        : { mode: "modulo", index, count, format: log.format };
      await sink.write([headerEntry(settings.outputFormat, header)]);
    }
    const tally = await scoreLog(model, traces, sink, {
      batchSize,
      depth: PIPELINE_DEPTH,
      shard: plan.kind === "modulo" ? plan.shard : Shard.ALL,
      layout,
      signal,
      onProgress: (entries) => progress.traces = entries,
    });
    // A range shard may hold no trace; merge reports a log without any.
    if (!range && tally.read === 0) {
      throw new InputError(`${source.name}: no traces parsed from the input file`);
    }
    if (plan.kind !== "whole") {
      const head = plan.kind === "range" ? plan.head : await tap.head();
      const trailer: PartTrailer = {
        ...(range ? { end: range.end! } : {}),
        ...(source.etag === undefined ? {} : { logEtag: source.etag }),
        logHead: head.digest,
        // A file's or URL's declared size; standard input's, counted.
        logSize: plan.kind === "range" ? head.size : source.size ?? head.size,
        model: model.sidecar.onnx_sha256,
        traces: tally.traces,
      };
      await sink.write([trailerEntry(settings.outputFormat, trailer)]);
    }
    await sink.close();
    return tally;
  } catch (error) {
    if (signal.aborted) throw signal.reason;
    if (error instanceof TraceReadError) throw new InputError(error.message);
    throw error;
  } finally {
    progress.finish();
  }
}

/** A run stopped by a signal; `code` is the exit code (128 + the signal's number). */
class Interrupted extends Error {
  constructor(readonly signal: Deno.Signal, readonly code: number) {
    super(`stopped by ${signal}`);
  }
}

/**
 * Turns SIGINT and SIGTERM into an abort of the run (which then removes its temporary file)
 * instead of an exit that would leave it behind; disposing removes the listeners.
 */
function onSignals(stop: AbortController): Disposable {
  const listeners: [Deno.Signal, () => void][] = [];
  for (const [signal, code] of STOP_SIGNALS.map((s, i) => [s, i === 0 ? 130 : 143] as const)) {
    const listener = () => stop.abort(new Interrupted(signal, code));
    try {
      Deno.addSignalListener(signal, listener);
      listeners.push([signal, listener]);
    } catch {
      // Windows knows no SIGTERM.
    }
  }
  return {
    [Symbol.dispose]: () => {
      for (const [signal, listener] of listeners) Deno.removeSignalListener(signal, listener);
    },
  };
}

/**
 * The last stderr line: traces, seconds (all of it), the start-up's share (loading the model,
 * measuring the batch size) and the rate after it, scored and failed traces (the first few by
 * index), the shard (for a range shard: its bytes, and all the bytes read, the head and the
 * scans at its edges included), and the output file.
 */
function summaryLine(
  tally: LogTally,
  seconds: number,
  scoringSeconds: number,
  settings: Settings,
  log: OpenedLog,
): string {
  const rate = scoringSeconds > 0 ? Math.round(tally.traces / scoringSeconds) : 0;
  const startUp = Math.max(0, seconds - scoringSeconds);
  const scored = tally.traces - tally.errors;
  let errors = plural(tally.errors, "error");
  if (tally.errors > 0) {
    const more = tally.errors > tally.failed.length ? ", …" : "";
    errors += ` (${tally.errors === 1 ? "trace" : "traces"} ${tally.failed.join(", ")}${more})`;
  }
  const { plan } = log;
  const shard = plan.kind === "modulo"
    ? ` (shard ${plan.shard} of ${plural(tally.read, "trace")}, modulo)`
    : plan.kind === "range"
    ? ` (shard ${plan.shard}: bytes ${plan.range.from}-${plan.range.to} of ${plan.range.size}; ` +
      `${log.source.bytesRead} bytes read with the head and the edges' scans)`
    : "";
  return `batch: ${plural(tally.traces, "trace")}${shard} in ${seconds.toFixed(2)} s ` +
    `(start-up ${startUp.toFixed(2)} s, then ${rate} traces/s), ${scored} scored, ${errors}` +
    (settings.output === undefined ? "" : ` -> ${settings.output}`);
}

/**
 * When every trace failed, the bundle and the log rarely belong together: one note with the
 * first trace's error says so.
 */
function allFailedNote(tally: LogTally): string | undefined {
  if (tally.traces === 0 || tally.errors < tally.traces || tally.firstError === undefined) return;
  let error = tally.firstError;
  try {
    error = String(JSON.parse(tally.firstError).error ?? error);
  } catch {
    // A layout whose entry is not one JSON object: the text as it is.
  }
  return `note: every trace failed (trace ${tally.failed[0]}: ${error}); is the bundle the ` +
    "one for this log? (inspect shows the attributes its input specs read)";
}

function plural(count: number, noun: string): string {
  return `${count} ${noun}${count === 1 ? "" : "s"}`;
}

/** The bar only on a terminal stderr, and never over JSON going to the same terminal. */
function showProgress(settings: Settings): boolean {
  if (settings.quiet || !Deno.stderr.isTerminal()) return false;
  return settings.output !== undefined || !Deno.stdout.isTerminal();
}
