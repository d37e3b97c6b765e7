/**
 * Synthetic event logs for the `batch` benchmark, written as JSON, CSV or XES: traces of the
 * credit-approval example model (a trace attribute `amount`, one to three events among its two
 * activities and an unknown one), of the wide model of `wide_net.ts` (attributes `x0` …
 * `x6`, three to eight events named after its transitions), or of its big model (500 places:
 * attributes `x0` … `x83`, events as for the wide one). A seeded generator makes every run
 * write the same bytes.
 *
 * @example
 * ```ts
 * import { writeLog } from "./batch_logs.ts";
 * await writeLog("/tmp/log.json", "json", 10_000);
 * ```
 *
 * @module
 */

import { mulberry32 as seeded } from "../tests/random.ts";
import { bigModel, wideModel } from "./wide_net.ts";
import type { PetriModel } from "../core/net/mod.ts";

/** The formats {@link writeLog} writes. */
export type LogFormat = "json" | "csv" | "xes";

/** The models {@link writeLog} writes traces for. */
export type LogModel = "credit" | "wide" | "big";

const ACTIVITIES = ["approve loan", "decline loan", "request documents"];
/** Traces formatted per write, so a 1M-trace log never sits in memory. */
const CHUNK = 4096;

/** One synthetic trace: its case id, attributes and activities. */
interface SyntheticTrace {
  readonly caseId: string;
  readonly attributes: readonly (readonly [string, string])[];
  readonly events: readonly string[];
}

/**
 * Writes a log of `count` traces to `path` in `format`.
 *
 * @example
 * ```ts
 * import { writeLog } from "./batch_logs.ts";
 * await writeLog("/tmp/log.xes", "xes", 100);
 * ```
 */
export async function writeLog(
  path: string,
  format: LogFormat,
  count: number,
  model: LogModel = "credit",
): Promise<void> {
  using file = await Deno.open(path, { write: true, create: true, truncate: true });
  const encoder = new TextEncoder();
  const write = async (text: string) => {
    const bytes = encoder.encode(text);
    for (let done = 0; done < bytes.length;) done += await file.write(bytes.subarray(done));
  };
  const random = seeded(count);
  await write(HEADS[format](model));
  for (let start = 0; start < count; start += CHUNK) {
    const parts: string[] = [];
    for (let i = start; i < Math.min(start + CHUNK, count); i++) {
      parts.push(FORMATTERS[format](SYNTHETIC[model](i, random), i === 0));
    }
    await write(parts.join(""));
  }
  await write(TAILS[format]);
}

/** A layered model's transitions (the events) and the attributes its input spec reads. */
function layeredShape(model: PetriModel) {
  return {
    transitions: model.net.transitions,
    attributes: [...model.inputMarkingSpec.values()]
      .map((entry) => ("attribute" in entry ? entry.attribute : "")),
  };
}

const LAYERED = { wide: layeredShape(wideModel()), big: layeredShape(bigModel()) };

/** A trace of a layered model: every attribute in [0, 1), three to eight random transitions. */
function layeredTrace(shape: typeof LAYERED.wide, index: number, random: () => number) {
  const attributes = shape.attributes.map((name) =>
    [name, (Math.floor(random() * 1000) / 1000).toFixed(3)] as const
  );
  const length = 3 + Math.floor(random() * 6);
  const events = Array.from({ length }, () => pick(shape.transitions, random));
  return { caseId: caseId(index), attributes, events };
}

const SYNTHETIC: Readonly<
  Record<LogModel, (index: number, random: () => number) => SyntheticTrace>
> = {
  credit: (index, random) => {
    const amount = String(100 * (1 + Math.floor(random() * 150)));
    const length = 1 + Math.floor(random() * 3);
    const events = Array.from({ length }, () => pick(ACTIVITIES, random));
    return { caseId: caseId(index), attributes: [["amount", amount]], events };
  },
  wide: (index, random) => layeredTrace(LAYERED.wide, index, random),
  big: (index, random) => layeredTrace(LAYERED.big, index, random),
};

function caseId(index: number): string {
  return `case-${String(index).padStart(7, "0")}`;
}

function pick<T>(items: readonly T[], random: () => number): T {
  return items[Math.floor(random() * items.length)]!;
}

const HEADS: Readonly<Record<LogFormat, (model: LogModel) => string>> = {
  json: () => "[",
  csv: (model) =>
    `case_id,activity,${model === "credit" ? "amount" : LAYERED[model].attributes.join(",")}\n`,
  xes: () =>
    '<?xml version="1.0" encoding="UTF-8" ?>\n' +
    '<log xes.version="1.0" xmlns="http://www.xes-standard.org/">\n',
};

const TAILS: Readonly<Record<LogFormat, string>> = { json: "\n]\n", csv: "", xes: "</log>\n" };

const FORMATTERS: Readonly<Record<LogFormat, (t: SyntheticTrace, first: boolean) => string>> = {
  json: (t, first) =>
    `${first ? "" : ","}\n  {"attributes": {${
      t.attributes.map(([k, v]) => `"${k}": "${v}"`).join(", ")
    }}, "events": ${JSON.stringify(t.events)}}`,
  csv: (t) => {
    const values = t.attributes.map(([, v]) => v).join(",");
    return t.events.map((e) => `${t.caseId},${e},${values}\n`).join("");
  },
  xes: (t) =>
    `  <trace>\n    <string key="concept:name" value="${t.caseId}"/>\n` +
    t.attributes.map(([k, v]) => `    <string key="${k}" value="${v}"/>\n`).join("") +
    t.events.map((e) => `    <event><string key="concept:name" value="${e}"/></event>\n`)
      .join("") +
    "  </trace>\n",
};
