/**
 * The trace every reader yields, whatever the file format: trace-level attributes and a list
 * of events, each with a name and its own attributes. All attribute tables are `Map`s, so keys
 * such as `__proto__` are ordinary keys.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import type { Trace } from "./types.ts";
 * const trace: Trace = {
 *   attributes: new Map([["amount", "5000"]]),
 *   events: [{ name: "approve loan", attributes: new Map() }],
 * };
 * assert.deepEqual(trace.attributes.get("amount"), "5000");
 * ```
 *
 * @module
 */

/**
 * One event of a trace: its name (the activity) and its attributes, key -> raw text.
 *
 * @example
 * ```ts
 * import type { TraceEvent } from "./types.ts";
 * const event: TraceEvent = { name: "approve loan", attributes: new Map([["org:resource", "Ann"]]) };
 * ```
 */
export interface TraceEvent {
  /** The activity (XES `concept:name`, the CSV activity column, the JSON `name`). */
  name: string;
  /** The event's own attributes, key -> raw text. */
  attributes: Map<string, string>;
}

/**
 * One trace: its attributes (key -> raw text, in the order the file gave them) and its events
 * in file order.
 *
 * @example
 * ```ts
 * import type { Trace } from "./types.ts";
 * const empty: Trace = { attributes: new Map(), events: [] };
 * ```
 */
export interface Trace {
  /** Trace-level attributes, key -> raw text: what the input specs resolve against. */
  attributes: Map<string, string>;
  /** The events, in file order. */
  events: TraceEvent[];
}

/**
 * Options every reader takes.
 *
 * @example
 * ```ts
 * import type { ReadOptions } from "./types.ts";
 * const options: ReadOptions = { name: "traces.xes.gz", gzip: true };
 * ```
 */
export interface ReadOptions {
  /** The name messages give the input (usually the file name); default `"traces"`. */
  name?: string | undefined;
  /** The bytes are gzip-compressed (a `.gz` file): gunzip them first. */
  gzip?: boolean | undefined;
}
