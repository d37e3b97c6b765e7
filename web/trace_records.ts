/**
 * The attributes, events and error text of many traces, packed as bytes in large chunks with
 * keys and activity names numbered in a shared dictionary: a million traces cost their bytes,
 * not a million `Map`s, so the playground can keep every trace of a large log.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { TraceRecords } from "./trace_records.ts";
 * const records = new TraceRecords();
 * records.add(new Map([["amount", "5000"]]), [{ name: "approve loan", attributes: new Map() }]);
 * records.add(new Map(), [], "missing attribute: \"...\"");
 * assert.equal(records.read(0).attributes.get("amount"), "5000");
 * assert.equal(records.read(1).error, 'missing attribute: "..."');
 * ```
 *
 * @module
 */

/** One trace as read back. */
export interface TraceRecord {
  readonly attributes: Map<string, string>;
  readonly events: { readonly name: string; readonly attributes: Map<string, string> }[];
  /** The error entry text, for a trace whose input specs failed. */
  readonly error?: string;
}

const CHUNK_BYTES = 4 << 20;

/** An append-only list of trace records. */
export class TraceRecords {
  readonly #dictionary = new Map<string, number>();
  readonly #words: string[] = [];
  #dictionaryChars = 0;
  readonly #chunks: Uint8Array[] = [];
  #used = 0;
  #chunkOf = new Uint32Array(1024);
  #startOf = new Uint32Array(1024);
  #count = 0;
  readonly #scratch = new Scratch();
  readonly #encoder = new TextEncoder();
  readonly #decoder = new TextDecoder();

  /** Records held. */
  get count(): number {
    return this.#count;
  }

  /** Bytes held: chunks, positions and the dictionary (two bytes a character). */
  get byteSize(): number {
    const chunks = this.#chunks.reduce((n, c) => n + c.byteLength, 0);
    return chunks + this.#chunkOf.byteLength + this.#startOf.byteLength +
      2 * this.#dictionaryChars;
  }

