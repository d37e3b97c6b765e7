/**
 * One entry of a JSON or JSONL log: `{"attributes"?: {...}, "events": [...]}`, events
 * being names or `{"name", "attributes"?}` objects. Attribute values that are not strings
 * become their JSON text (`true`, not Python's `True`).
 *
 * @module
 */

import { TraceReadError } from "../errors.ts";
import type { Trace, TraceEvent } from "../types.ts";

/**
 * The trace of one parsed entry; `where` starts every error message (the input's name and
 * the entry's place, such as `traces.json: entry 3 (line 12)`).
 *
 * @throws {TraceReadError} for an entry or event of the wrong shape.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { entryTrace } from "./entry.ts";
 * const trace = entryTrace({ attributes: { amount: 5000 }, events: ["approve loan"] }, "t: line 1");
 * assert.equal(trace.attributes.get("amount"), "5000");
 * assert.throws(() => entryTrace({}, "t: line 2"), /t: line 2: 'events' is missing/);
 * ```
 */
export function entryTrace(entry: unknown, where: string): Trace {
  if (!isObject(entry)) {
    throw new TraceReadError(`${where} is ${describe(entry)}, expected an object with 'events'`);
  }
  const attributes = attributeMap(entry.attributes, `${where}: 'attributes'`);
  if (!Array.isArray(entry.events)) {
    throw new TraceReadError(
      `${where}: 'events' is ${
        entry.events === undefined ? "missing" : describe(entry.events)
      }, expected a list`,
    );
  }
  const events = entry.events.map((event, i) => entryEvent(event, `${where}, event ${i}`));
  return { attributes, events };
}

/** The attributes of an event without any: one shared read-only map, not one per event. */
class NoAttributes extends Map<string, string> {
  override set(key: string): this {
    // The constructor's own call (with no entries) never reaches here.
    throw new TypeError(`Cannot set attribute ${key}: the event's attribute map is read-only`);
  }
  override delete(): boolean {
    return false;
  }
}
const NO_ATTRIBUTES: Map<string, string> = new NoAttributes();

function entryEvent(event: unknown, where: string): TraceEvent {
  if (typeof event === "string") return { name: event, attributes: NO_ATTRIBUTES };
  if (!isObject(event)) {
    throw new TraceReadError(
      `${where} is ${describe(event)}, expected a name or an object with 'name'`,
    );
  }
  const { name } = event;
  if (!name) {
    throw new TraceReadError(`${where}: JSON event object missing 'name': ${snippet(event)}`);
  }
  if (typeof name !== "string") {
    throw new TraceReadError(`${where}: the event's 'name' is not a string: ${snippet(event)}`);
  }
  const { attributes } = event;
  // No attributes: the shared empty map, as for a bare name.
  if (attributes === undefined || attributes === null) return { name, attributes: NO_ATTRIBUTES };
  return { name, attributes: attributeMap(attributes, `${where}: 'attributes'`) };
}

/** Attribute object -> Map; absent or null -> empty; non-strings -> their JSON text. */
function attributeMap(value: unknown, what: string): Map<string, string> {
  const map = new Map<string, string>();
  if (value === undefined || value === null) return map;
  if (!isObject(value)) {
    throw new TraceReadError(`${what} is ${describe(value)}, expected an object`);
  }
  // for-in over a parsed object visits its own keys in Object.entries' order, without the
  // pair arrays (JSON.parse makes even "__proto__" an own key).
  for (const key in value) {
    const item = value[key];
    map.set(key, typeof item === "string" ? item : JSON.stringify(item));
  }
  return map;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function describe(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "a list";
  const type = typeof value;
  return `${type === "object" || type === "undefined" ? "an" : "a"} ${type} (${snippet(value)})`;
}

function snippet(value: unknown): string {
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 80 ? `${text.slice(0, 77)}...` : text;
}
