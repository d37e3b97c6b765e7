/**
 * Streams traces out of an XES event log as PETRA's `parse_xes` reads it: each `<trace>` child
 * of the root `<log>` becomes a trace whose attributes are its typed children (`key` -> raw
 * `value` text), each `<event>` likewise, named by its `concept:name`. The XML is parsed
 * incrementally with `saxes`, so memory holds one trace at a time; UTF-16 and a declared
 * encoding are honoured.
 *
 * @module
 */

import { SaxesParser, type StartTagForOptions } from "saxes";
import { DEFAULT_NAME, errorText, TraceReadError } from "../errors.ts";
import { type FragmentOptions, LineBase } from "../fragment.ts";
import { decodeText, readBytes } from "../input.ts";
import type { ReadOptions, Trace, TraceEvent } from "../types.ts";

type SaxOptions = { xmlns: false; position: true };

const TYPED = new Set(["string", "int", "float", "boolean", "date", "id"]);

/**
 * The longest start tag attribute value (or tag name) read, in characters: far above any real
 * attribute, and a bound on what one value costs to hold (the parser keeps it whole).
 */
export const MAX_XES_VALUE_CHARS = 64 * 1024 * 1024;

const enum Role {
  Log,
  Trace,
  Event,
  Other,
}

/**
 * Yields the traces of an XES document one by one, in document order.
 *
 * @throws {TraceReadError} for malformed XML (with its line and column), a root element other
 * than `<log>`, undecodable bytes or a broken gzip stream. Traces before the fault have been
 * yielded by then.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { readXesTraces } from "./read.ts";
 * const xml = `<log><trace><string key="amount" value="5000"/>
 *   <event><string key="concept:name" value="approve loan"/></event></trace></log>`;
 * const traces = await Array.fromAsync(readXesTraces(new Blob([xml]).stream()));
 * assert.equal(traces[0]!.attributes.get("amount"), "5000");
 * assert.equal(traces[0]!.events[0]!.name, "approve loan");
 * ```
 */
export function readXesTraces(
  stream: ReadableStream<Uint8Array>,
  options: ReadOptions = {},
): AsyncGenerator<Trace, void, undefined> {
  return xesTraces(stream, options);
}

/**
 * {@link readXesTraces}, also for a fragment: the log's head followed by a range shard's
 * bytes, which need not reach the document's end.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { xesTraces } from "./read.ts";
 * const bytes = new Blob(["<log>\n<trace><event/></trace>\n"]).stream();
 * const traces = await Array.fromAsync(xesTraces(bytes, { fragment: true, lineBase: 1 }));
 * assert.equal(traces[0]!.events.length, 1);
 * ```
 */
export async function* xesTraces(
  stream: ReadableStream<Uint8Array>,
  options: FragmentOptions,
): AsyncGenerator<Trace, void, undefined> {
  const name = options.name ?? DEFAULT_NAME;
  const builder = new XesTraceBuilder(name, new LineBase(options.lineBase));
  for await (const text of xesText(readBytes(stream, name, { gzip: options.gzip }), name)) {
    builder.write(text);
    yield* builder.take();
  }
  if (!options.fragment) builder.close();
  yield* builder.take();
}

/** Feeds text to saxes and collects completed traces. */
class XesTraceBuilder {
  readonly #name: string;
  readonly #parser = new SaxesParser<SaxOptions>({
    xmlns: false,
    position: true,
  });
  readonly #roles: Role[] = [];
  #trace: Trace | undefined;
  #event: TraceEvent | undefined;
  #done: Trace[] = [];
  /** Where the value being read in a start tag began, or -1 outside start tags. */
  #valueStart = -1;
  /** Its line and column. */
  #valueAt = { line: 1, column: 1 };

  readonly #lines: LineBase;

  constructor(name: string, lines: LineBase) {
    this.#name = name;
    this.#lines = lines;
    this.#parser.on("opentagstart", () => this.#startValue());
    this.#parser.on("attribute", () => this.#startValue());
    this.#parser.on("opentag", (tag) => {
      this.#valueStart = -1;
      this.#open(tag);
    });
    this.#parser.on("closetag", () => this.#close());
  }

  write(text: string): void {
    this.#guard(() => this.#parser.write(text));
    if (this.#valueStart >= 0 && this.#parser.position - this.#valueStart > MAX_XES_VALUE_CHARS) {
      throw new TraceReadError(
        `${this.#name}: an attribute value ${this.#lines.at(this.#valueAt)} is longer than ` +
          `${MAX_XES_VALUE_CHARS} characters, the reader's size limit (the XML may be valid)`,
      );
    }
  }

  close(): void {
    this.#guard(() => this.#parser.close());
  }

  /** The traces completed since the last call. */
  take(): Trace[] {
    const done = this.#done;
    this.#done = [];
    return done;
  }

  #startValue(): void {
    const { position, line, column } = this.#parser;
    this.#valueStart = position;
    this.#valueAt = { line, column: Math.max(1, column) };
  }

  /** The parser's position, as messages name it. */
  #where(): string {
    const { line, column } = this.#parser;
    return this.#lines.at({ line, column: Math.max(1, column) });
  }

  #guard(step: () => void): void {
    try {
      step();
    } catch (error) {
      if (error instanceof TraceReadError) throw error;
      // A token (a comment, a text node) longer than a JavaScript string can be.
      if (error instanceof RangeError && /string length/i.test(error.message)) {
        throw new TraceReadError(
          `${this.#name}: a value ${this.#where()} is longer than the longest string ` +
            "JavaScript holds (a size limit of the reader; the XML may be valid)",
          { cause: error },
        );
      }
      const text = errorText(error);
      const match = /^(\d+):(\d+): ([\s\S]*)$/.exec(text);
      const line = match ? Number(match[1]) : this.#parser.line;
      const column = Math.max(1, match ? Number(match[2]) : this.#parser.column);
      throw new TraceReadError(
        `${this.#name}: malformed XML ${this.#lines.at({ line, column })}: ${match?.[3] ?? text}`,
        { cause: error },
      );
    }
  }

  #open(tag: StartTagForOptions<SaxOptions>): void {
    const local = localName(tag.name);
    const depth = this.#roles.length;
    const parent = this.#roles[depth - 1];
    let role = Role.Other;
    if (depth === 0) {
      if (local !== "log") {
        throw new TraceReadError(
          `${this.#name}: the root element is <${tag.name}> (line ${this.#parser.line}), ` +
            `expected <log>`,
        );
      }
      role = Role.Log;
    } else if (parent === Role.Log && local === "trace") {
      role = Role.Trace;
      this.#trace = { attributes: new Map(), events: [] };
    } else if (parent === Role.Trace && local === "event") {
      role = Role.Event;
      this.#event = { name: "", attributes: new Map() };
    } else if (parent === Role.Trace || parent === Role.Event) {
      const target = parent === Role.Trace ? this.#trace : this.#event;
      // Without xmlns processing saxes gives attribute values as plain strings.
      const { key, value } = tag.attributes;
      if (target && TYPED.has(local) && typeof key === "string") {
        target.attributes.set(key, typeof value === "string" ? value : "");
      }
    }
    this.#roles.push(role);
  }

  #close(): void {
    const role = this.#roles.pop();
    if (role === Role.Event && this.#event && this.#trace) {
      this.#event.name = this.#event.attributes.get("concept:name") ?? "";
      this.#trace.events.push(this.#event);
      this.#event = undefined;
    } else if (role === Role.Trace && this.#trace) {
      this.#done.push(this.#trace);
      this.#trace = undefined;
    }
  }
}