  /** Appends a trace. */
  add(
    attributes: ReadonlyMap<string, string>,
    events: readonly { readonly name: string; readonly attributes: ReadonlyMap<string, string> }[],
    error?: string,
  ): void {
    const out = this.#scratch;
    out.reset();
    this.#writeMap(attributes);
    out.varint(events.length);
    for (const event of events) {
      out.varint(this.#word(event.name));
      this.#writeMap(event.attributes);
    }
    if (error === undefined) out.varint(0);
    else {
      out.varint(1);
      out.text(error, this.#encoder);
    }
    this.#place(out.bytes());
  }

  /** Reads record `i` back. */
  read(i: number): TraceRecord {
    if (!(i >= 0 && i < this.#count)) throw new RangeError(`no trace record ${i}`);
    const chunk = this.#chunks[this.#chunkOf[i]!]!;
    const reader = new Reader(chunk, this.#startOf[i]!, this.#decoder);
    const attributes = this.#readMap(reader);
    const count = reader.varint();
    const events = [];
    for (let e = 0; e < count; e++) {
      const name = this.#words[reader.varint()]!;
      events.push({ name, attributes: this.#readMap(reader) });
    }
    const error = reader.varint() === 1 ? reader.text() : undefined;
    return error === undefined ? { attributes, events } : { attributes, events, error };
  }

  /** The keys of every trace's attributes seen so far (not event attributes), sorted. */
  attributeKeys(): string[] {
    const keys = new Set<string>();
    for (let i = 0; i < this.#count; i++) {
      const chunk = this.#chunks[this.#chunkOf[i]!]!;
      const reader = new Reader(chunk, this.#startOf[i]!, this.#decoder);
      const n = reader.varint();
      for (let a = 0; a < n; a++) {
        keys.add(this.#words[reader.varint()]!);
        reader.skipText();
      }
    }
    return [...keys].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  }

  #writeMap(map: ReadonlyMap<string, string>): void {
    const out = this.#scratch;
    out.varint(map.size);
    for (const [key, value] of map) {
      out.varint(this.#word(key));
      out.text(value, this.#encoder);
    }
  }

  #readMap(reader: Reader): Map<string, string> {
    const map = new Map<string, string>();
    const n = reader.varint();
    for (let a = 0; a < n; a++) {
      const key = this.#words[reader.varint()]!;
      map.set(key, reader.text());
    }
    return map;
  }

  #word(text: string): number {
    let id = this.#dictionary.get(text);
    if (id === undefined) {
      id = this.#words.length;
      this.#words.push(text);
      this.#dictionary.set(text, id);
      this.#dictionaryChars += text.length;
    }
    return id;
  }

  #place(bytes: Uint8Array): void {
    let chunk = this.#chunks.at(-1);
    if (chunk === undefined || this.#used + bytes.length > chunk.length) {
      chunk = new Uint8Array(Math.max(CHUNK_BYTES, bytes.length));
      this.#chunks.push(chunk);
      this.#used = 0;
    }
    chunk.set(bytes, this.#used);
    const i = this.#count++;
    if (i >= this.#chunkOf.length) {
      this.#chunkOf = grown(this.#chunkOf, Uint32Array);
      this.#startOf = grown(this.#startOf, Uint32Array);
    }
    this.#chunkOf[i] = this.#chunks.length - 1;
    this.#startOf[i] = this.#used;
    this.#used += bytes.length;
  }
}

/** A typed array twice as long, holding `array`'s elements. */
export function grown<A extends Float64Array | Float32Array | Uint32Array | Uint8Array>(
  array: A,
  Kind: { new (length: number): A },
  atLeast = 0,
): A {
  const next = new Kind(Math.max(atLeast, 2 * array.length, 16));
  next.set(array as never);
  return next;
}

/** The growing buffer a record is encoded into before it is placed. */
class Scratch {
  #bytes = new Uint8Array(1024);
  #at = 0;

  reset(): void {
    this.#at = 0;
  }

  bytes(): Uint8Array {
    return this.#bytes.subarray(0, this.#at);
  }

  varint(n: number): void {
    this.#room(5);
    while (n >= 0x80) {
      this.#bytes[this.#at++] = (n % 128) | 0x80;
      n = Math.floor(n / 128);
    }
    this.#bytes[this.#at++] = n;
  }

  /**
   * A string: a varint of twice its byte length (plus one for UTF-16), then its bytes: UTF-8,
   * or UTF-16 code units for a string with a lone surrogate (JSON's `"\ud800"`), which UTF-8
   * cannot hold and which must come back unchanged.
   */
  text(text: string, encoder: TextEncoder): void {
    if (!text.isWellFormed()) {
      this.varint(4 * text.length + 1);
      this.#room(2 * text.length);
      for (let i = 0; i < text.length; i++) {
        const unit = text.charCodeAt(i);
        this.#bytes[this.#at++] = unit & 0xff;
        this.#bytes[this.#at++] = unit >>> 8;
      }
      return;
    }
    // At most three bytes a UTF-16 unit; five for the length.
    this.#room(5 + 3 * text.length);
    const start = this.#at + 1;
    const { written } = encoder.encodeInto(text, this.#bytes.subarray(start));
    if (2 * written < 0x80) {
      this.#bytes[this.#at] = 2 * written;
      this.#at = start + written;
      return;
    }
    // A longer string: its length takes more bytes, so move the text along.
    let size = 1;
    for (let n = 2 * written; n >= 0x80; n = Math.floor(n / 128)) size++;
    this.#bytes.copyWithin(this.#at + size, start, start + written);
    this.varint(2 * written);
    this.#at += written;
  }

  #room(bytes: number): void {
    if (this.#at + bytes <= this.#bytes.length) return;
    this.#bytes = grown(this.#bytes, Uint8Array, this.#at + bytes);
  }
}

/** Reads a record's varints and strings in order. */
class Reader {
  constructor(
    readonly bytes: Uint8Array,
    public at: number,
    readonly decoder: TextDecoder,
  ) {}

  varint(): number {
    let n = 0;
    let shift = 0;
    for (;;) {
      const byte = this.bytes[this.at++]!;
      n += (byte & 0x7f) * 2 ** shift;
      if (byte < 0x80) return n;
      shift += 7;
    }
  }

  text(): string {
    const head = this.varint();
    const start = this.at;
    if (head % 2 === 0) {
      this.at += head / 2;
      return this.decoder.decode(this.bytes.subarray(start, this.at));
    }
    const units = (head - 1) / 4;
    this.at += 2 * units;
    let text = "";
    for (let i = 0; i < units; i++) {
      text += String.fromCharCode(
        this.bytes[start + 2 * i]! | (this.bytes[start + 2 * i + 1]! << 8),
      );
    }
    return text;
  }

  skipText(): void {
    const head = this.varint();
    this.at += head % 2 === 0 ? head / 2 : (head - 1) / 2;
  }
}
