/**
 * Streams traces out of a JSON trace file (docs/batch.md, Input formats): the top level is a list; each
 * entry is an object `{"attributes"?: {...}, "events": [...]}` whose events are names
 * (strings) or objects `{"name": "...", "attributes"?: {...}}`. Attribute values that are not
 * strings become their JSON text (`5000` -> `"5000"`, `true` -> `"true"`, `null` -> `"null"`,
 * docs/semantics.md D14).
 *
 * The list is cut entry by entry ({@link JsonArraySplitter}) and each entry is parsed on its
 * own, so memory holds one entry at a time however long the file.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { readJsonTraces } from "./json.ts";
 * const json = '[{"attributes": {"amount": 5000}, "events": ["approve loan"]}]';
 * for await (const trace of readJsonTraces(new Blob([json]).stream(), { name: "traces.json" })) {
 * assert.deepEqual(  trace.attributes.get("amount"), "5000");
 * assert.deepEqual(  trace.events[0]?.name, "approve loan");
 * }
 * ```
 *
 * @module
 */

import { DEFAULT_NAME, errorText, TraceReadError } from "./errors.ts";
import { decodeText, readBytes } from "./input.ts";
import { JsonArraySplitter, type JsonElementText, JsonSplitError } from "./json_split.ts";
import type { ReadOptions, Trace, TraceEvent } from "./types.ts";

/**
 * Yields the traces of a JSON trace file one by one, in file order.
 *
 * @throws {TraceReadError} for malformed JSON (with its line and column), a top level that is
 * not a list, an entry or event of the wrong shape (naming the entry, and the event), bytes
 * that are not UTF-8, or a broken gzip stream. Traces before the fault have been yielded by
 * then.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { readJsonTraces } from "./json.ts";
 * const file = new Blob([JSON.stringify([
 *   { attributes: { amount: "5000" }, events: [{ name: "approve loan" }] },
 * ])]).stream();
 * const traces = await Array.fromAsync(readJsonTraces(file, { name: "traces.json" }));
 * assert.equal(traces[0]!.attributes.get("amount"), "5000");
 * assert.equal(traces[0]!.events[0]!.name, "approve loan");
 * ```
 */
export async function* readJsonTraces(
  stream: ReadableStream<Uint8Array>,
  options: ReadOptions = {},
): AsyncGenerator<Trace, void, undefined> {
  const name = options.name ?? DEFAULT_NAME;
  const splitter = new JsonArraySplitter();
  for await (const text of decodeText(readBytes(stream, name, { gzip: options.gzip }), name)) {
    const elements = split(() => splitter.push(text), name);
    const entries = parseAll(elements);
    for (let i = 0; i < elements.length; i++) {
      const element = elements[i]!;
      yield entryTrace(entries ? entries[i] : parseElement(element, name), element, name);
    }
  }
  split(() => {
    splitter.end();
    return [];
  }, name);
}

function split(step: () => JsonElementText[], name: string): JsonElementText[] {
  try {
    return step();
  } catch (error) {
    if (!(error instanceof JsonSplitError)) throw error;
    throw new TraceReadError(
      `${name}: malformed JSON ${at(error)}: ${error.message}`,
      { cause: error },
    );
  }
}

/**
 * The entries of a chunk's elements in one `JSON.parse` (one call per chunk instead of one per
 * element); undefined when that fails, so each element is parsed alone for a precise message.
 * The splitter only completes balanced values, so the joined list parses exactly when every
 * element does.
 */
function parseAll(elements: readonly JsonElementText[]): unknown[] | undefined {
  if (elements.length === 0) return [];
  try {
    const entries = JSON.parse(`[${elements.map((e) => e.text).join(",")}]`) as unknown[];
    return entries.length === elements.length ? entries : undefined;
  } catch {
    return undefined;
  }
}

function parseElement(element: JsonElementText, name: string): unknown {
  try {
    return JSON.parse(element.text);
  } catch (error) {
    const text = errorText(error);
    const positioned = /^(.*?)(?: in JSON)? at position (\d+)(?: \(line \d+ column \d+\))?$/s
      .exec(text);
    const where = positioned
      ? at(advance(element, Number(positioned[2])))
      : `in entry ${element.index} (which starts at line ${element.line}, column ${element.column})`;
    const detail = positioned?.[1] ?? text.replace(/, (?:\.\.\.)?".*" is not valid JSON$/s, "");
    throw new TraceReadError(`${name}: malformed JSON ${where}: ${detail}`, { cause: error });
  }
}

function at({ line, column }: { line: number; column: number }): string {
  return `at line ${line}, column ${column}`;
}

/** The line and column `position` characters into the element's text. */
function advance(element: JsonElementText, position: number): { line: number; column: number } {
  let { line, column } = element;
  for (let i = 0; i < position && i < element.text.length; i++) {
    if (element.text.charCodeAt(i) === 0x0a) {
      line++;
      column = 1;
    } else {
      column++;
    }
  }
  return { line, column };
}

function entryTrace(entry: unknown, element: JsonElementText, name: string): Trace {
  const where = `${name}: entry ${element.index} (line ${element.line})`;
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

/**
 * The attributes of every event given as a bare name or without attributes: one shared empty
 * map, which refuses changes (a log of millions of events would otherwise allocate a map for
 * each).
 */
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

/** Attribute object -> Map; absent or null -> empty; non-strings -> their JSON text (D14). */
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