/** The name after any namespace prefix: `xes:trace` -> `trace`. */
function localName(name: string): string {
  return name.slice(name.lastIndexOf(":") + 1);
}

/** Decodes the bytes with the encoding the XML declaration names (UTF-8 when none). */
async function* xesText(
  bytes: AsyncGenerator<Uint8Array, void, undefined>,
  name: string,
): AsyncGenerator<string, void, undefined> {
  const head: Uint8Array[] = [];
  let size = 0;
  try {
    while (size < 512) {
      const next = await bytes.next();
      if (next.done) break;
      head.push(next.value);
      size += next.value.length;
    }
  } catch (error) {
    await bytes.return();
    throw error;
  }
  const encoding = xesEncoding(head, name);
  async function* all(): AsyncGenerator<Uint8Array, void, undefined> {
    try {
      yield* head;
      yield* bytes;
    } finally {
      await bytes.return();
    }
  }
  yield* decodeText(all(), name, encoding);
}

/**
 * The encoding of an XES document from its first bytes, as XML tells it: UTF-16 by its
 * byte-order mark, or by `<` as two bytes (`3C 00` little-endian, `00 3C` big-endian); else
 * the declaration's `encoding`, or UTF-8.
 *
 * @throws {TraceReadError} for a declaration of UTF-16 on bytes that are not.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { xesEncoding } from "./read.ts";
 * const le = new Uint8Array([0xff, 0xfe, 0x3c, 0x00, 0x6c, 0x00]);
 * assert.equal(xesEncoding([le], "log.xes"), "utf-16le");
 * assert.equal(xesEncoding([new Uint8Array([0x00, 0x3c, 0x00, 0x3f])], "log.xes"), "utf-16be");
 * assert.equal(xesEncoding([new TextEncoder().encode("<log/>")], "log.xes"), "utf-8");
 * ```
 */
export function xesEncoding(head: readonly Uint8Array[], name: string): string {
  const bytes = head.flatMap((chunk) => [...chunk.subarray(0, 4)]).slice(0, 4);
  const [a, b, c, d] = bytes;
  if ((a === 0xff && b === 0xfe) || (a === 0x3c && b === 0 && c !== undefined && d === 0)) {
    return "utf-16le";
  }
  if ((a === 0xfe && b === 0xff) || (a === 0 && b === 0x3c && c === 0)) return "utf-16be";
  const declared = declaredEncoding(head);
  if (declared !== undefined && /^utf-?16/i.test(declared)) {
    throw new TraceReadError(
      `${name}: its XML declaration says encoding="${declared}" but its bytes are not UTF-16 ` +
        "(no byte-order mark, '<' is one byte): fix the declaration or the file",
    );
  }
  return declared ?? "utf-8";
}

/** The `encoding` of an `<?xml …?>` declaration at the start of the bytes, if any. */
export function declaredEncoding(head: readonly Uint8Array[]): string | undefined {
  let text = "";
  for (const chunk of head) {
    for (const byte of chunk.subarray(0, 512 - text.length)) text += String.fromCharCode(byte);
  }
  const match = /^(?:\xef\xbb\xbf)?<\?xml\s[^>]*?\bencoding\s*=\s*["']([A-Za-z0-9._-]+)["']/
    .exec(text);
  return match?.[1];
}
