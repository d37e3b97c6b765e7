/**
 * Synthetic event logs for the `batch` benchmark: traces of the credit-approval example model
 * (a trace attribute `amount`, one to three events among its two activities and an unknown
 * one), written as JSON, CSV or XES. A seeded generator makes every run write the same bytes.
 *
 * @example
 * ```ts
import { writeLog } from "./batch_logs.ts";
 * await writeLog("/tmp/log.json", "json", 10_000);
 * ```
 *
 * @module
 */

import { mulberry32 as seeded } from "../tests/random.ts";

/** The formats {@link writeLog} writes. */
export type LogFormat = "json" | "csv" | "xes";

const ACTIVITIES = ["approve loan", "decline loan", "request documents"];
/** Traces formatted per write, so a 1M-trace log never sits in memory. */
const CHUNK = 4096;

/** One synthetic trace: its case id, amount and activities. */
interface SyntheticTrace {
  readonly caseId: string;
  readonly amount: string;
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
export async function writeLog(path: string, format: LogFormat, count: number): Promise<void> {
  using file = await Deno.open(path, { write: true, create: true, truncate: true });
  const encoder = new TextEncoder();
  const write = async (text: string) => {
    const bytes = encoder.encode(text);
    for (let done = 0; done < bytes.length;) done += await file.write(bytes.subarray(done));
  };
  const random = seeded(count);
  await write(HEADS[format]);
  for (let start = 0; start < count; start += CHUNK) {
    const parts: string[] = [];
    for (let i = start; i < Math.min(start + CHUNK, count); i++) {
      parts.push(FORMATTERS[format](synthetic(i, random), i === 0));
    }
    await write(parts.join(""));
  }
  await write(TAILS[format]);
}

function synthetic(index: number, random: () => number): SyntheticTrace {
  const amount = String(100 * (1 + Math.floor(random() * 150)));
  const length = 1 + Math.floor(random() * 3);
  const events = Array.from(
    { length },
    () => ACTIVITIES[Math.floor(random() * ACTIVITIES.length)]!,
  );
  return { caseId: `case-${String(index).padStart(7, "0")}`, amount, events };
}

const HEADS: Readonly<Record<LogFormat, string>> = {
  json: "[",
  csv: "case_id,activity,amount\n",
  xes: '<?xml version="1.0" encoding="UTF-8" ?>\n' +
    '<log xes.version="1.0" xmlns="http://www.xes-standard.org/">\n',
};

const TAILS: Readonly<Record<LogFormat, string>> = { json: "\n]\n", csv: "", xes: "</log>\n" };

const FORMATTERS: Readonly<Record<LogFormat, (t: SyntheticTrace, first: boolean) => string>> = {
  json: (t, first) =>
    `${first ? "" : ","}\n  {"attributes": {"amount": "${t.amount}"}, "events": ${
      JSON.stringify(t.events)
    }}`,
  csv: (t) => t.events.map((e) => `${t.caseId},${e},${t.amount}\n`).join(""),
  xes: (t) =>
    `  <trace>\n    <string key="concept:name" value="${t.caseId}"/>\n` +
    `    <string key="amount" value="${t.amount}"/>\n` +
    t.events.map((e) => `    <event><string key="concept:name" value="${e}"/></event>\n`)
      .join("") +
    "  </trace>\n",
};
