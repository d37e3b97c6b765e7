/**
 * `cli.ts batch BUNDLE --traces FILE`: scores every trace of an event log (XES, CSV or JSON)
 * with a bundle and writes the list PETRA's `score` command writes: one entry per trace, in
 * input order, with `attributes`, `per_transition_residuals`, `trace_index` and `trace_score`,
 * or `attributes`, `error` and `trace_index` for a trace whose input specs cannot be resolved
 * (a missing attribute, or one that is not a number).
 *
 * The log is streamed through a pipeline ({@link scoreLog}): reading and parsing, scoring and
 * writing overlap, a batch at a time, so memory stays flat however large the file. The text
 * is laid out byte for byte as Python's `json.dump(entries, indent=2, sort_keys=True)` lays it
 * out, plus a final newline (`--output-format jsonl`: one compact entry a line); non-finite
 * numbers are written as `null`. `--shard I/N` scores every N-th trace, for `cli.ts merge`.
 * `--output` appears only when complete (see {@link AtomicFile}).
 *
 * Permissions: `--allow-read`, plus `--allow-write` when `--output` is given.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { batchCommand } from "./batch.ts";
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

import type { Model } from "../core/bundle.ts";
import type { OrtModule } from "../core/runtime.ts";
import { detectFormat, readTraces, type TraceFormat, TraceReadError } from "../core/traces/mod.ts";
import { quoteId } from "../core/net/quote_id.ts";
import { readBundle, resolveBundlePath } from "../adapter/deno/bundle_files.ts";
import { loadOrt, loadWorkerOrt } from "../adapter/deno/ort.ts";
import { parseArgs, UsageError } from "./args.ts";
import { type CliIo, type Command, InputError } from "./command.ts";
import { fileProblem, sameFile } from "./file_problems.ts";
import { AtomicFile } from "./batch/atomic_file.ts";
import {
  type EntryLayout,
  entryLayout,
  OUTPUT_FORMATS,
  type OutputFormat,
} from "../core/batch/entry_layout.ts";
import { type EntrySink, openEntrySink } from "./batch/entry_sink.ts";
import { measureBatchSize } from "../core/batch/measure_batch_size.ts";
import { readingPasses } from "../core/batch/byte_counter.ts";
import { ByteCounter, Progress } from "./batch/progress.ts";
import { scoreLog, type Tally } from "./batch/score_log.ts";
import { Shard } from "./batch/shard.ts";

const FORMATS = ["auto", "xes", "csv", "json"] as const;
const MAX_BATCH_SIZE = 65536;
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
  "batch-size": { type: "string" },
  quiet: { type: "boolean", short: "q" },
} as const;

const HELP = `Usage: cli.ts batch BUNDLE --traces FILE [--format auto|xes|csv|json]
                    [--case-column case_id] [--activity-column activity]
                    [-o FILE] [--output-format json|jsonl] [--shard I/N]
                    [--batch-size auto|N] [-q]

Scores every trace of an event log with a bundle and writes a JSON list, one entry per trace
in input order, as PETRA's score command writes it: attributes, per_transition_residuals,
trace_index and trace_score; or attributes, error and trace_index for a trace whose input
specs cannot be resolved (a missing or non-numeric attribute). Reading, scoring (in a worker
thread) and writing overlap, a batch at a time, so memory stays flat as files grow.

Arguments:
  BUNDLE                  a .onnx file with its .onnx.meta.json beside it, a PETRA .pt file
                          with its .pt.meta.json beside it, or a directory holding one bundle

Options:
  --traces FILE           the event log: .xes, .xes.gz, .csv or .json (required)
  --format FORMAT         auto, xes, csv or json (default: auto, from FILE's suffix)
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
  --shard I/N             score only the traces whose index i has i mod N = I (0 <= I < N),
                          keeping their trace_index; 'cli.ts merge' joins the N outputs into
                          the output of one whole run
  --batch-size auto|N     traces per ONNX run, 1 to ${MAX_BATCH_SIZE}; auto (default) measures
                          the model at start-up and takes the smallest size near the lowest
                          cost per trace
  -q, --quiet             no progress bar; only the summary line on stderr
  -h, --help              show this help

Sharding: run N processes with --shard 0/N ... --shard N-1/N on the same log (each reads the
whole log and scores its share), then merge their outputs:
  seq 0 3 | xargs -P 4 -I{} deno run --allow-read --allow-write cli.ts batch BUNDLE \\
    --traces log.csv --shard {}/4 -o parts/{}.json -q
  deno run --allow-read --allow-write cli.ts merge parts/*.json -o scores.json
(As a Kubernetes Indexed Job: --shard \$JOB_COMPLETION_INDEX/N with completions: N.)

Permissions: deno run --allow-read cli.ts batch ... (add --allow-write with --output).
`;

/** What the command line asked for. */
interface Settings {
  readonly bundle: string;
  readonly traces: string;
  readonly format: (typeof FORMATS)[number];
  readonly caseColumn: string | undefined;
  readonly activityColumn: string | undefined;
  readonly output: string | undefined;
  readonly outputFormat: OutputFormat;
  readonly shard: Shard;
  /** Undefined: measure it. */
  readonly batchSize: number | undefined;
  readonly quiet: boolean;
}

