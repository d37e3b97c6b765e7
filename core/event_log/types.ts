/**
 * The trace every reader yields, whatever the format; attribute tables are `Map`s, so keys such
 * as `__proto__` are ordinary keys.
 *
 * @module
 */

/** One event of a trace: its name (the activity) and its attributes, key -> raw text. */
export interface TraceEvent {
  /** The activity (XES `concept:name`, the CSV activity column, the JSON `name`). */
  name: string;
  /** The event's own attributes, key -> raw text. */
  attributes: Map<string, string>;
}

/** One trace: its attributes (key -> raw text, in file order) and its events in file order. */
export interface Trace {
  /** Trace-level attributes, key -> raw text: what the input specs resolve against. */
  attributes: Map<string, string>;
  /** The events, in file order. */
  events: TraceEvent[];
}

/** Options every reader takes. */
export interface ReadOptions {
  /**
   * The name messages give the input (usually the file name).
   * @default {"traces"}
   */
  name?: string | undefined;
  /** The bytes are gzip-compressed (a `.gz` file): gunzip them first. */
  gzip?: boolean | undefined;
}
