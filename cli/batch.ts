/**
 * `cli.ts batch BUNDLE --traces FILE`: scores every trace of an event log (XES, CSV or JSON)
 * with a bundle and writes the JSON list PETRA's `score` command writes (SEMANTICS.md §7.2):
 * one entry per trace, in input order, with `attributes`, `per_transition_residuals`,
 * `trace_index` and `trace_score`, or `attributes`, `error` and `trace_index` for a trace whose
 * input specs cannot be resolved (a missing attribute, or one that is not a number, D13).
 *
 * The log is streamed: traces are read one by one, packed `--batch-size` at a time into one
 * ORT run ({@link scoreTraces}), and their entries written before the next batch is read, so
 * memory stays flat however large the file. The text is laid out byte for byte as Python's
 * `json.dump(entries, indent=2, sort_keys=True)` lays it out, plus a final newline; non-finite
 * numbers are written as `null` (D12).
 *
 * Permissions: `--allow-read`, plus `--allow-write` when `--output` is given.
 *
 * @example
 * ```ts
 * import { batchCommand } from "./batch.ts";
 * const code = await batchCommand.run(
 *   ["examples/credit_approval_coloured", "--traces", "traces.json", "-o", "out/scores.json"],
 *   { out: (text) => console.log(text), err: (line) => console.error(line) },
 * );
 * ```
 *
 * @module
 */

import type { Model } from "../core/bundle.ts";
import { compareIds } from "../core/net/types.ts";
import { type AnomalyRequest, scoreTraces } from "../core/ops/anomaly.ts";
import {
  detectFormat,
  type InputSpec,
  readTraces,
  resolveTraceInputs,
  SpecError,
  specErrorEntry,
  type Trace,
  type TraceFormat,
  TraceReadError,
} from "../core/traces/mod.ts";
import { quoteId } from "../core/net/quote_id.ts";
import { readBundle, resolveBundlePath } from "../adapter/deno/bundle_files.ts";
import { parseArgs, UsageError } from "./args.ts";
import { type CliIo, type Command, InputError } from "./command.ts";
import { loadOrt } from "../adapter/deno/ort.ts";

const FORMATS = ["auto", "xes", "csv", "json"] as const;
const DEFAULT_BATCH_SIZE = 256;
const MAX_BATCH_SIZE = 65536;
/** The rough share of a CSV file's reading in its two passes (indexing, then reading). */
const CSV_PASSES = [0.2, 0.8];
/** Failed trace indices the summary line names before it writes "…". */
const LISTED_FAILURES = 5;

const OPTIONS = {
  traces: { type: "string" },
  format: { type: "string" },
  "case-column": { type: "string" },
  "activity-column": { type: "string" },
  output: { type: "string", short: "o" },
  "batch-size": { type: "string" },
  quiet: { type: "boolean", short: "q" },
} as const;

const HELP = `Usage: cli.ts batch BUNDLE --traces FILE [--format auto|xes|csv|json]
                    [--case-column case_id] [--activity-column activity]
                    [-o FILE] [--batch-size N] [-q]

Scores every trace of an event log with a bundle and writes a JSON list, one entry per trace
in input order, as PETRA's score command writes it: attributes, per_transition_residuals,
trace_index and trace_score; or attributes, error and trace_index for a trace whose input
specs cannot be resolved (a missing or non-numeric attribute). The log is streamed in batches,
so memory stays flat as files grow.

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
  -o, --output FILE       write the list to FILE, creating parent directories
                          (default: standard output)
  --batch-size N          traces per ONNX run, 1 to ${MAX_BATCH_SIZE} (default: ${DEFAULT_BATCH_SIZE})
  -q, --quiet             no progress bar; only the summary line on stderr
  -h, --help              show this help

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
  readonly batchSize: number;
  readonly quiet: boolean;
}

/**
 * The `batch` subcommand.
 *
 * @example
 * ```ts
 * import { batchCommand } from "./batch.ts";
 * batchCommand.name; // "batch"
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
    await using model = await readBundle(await loadOrt(), bundlePath);
    for (const line of specNotes(model)) io.err(line);
    const scoring = performance.now();
    const tally = await scoreLog(model, settings, { size, format }, io);
    const now = performance.now();
    io.err(summaryLine(tally, (now - started) / 1000, (now - scoring) / 1000, settings.output));
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
    format: readFormat(flags.format),
    caseColumn: flags["case-column"],
    activityColumn: flags["activity-column"],
    output: flags.output,
    batchSize: readBatchSize(flags["batch-size"]),
    quiet: flags.quiet === true,
  };
}