/**
 * The `batch` subcommand.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { batchCommand } from "./batch.ts";
 * assert.equal(batchCommand.name, "batch");
 * ```
 */
export const batchCommand: Command = {
  name: "batch",
  summary: "score an event log (XES, CSV or JSON) with a bundle, as PETRA's score command does",
  help: HELP,
  async run(args, io) {
    const started = performance.now();
    const settings = readSettings(args);
    const bundlePath = await resolveBundlePath(settings.bundle);
    const size = await traceFileSize(settings.traces);
    const format = traceFormat(settings);
    await checkOutput(settings);
    await using model = await readBundle(await batchOrt(), bundlePath);
    for (const line of specNotes(model)) io.err(line);
    const batchSize = settings.batchSize ?? (await measureBatchSize(model.session)).size;
    const file = settings.output === undefined
      ? undefined
      : await AtomicFile.create(settings.output);
    const stop = new AbortController();
    using _signals = file && onSignals(stop);
    const layout = entryLayout(settings.outputFormat);
    const sink = openEntrySink(file, layout, io.out);
    const scoring = performance.now();
    let tally: Tally;
    try {
      tally = await scoreFile(
        model,
        settings,
        { size, format, batchSize },
        { sink, layout },
        stop.signal,
        io,
      );
    } catch (error) {
      await sink.abort();
      if (error instanceof Interrupted) {
        io.err(`error: batch stopped by ${error.signal}; ${settings.output} was not written`);
        return error.code;
      }
      throw error;
    }
    const now = performance.now();
    io.err(summaryLine(tally, (now - started) / 1000, (now - scoring) / 1000, settings));
    return 0;
  },
};

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
  if (flags.traces === undefined) throw new UsageError("batch needs --traces FILE");
  return {
    bundle: positionals[0]!,
    traces: flags.traces,
    format: readChoice("--format", FORMATS, flags.format) ?? "auto",
    caseColumn: flags["case-column"],
    activityColumn: flags["activity-column"],
    output: flags.output,
    outputFormat: readChoice("--output-format", OUTPUT_FORMATS, flags["output-format"]) ?? "json",
    shard: flags.shard === undefined ? Shard.ALL : Shard.parse(flags.shard),
    batchSize: readBatchSize(flags["batch-size"]),
    quiet: flags.quiet === true,
  };
}

