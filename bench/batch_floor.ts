/**
 * The model-free floor `batch` is measured against: the least a program must do to turn a log
 * into a PETRA-shaped score file. It reads the whole log into memory, parses it as simply as
 * the synthetic logs of `batch_logs.ts` allow (`JSON.parse` for JSON; splitting lines and
 * commas for CSV; a regular expression over the tags for XES), and writes one entry per trace
 * in PETRA's `json.dump(indent=2, sort_keys=True)` layout, with made-up residuals for the given
 * transition ids (each a float32 turned into its shortest decimal text, as `batch` writes
 * them). No validation, no streaming, no model: what is left is reading, parsing and writing.
 *
 * Run as `deno run --allow-read --allow-write bench/batch_floor.ts LOG OUTPUT T1,T2,...`;
 * `batch_rss.ts` runs it next to `batch` on the same logs.
 *
 * @example
 * ```ts
 * import { floorEntries } from "./batch_floor.ts";
 * const traces = floorEntries('[{"attributes": {"amount": "5"}, "events": ["a"]}]', "json");
 * traces[0]?.attributes; // [["amount", "5"]]
 * ```
 *
 * @module
 */

/** One parsed trace: its attributes in file order and its event names. */
export interface FloorTrace {
  readonly attributes: [string, string][];
  readonly events: string[];
}

/**
 * The traces of a synthetic log's text, parsed with no checks.
 *
 * @example
 * ```ts
 * import { floorEntries } from "./batch_floor.ts";
 * floorEntries("case_id,activity,amount\nc1,a,5\nc1,b,5\n", "csv")[0]?.events; // ["a", "b"]
 * ```
 */
export function floorEntries(text: string, format: "json" | "csv" | "xes"): FloorTrace[] {
  if (format === "json") {
    return (JSON.parse(text) as { attributes: Record<string, unknown>; events: string[] }[])
      .map((t) => ({
        attributes: Object.entries(t.attributes).map(([k, v]) => [k, String(v)]),
        events: t.events,
      }));
  }
  if (format === "csv") return csvTraces(text);
  return xesTraces(text);
}

function csvTraces(text: string): FloorTrace[] {
  const lines = text.split("\n");
  const header = lines[0]!.split(",");
  const traces: FloorTrace[] = [];
  const byCase = new Map<string, FloorTrace>();
  for (let i = 1; i < lines.length; i++) {
    const line = lines[i]!;
    if (line === "") continue;
    const fields = line.split(",");
    const id = fields[0]!;
    let trace = byCase.get(id);
    if (trace === undefined) {
      const attributes: [string, string][] = [[header[0]!, id]];
      for (let c = 2; c < header.length; c++) attributes.push([header[c]!, fields[c]!]);
      trace = { attributes, events: [] };
      byCase.set(id, trace);
      traces.push(trace);
    }
    trace.events.push(fields[1]!);
  }
  return traces;
}

const XES_TAG = /<(\/?)(trace|event)>|<string key="([^"]*)" value="([^"]*)"\/>/g;

function xesTraces(text: string): FloorTrace[] {
  const traces: FloorTrace[] = [];
  let trace: FloorTrace | undefined;
  let inEvent = false;
  for (const [, close, tag, key, value] of text.matchAll(XES_TAG)) {
    if (tag === "trace") {
      if (close) traces.push(trace!);
      else trace = { attributes: [], events: [] };
    } else if (tag === "event") {
      inEvent = !close;
    } else if (inEvent) {
      if (key === "concept:name") trace!.events.push(value!);
    } else {
      trace!.attributes.push([key!, value!]);
    }
  }
  return traces;
}

/**
 * Writes the entries of `traces` to `path` in PETRA's layout, `chunk` entries a write.
 *
 * @example
 * ```ts
 * import { writeFloorScores } from "./batch_floor.ts";
 * await writeFloorScores("/tmp/out.json", [{ attributes: [], events: [] }], ["t_a"]);
 * ```
 */
export async function writeFloorScores(
  path: string,
  traces: readonly FloorTrace[],
  transitions: readonly string[],
  chunk = 1024,
): Promise<void> {
  using file = await Deno.open(path, { write: true, create: true, truncate: true });
  const encoder = new TextEncoder();
  const sorted = [...transitions].sort();
  let parts: string[] = [];
  let first = true;
  const flush = async () => {
    const bytes = encoder.encode((first ? "[\n" : ",\n") + parts.join(",\n"));
    first = false;
    parts = [];
    for (let done = 0; done < bytes.length;) done += await file.write(bytes.subarray(done));
  };
  for (let i = 0; i < traces.length; i++) {
    const trace = traces[i]!;
    const attributes = trace.attributes.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([k, v]) => `      ${JSON.stringify(k)}: ${JSON.stringify(v)}`).join(",\n");
    let score = 0;
    const residuals = sorted.map((id, t) => {
      // A float32 residual, as the model's output is, written as its float64 text.
      const residual = Math.fround(1 / (i + t + trace.events.length + 3));
      score += residual;
      return `      ${JSON.stringify(id)}: ${String(residual)}`;
    }).join(",\n");
    parts.push(
      `  {\n    "attributes": {\n${attributes}\n    },\n` +
        `    "per_transition_residuals": {\n${residuals}\n    },\n` +
        `    "trace_index": ${i},\n    "trace_score": ${String(score)}\n  }`,
    );
    if (parts.length >= chunk) await flush();
  }
  if (parts.length > 0) await flush();
  await file.write(encoder.encode(traces.length === 0 ? "[]\n" : "\n]\n"));
}

if (import.meta.main) {
  const [log, output, transitions] = Deno.args;
  if (log === undefined || output === undefined || transitions === undefined) {
    console.error("usage: batch_floor.ts LOG OUTPUT T1,T2,...");
    Deno.exit(2);
  }
  const format = log.endsWith(".csv") ? "csv" : log.endsWith(".xes") ? "xes" : "json";
  const started = performance.now();
  const traces = floorEntries(await Deno.readTextFile(log), format);
  await writeFloorScores(output, traces, transitions.split(","));
  const seconds = (performance.now() - started) / 1000;
  console.error(
    `floor: ${traces.length} traces in ${seconds.toFixed(2)} s ` +
      `(${Math.round(traces.length / seconds)} traces/s)`,
  );
}