function readFormat(text: string | undefined): Settings["format"] {
  if (text === undefined) return "auto";
  const format = FORMATS.find((f) => f === text.toLowerCase());
  if (format === undefined) {
    throw new UsageError(
      `unknown format '${text}' for --format; use one of ${FORMATS.join(", ")}`,
    );
  }
  return format;
}

function readBatchSize(text: string | undefined): number {
  if (text === undefined) return DEFAULT_BATCH_SIZE;
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
    throw new InputError(`${path}: ${fileProblem(error)}`);
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
  const [output, traces] = await Promise.all(
    [settings.output, settings.traces].map((p) => Deno.realPath(p).catch(() => undefined)),
  );
  if (output !== undefined && output === traces) {
    throw new UsageError(`--output ${settings.output} is the traces file itself`);
  }
}

function fileProblem(error: unknown): string {
  if (error instanceof Deno.errors.NotFound) return "no such file";
  if (error instanceof Deno.errors.PermissionDenied) return "permission denied";
  if (error instanceof Deno.errors.NotCapable) {
    return "no read permission (run deno with --allow-read)";
  }
  return error instanceof Error ? error.message : String(error);
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
// The scoring loop

/** Counts of a finished run, for the summary line. */
interface Tally {
  traces: number;
  errors: number;
  /** The first failed trace indices, at most {@link LISTED_FAILURES}. */
  readonly failed: number[];
}

interface LogFile {
  readonly size: number;
  readonly format: TraceFormat;
}

async function scoreLog(
  model: Model,
  settings: Settings,
  file: LogFile,
  io: CliIo,
): Promise<Tally> {
  const counter = new ByteCounter(file.size, file.format === "csv" ? CSV_PASSES : [1]);
  const traces = readTraces(() => counter.count(Deno.openSync(settings.traces).readable), {
    name: settings.traces,
    format: settings.format,
    caseColumn: settings.caseColumn,
    activityColumn: settings.activityColumn,
    onColumns: (choice) => choice.note && io.err(choice.note),
  });
  const progress = new Progress(showProgress(settings), settings.traces, counter);
  const batch = new EntryBatch(model, settings.batchSize);
  const tally: Tally = { traces: 0, errors: 0, failed: [] };
  let sink: EntrySink | undefined;
  try {
    for await (const trace of traces) {
      sink ??= await openSink(settings.output, io);
      if (!batch.add(trace, tally)) continue;
      await sink.write(await batch.flush());
      progress.traces = tally.traces;
    }
    if (sink === undefined) {
      throw new InputError(`${settings.traces}: no traces parsed from the input file`);
    }
    await sink.write(await batch.flush());
    await sink.close();
  } catch (error) {
    await sink?.abort();
    if (error instanceof TraceReadError) throw new InputError(error.message);
    throw error;
  } finally {
    progress.finish();
  }
  return tally;
}

/** One trace waiting for its batch: its inputs (to score) or its error entry. */
interface Slot {
  readonly index: number;
  readonly attributes: ReadonlyMap<string, string>;
  readonly request?: AnomalyRequest;
  readonly error?: string;
}

/**
 * The traces read since the last flush, in input order. It is full when it holds `size`
 * traces to score, or twice that many slots (a run of failing traces must not grow it).
 */
class EntryBatch {
  #slots: Slot[] = [];
  #requests: AnomalyRequest[] = [];
  readonly #markingSpec: InputSpec;
  readonly #valuesSpec: InputSpec;
  readonly #places: ReadonlyMap<string, number>;

  constructor(readonly model: Model, readonly size: number) {
    this.#markingSpec = model.inputMarkingSpec;
    this.#valuesSpec = model.inputValuesSpec;
    this.#places = model.placeIndex;
  }

  /** Adds the next trace; true when the batch is full. */
  add(trace: Trace, tally: Tally): boolean {
    const index = tally.traces++;
    const slot = this.#resolve(trace, index);
    if (slot.error !== undefined) {
      tally.errors++;
      if (tally.failed.length < LISTED_FAILURES) tally.failed.push(index);
    }
    this.#slots.push(slot);
    if (slot.request) this.#requests.push(slot.request);
    return this.#requests.length >= this.size || this.#slots.length >= 2 * this.size;
  }

  /** Scores the pending traces in one run and returns their entries' text; empties the batch. */
  async flush(): Promise<string[]> {
    const answers = await scoreTraces(this.model, this.#requests);
    let next = 0;
    const texts = this.#slots.map((slot) =>
      slot.request === undefined
        ? errorEntryText(slot.index, slot.attributes, slot.error!)
        : scoreEntryText(slot.index, slot.attributes, answers[next++]!)
    );
    this.#slots = [];
    this.#requests = [];
    return texts;
  }

  #resolve(trace: Trace, index: number): Slot {
    let inputs: ReturnType<typeof resolveTraceInputs>;
    try {
      inputs = resolveTraceInputs(this.#markingSpec, this.#valuesSpec, trace);
    } catch (error) {
      if (!(error instanceof SpecError)) throw error;
      return { index, attributes: trace.attributes, error: specErrorEntry(error, index) };
    }
    const request: AnomalyRequest = {
      input_marking: this.#placesOnly(inputs.marking),
      input_values: inputs.values === undefined ? null : this.#placesOnly(inputs.values),
      events: trace.events,
    };
    return { index, attributes: trace.attributes, request };
  }

  #placesOnly(resolved: Map<string, number>): Map<string, number> {
    for (const id of resolved.keys()) if (!this.#places.has(id)) resolved.delete(id);
    return resolved;
  }
}

/**
 * The last stderr line: traces, seconds (all of it; the rate counts reading and scoring only),
 * scored and failed traces (the first few by index, D13), and the output file.
 */
function summaryLine(
  tally: Tally,
  seconds: number,
  scoringSeconds: number,
  output: string | undefined,
): string {
  const rate = scoringSeconds > 0 ? Math.round(tally.traces / scoringSeconds) : 0;
  const scored = tally.traces - tally.errors;
  let errors = plural(tally.errors, "error");
  if (tally.errors > 0) {
    const more = tally.errors > tally.failed.length ? ", …" : "";
    errors += ` (${tally.errors === 1 ? "trace" : "traces"} ${tally.failed.join(", ")}${more})`;
  }
  return `batch: ${plural(tally.traces, "trace")} in ${seconds.toFixed(2)} s ` +
    `(${rate} traces/s), ${scored} scored, ${errors}` +
    (output === undefined ? "" : ` -> ${output}`);
}

function plural(count: number, noun: string): string {
  return `${count} ${noun}${count === 1 ? "" : "s"}`;
}

// ---------------------------------------------------------------------------------------------
// Output

/** Where entries go: the JSON list is opened by the first write and closed by `close`. */
interface EntrySink {
  write(entries: readonly string[]): Promise<void>;
  close(): Promise<void>;
  /** Stops after a failure; a partly written output file is removed. */
  abort(): Promise<void>;
}

/** The list's text around the entries: `[\n`, `,\n` between entries, `\n]\n` at the end. */
class ListText {
  #first = true;

  wrap(entries: readonly string[]): string {
    if (entries.length === 0) return "";
    const head = this.#first ? "[\n" : ",\n";
    this.#first = false;
    return head + entries.join(",\n");
  }

  end(): string {
    return this.#first ? "[]\n" : "\n]\n";
  }
}

async function openSink(output: string | undefined, io: CliIo): Promise<EntrySink> {
  const list = new ListText();
  if (output === undefined) {
    return {
      write: (entries) => Promise.resolve(io.out(list.wrap(entries))),
      close: () => Promise.resolve(io.out(list.end())),
      abort: () => Promise.resolve(),
    };
  }
  const writer = (await createOutput(output)).writable.getWriter();
  const encoder = new TextEncoder();
  return {
    // `write` resolves once the chunk is written, so a slow disk holds back the reading.
    write: (entries) => writer.write(encoder.encode(list.wrap(entries))),
    close: async () => {
      await writer.write(encoder.encode(list.end()));
      await writer.close();
    },
    abort: async () => {
      await writer.abort().catch(() => {});
      await Deno.remove(output).catch(() => {});
    },
  };
}

async function createOutput(path: string): Promise<Deno.FsFile> {
  try {
    const slash = Math.max(path.lastIndexOf("/"), path.lastIndexOf("\\"));
    if (slash > 0) await Deno.mkdir(path.slice(0, slash), { recursive: true });
    return await Deno.open(path, { write: true, create: true, truncate: true });
  } catch (error) {
    const why = error instanceof Deno.errors.NotCapable
      ? "no write permission (run deno with --allow-write)"
      : fileProblem(error);
    throw new InputError(`cannot write ${path}: ${why}`);
  }
}

function scoreEntryText(
  index: number,
  attributes: ReadonlyMap<string, string>,
  answer: { trace_score: number; per_transition_residuals: ReadonlyMap<string, number> },
): string {
  return `  {
    "attributes": ${objectText(attributes, pythonString)},
    "per_transition_residuals": ${objectText(answer.per_transition_residuals, pythonFloat)},
    "trace_index": ${index},
    "trace_score": ${pythonFloat(answer.trace_score)}
  }`;
}

function errorEntryText(
  index: number,
  attributes: ReadonlyMap<string, string>,
  error: string,
): string {
  return `  {
    "attributes": ${objectText(attributes, pythonString)},
    "error": ${pythonString(error)},
    "trace_index": ${index}
  }`;
}

/** A map as a nested object at depth 2 of Python's indent=2 layout, keys sorted. */
function objectText<V>(map: ReadonlyMap<string, V>, value: (v: V) => string): string {
  if (map.size === 0) return "{}";
  const keys = [...map.keys()];
  if (!isSorted(keys)) keys.sort(compareIds);
  const lines = keys.map((key) => `      ${pythonString(key)}: ${value(map.get(key)!)}`);
  return `{\n${lines.join(",\n")}\n    }`;
}

function isSorted(keys: readonly string[]): boolean {
  for (let i = 1; i < keys.length; i++) if (compareIds(keys[i - 1]!, keys[i]!) > 0) return false;
  return true;
}

/**
 * A number as Python's `json.dump` writes a float: `repr` (shortest round-trip digits, `1.0`
 * for integral values, exponent form below 1e-4 and from 1e16), and `null` for a non-finite
 * number (SEMANTICS.md D12; PETRA would write `NaN`).
 *
 * @example
 * ```ts
 * import { pythonFloat } from "./batch.ts";
 * pythonFloat(1); // "1.0"
 * pythonFloat(3.62396240234375e-5); // "3.62396240234375e-05"
 * pythonFloat(NaN); // "null"
 * ```
 */
export function pythonFloat(x: number): string {
  if (!Number.isFinite(x)) return "null";
  if (x === 0) return Object.is(x, -0) ? "-0.0" : "0.0";
  const sign = x < 0 ? "-" : "";
  const magnitude = Math.abs(x);
  // Between 1e-4 and 1e16 both languages write plain decimals; Python adds ".0" to integers.
  if (magnitude >= 1e-4 && magnitude < 1e16) {
    const text = String(x);
    return text.includes(".") ? text : `${text}.0`;
  }
  const { digits, point } = shortestDigits(magnitude);
  // Python's float repr switches to exponent form when the point is this far out.
  if (point <= -4 || point > 16) {
    const exponent = point - 1;
    const mantissa = digits.length === 1 ? digits : `${digits[0]}.${digits.slice(1)}`;
    const e = String(Math.abs(exponent)).padStart(2, "0");
    return `${sign}${mantissa}e${exponent < 0 ? "-" : "+"}${e}`;
  }
  if (point <= 0) return `${sign}0.${"0".repeat(-point)}${digits}`;
  if (point >= digits.length) return `${sign}${digits}${"0".repeat(point - digits.length)}.0`;
  return `${sign}${digits.slice(0, point)}.${digits.slice(point)}`;
}

/**
 * The shortest round-trip digits of a positive finite number (as JavaScript's `String` picks
 * them, which agrees with Python's repr) and the point's position: x = 0.DIGITS × 10^point.
 */
function shortestDigits(x: number): { digits: string; point: number } {
  const text = String(x);
  const e = text.indexOf("e");
  if (e !== -1) {
    const mantissa = text.slice(0, e).replace(".", "");
    return { digits: mantissa, point: Number(text.slice(e + 1)) + 1 };
  }
  const dot = text.indexOf(".");
  let digits = dot === -1 ? text : text.slice(0, dot) + text.slice(dot + 1);
  let point = dot === -1 ? text.length : dot;
  const lead = digits.length - digits.replace(/^0+/, "").length;
  digits = digits.slice(lead).replace(/0+$/, "");
  point -= lead;
  return { digits, point };
}

// Python's json escapes `"`, `\` and everything outside printable ASCII (ensure_ascii=True,
// the default): whatever is not a space, `!`, `#`..`[` or `]`..`~`.
const ESCAPED = /[^ !#-[\]-~]/g;
const SHORT_ESCAPES: Readonly<Record<string, string>> = {
  "\\": "\\\\",
  '"': '\\"',
  "\b": "\\b",
  "\f": "\\f",
  "\n": "\\n",
  "\r": "\\r",
  "\t": "\\t",
};

/**
 * A string as Python's `json.dump` writes it by default: double quotes, and every character
 * outside printable ASCII escaped as `\uXXXX` (UTF-16 units, lower-case hex).
 *
 * @example
 * ```ts
 * import { pythonString } from "./batch.ts";
 * pythonString('say "été"'); // '"say \\"\\u00e9t\\u00e9\\""'
 * ```
 */
export function pythonString(text: string): string {
  return `"${
    text.replace(
      ESCAPED,
      (ch) => SHORT_ESCAPES[ch] ?? `\\u${ch.charCodeAt(0).toString(16).padStart(4, "0")}`,
    )
  }"`;
}

// ---------------------------------------------------------------------------------------------
// Progress

/**
 * Counts the bytes read from the trace file, to estimate how far the reading is. A CSV file
 * is read twice (a quick first pass indexes its cases), so the fraction spans both passes,
 * weighted by their rough cost.
 */
class ByteCounter {
  #opened = 0;
  #read = 0;

  constructor(readonly size: number, readonly weights: readonly number[]) {}

  count(stream: ReadableStream<Uint8Array>): ReadableStream<Uint8Array> {
    this.#opened++;
    this.#read = 0;
    return stream.pipeThrough(
      new TransformStream<Uint8Array, Uint8Array>({
        transform: (chunk, controller) => {
          this.#read += chunk.length;
          controller.enqueue(chunk);
        },
      }),
    );
  }

  /** The part of the reading done, 0 to 1, or undefined for an empty file. */
  get fraction(): number | undefined {
    if (this.size === 0 || this.#opened === 0) return this.size === 0 ? undefined : 0;
    const pass = Math.min(this.#opened, this.weights.length) - 1;
    const before = this.weights.slice(0, pass).reduce((a, b) => a + b, 0);
    return Math.min(before + this.weights[pass]! * Math.min(this.#read / this.size, 1), 1);
  }
}

/** The bar only on a terminal stderr, and never over JSON going to the same terminal. */
function showProgress(settings: Settings): boolean {
  if (settings.quiet || !Deno.stderr.isTerminal()) return false;
  return settings.output !== undefined || !Deno.stdout.isTerminal();
}

/** A one-line progress bar on stderr, redrawn ten times a second while enabled. */
class Progress {
  /** Traces done so far. */
  traces = 0;
  readonly #started = performance.now();
  readonly #timer: ReturnType<typeof setInterval> | undefined;
  #shown = false;

  constructor(enabled: boolean, readonly name: string, readonly counter: ByteCounter) {
    if (!enabled) return;
    const timer = setInterval(() => this.#draw(), 100);
    Deno.unrefTimer(timer);
    this.#timer = timer;
  }

  /** Stops the redrawing and clears the bar. */
  finish(): void {
    clearInterval(this.#timer);
    if (this.#shown) this.#write("\r\x1b[2K");
    this.#shown = false;
  }

  #draw(): void {
    this.#shown = true;
    this.#write(`\r\x1b[2K${this.#line((performance.now() - this.#started) / 1000)}`);
  }

  #line(seconds: number): string {
    const rate = seconds > 0 ? this.traces / seconds : 0;
    const fraction = this.counter.fraction;
    const parts = [`${this.name}: ${this.traces} traces`, `${Math.round(rate)} traces/s`];
    if (fraction !== undefined) {
      const width = 20;
      const full = Math.round(fraction * width);
      const bar = `[${"#".repeat(full)}${"-".repeat(width - full)}]`;
      parts.unshift(`${bar} ${Math.floor(fraction * 100)}%`);
      if (fraction > 0.005 && seconds > 1) {
        parts.push(`ETA ${clock((seconds * (1 - fraction)) / fraction)}`);
      }
    }
    return parts.join("  ");
  }

  #write(text: string): void {
    let bytes = new TextEncoder().encode(text);
    while (bytes.length > 0) bytes = bytes.subarray(Deno.stderr.writeSync(bytes));
  }
}

function clock(seconds: number): string {
  const s = Math.round(seconds);
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  const mm = String(m).padStart(h > 0 ? 2 : 1, "0");
  return `${h > 0 ? `${h}:` : ""}${mm}:${String(s % 60).padStart(2, "0")}`;
}