function readChoice<T extends string>(
  option: string,
  choices: readonly T[],
  text: string | undefined,
): T | undefined {
  if (text === undefined) return undefined;
  const choice = choices.find((c) => c === text.toLowerCase());
  if (choice === undefined) {
    throw new UsageError(
      `unknown format '${text}' for ${option}; use one of ${choices.join(", ")}`,
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

/** The traces file's size in bytes; it must be a readable file. */
async function traceFileSize(path: string): Promise<number> {
  let info: Deno.FileInfo;
  try {
    info = await Deno.stat(path);
  } catch (error) {
    const problem = error instanceof Deno.errors.PermissionDenied
      ? "permission denied"
      : fileProblem(error);
    throw new InputError(`${path}: ${problem}`);
  }
  if (info.isDirectory) throw new InputError(`${path}: is a directory, not a trace file`);
  return info.size;
}

function traceFormat(settings: Settings): TraceFormat {
  try {
    return detectFormat(settings.traces, settings.format).format;
  } catch (error) {
    if (error instanceof TraceReadError) throw new InputError(error.message);
    throw error;
  }
}

/** The output must not be the traces file (it would be truncated while being read). */
async function checkOutput(settings: Settings): Promise<void> {
  if (settings.output === undefined) return;
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
const PACKAGE_ROOT = new URL("../", import.meta.url);

/**
 * ORT in a worker, so scoring overlaps reading and writing; in this thread when the worker
 * could not load its modules because `--allow-read` was scoped to the bundle, the log and
 * Deno's npm cache (the scores are the same, the run slower).
 */
function batchOrt(): Promise<OrtModule> {
  const readable = PACKAGE_ROOT.protocol !== "file:" ||
    Deno.permissions.querySync({ name: "read", path: PACKAGE_ROOT }).state === "granted";
  return readable ? loadWorkerOrt() : loadOrt();
}

interface LogFile {
  readonly size: number;
  readonly format: TraceFormat;
  readonly batchSize: number;
}

async function scoreFile(
  model: Model,
  settings: Settings,
  file: LogFile,
  { sink, layout }: { readonly sink: EntrySink; readonly layout: EntryLayout },
  signal: AbortSignal,
  io: CliIo,
): Promise<Tally> {
  const counter = new ByteCounter(file.size, readingPasses(file.format));
  const traces = readTraces(() => counter.count(Deno.openSync(settings.traces).readable), {
    name: settings.traces,
    format: settings.format,
    caseColumn: settings.caseColumn,
    activityColumn: settings.activityColumn,
    onColumns: (choice) => choice.note && io.err(choice.note),
  });
  const progress = new Progress(showProgress(settings), settings.traces, counter);
  try {
    const tally = await scoreLog(model, traces, sink, {
      batchSize: file.batchSize,
      depth: PIPELINE_DEPTH,
      shard: settings.shard,
      layout,
      signal,
      onProgress: (entries) => progress.traces = entries,
    });
    if (tally.read === 0) {
      throw new InputError(`${settings.traces}: no traces parsed from the input file`);
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
 * The last stderr line: traces, seconds (all of it; the rate counts reading and scoring only),
 * scored and failed traces (the first few by index), the shard, and the output file.
 */
function summaryLine(
  tally: Tally,
  seconds: number,
  scoringSeconds: number,
  settings: Settings,
): string {
  const rate = scoringSeconds > 0 ? Math.round(tally.traces / scoringSeconds) : 0;
  const scored = tally.traces - tally.errors;
  let errors = plural(tally.errors, "error");
  if (tally.errors > 0) {
    const more = tally.errors > tally.failed.length ? ", …" : "";
    errors += ` (${tally.errors === 1 ? "trace" : "traces"} ${tally.failed.join(", ")}${more})`;
  }
  const shard = settings.shard.count === 1
    ? ""
    : ` (shard ${settings.shard} of ${plural(tally.read, "trace")})`;
  return `batch: ${plural(tally.traces, "trace")}${shard} in ${seconds.toFixed(2)} s ` +
    `(${rate} traces/s), ${scored} scored, ${errors}` +
    (settings.output === undefined ? "" : ` -> ${settings.output}`);
}

function plural(count: number, noun: string): string {
  return `${count} ${noun}${count === 1 ? "" : "s"}`;
}

/** The bar only on a terminal stderr, and never over JSON going to the same terminal. */
function showProgress(settings: Settings): boolean {
  if (settings.quiet || !Deno.stderr.isTerminal()) return false;
  return settings.output !== undefined || !Deno.stdout.isTerminal();
}
