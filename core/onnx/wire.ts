/**
 * The protobuf wire format, as far as ONNX files need it. The reader checks every length
 * against the bytes left, so a truncated or hostile file ends in a {@link WireError} naming the
 * byte offset, never in a read past the end. `int64`s are numbers converted as protobufjs
 * converts them, so the bytes written are those protobufjs writes.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { ProtoReader, ProtoWriter, WireType } from "./wire.ts";
 * const writer = new ProtoWriter();
 * writer.tag(1, WireType.VARINT);
 * writer.int64(-1);
 * writer.tag(2, WireType.LEN);
 * writer.string("p_in");
 * const reader = new ProtoReader(writer.finish());
 * assert.deepEqual(reader.tag(), { field: 1, wire: WireType.VARINT });
 * assert.equal(reader.int64(), -1);
 * assert.deepEqual(reader.tag(), { field: 2, wire: WireType.LEN });
 * assert.equal(reader.string(), "p_in");
 * assert.equal(reader.done, true);
 * ```
 *
 * @module
 */

/** The wire types a field's tag announces. */
export const WireType = {
  VARINT: 0,
  I64: 1,
  LEN: 2,
  START_GROUP: 3,
  END_GROUP: 4,
  I32: 5,
} as const;

/** Bytes that are not the protobuf they should be. */
export class WireError extends Error {
  /** Always `"WireError"`. */
  override readonly name = "WireError";
}

const TWO_32 = 4294967296;
const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** Writes protobuf fields into one buffer that grows as needed. */
export class ProtoWriter {
  #buffer = new Uint8Array(256);
  #view = new DataView(this.#buffer.buffer);
  #length = 0;

  #reserve(bytes: number): void {
    const needed = this.#length + bytes;
    if (needed <= this.#buffer.length) return;
    let size = this.#buffer.length * 2;
    while (size < needed) size *= 2;
    const grown = new Uint8Array(size);
    grown.set(this.#buffer.subarray(0, this.#length));
    this.#buffer = grown;
    this.#view = new DataView(grown.buffer);
  }

  /** A field's tag: its number and wire type. */
  tag(field: number, wire: number): void {
    this.uint32(((field << 3) | wire) >>> 0);
  }

  /** An unsigned 32-bit varint (also lengths and tags). */
  uint32(value: number): void {
    this.#varint(value >>> 0, 0);
  }

  /** A signed 32-bit varint: a negative value takes ten bytes, as in protobuf. */
  int32(value: number): void {
    if (value < 0) this.int64(value);
    else this.uint32(value);
  }

  /** A signed 64-bit varint of an integer number (two's complement over 64 bits). */
  int64(value: number): void {
    if (value === 0) {
      this.#varint(0, 0);
      return;
    }
    const negative = value < 0;
    const magnitude = negative ? -value : value;
    let lo = magnitude >>> 0;
    let hi = ((magnitude - lo) / TWO_32) >>> 0;
    if (negative) {
      hi = ~hi >>> 0;
      lo = ~lo >>> 0;
      if (++lo > 0xffffffff) {
        lo = 0;
        if (++hi > 0xffffffff) hi = 0;
      }
    }
    this.#varint(lo, hi);
  }

  /** A 32-bit float, little-endian. */
  float(value: number): void {
    this.#reserve(4);
    this.#view.setFloat32(this.#length, value, true);
    this.#length += 4;
  }

  /** Length-prefixed bytes. */
  bytes(value: Uint8Array): void {
    this.uint32(value.length);
    this.#reserve(value.length);
    this.#buffer.set(value, this.#length);
    this.#length += value.length;
  }

  /** A length-prefixed UTF-8 string. */
  string(value: string): void {
    this.bytes(encoder.encode(value));
  }

  /** Whatever `write` writes, prefixed by its length (a nested message, packed numbers). */
  nested(write: () => void): void {
    // One byte is reserved for the length; a longer length moves the content up.
    this.#reserve(1);
    const start = ++this.#length;
    write();
    const length = this.#length - start;
    const size = varintSize(length);
    if (size > 1) {
      this.#reserve(size - 1);
      this.#buffer.copyWithin(start + size - 1, start, this.#length);
    }
    const buffer = this.#buffer;
    let at = start - 1;
    let rest = length;
    while (rest > 0x7f) {
      buffer[at++] = (rest & 0x7f) | 0x80;
      rest >>>= 7;
    }
    buffer[at++] = rest;
    this.#length = at + length;
  }

  /** The bytes written, copied out. */
  finish(): Uint8Array {
    return this.#buffer.slice(0, this.#length);
  }

  #varint(lo: number, hi: number): void {
    this.#reserve(10);
    const buffer = this.#buffer;
    let at = this.#length;
    while (hi !== 0) {
      buffer[at++] = (lo & 0x7f) | 0x80;
      lo = ((lo >>> 7) | (hi << 25)) >>> 0;
      hi >>>= 7;
    }
    while (lo > 0x7f) {
      buffer[at++] = (lo & 0x7f) | 0x80;
      lo >>>= 7;
    }
    buffer[at++] = lo;
    this.#length = at;
  }
}

function varintSize(value: number): number {
  let size = 1;
  while (value > 0x7f) {
    value >>>= 7;
    size++;
  }
  return size;
}

/**
 * Reads protobuf fields from a range of bytes, refusing any read past its end.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { ProtoReader } from "./wire.ts";
 * const reader = new ProtoReader(new Uint8Array([10, 5, 104])); // 5 bytes announced, 1 there
 * reader.tag();
 * assert.throws(() => reader.bytes(), { name: "WireError" });
 * ```
 */
export class ProtoReader {
  #bytes: Uint8Array;
  #view: DataView;
  #at: number;
  readonly #end: number;

  /** Reads `bytes` from `start` (default 0) to `end` (default: the end). */
  constructor(bytes: Uint8Array, start = 0, end = bytes.length) {
    this.#bytes = bytes;
    this.#view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    this.#at = start;
    this.#end = end;
  }

  /** True once every byte of the range has been read. */
  get done(): boolean {
    return this.#at >= this.#end;
  }

  /** The next field's number and wire type. */
  tag(): { field: number; wire: number } {
    const at = this.#at;
    const [lo, hi] = this.#varint();
    if (hi !== 0 || lo >>> 3 === 0) throw new WireError(`invalid field tag at byte ${at}`);
    return { field: lo >>> 3, wire: lo & 7 };
  }

  /** An unsigned 32-bit varint (its low 32 bits, as protobufjs reads it). */
  uint32(): number {
    return this.#varint()[0];
  }

  /** A signed 32-bit varint. */
  int32(): number {
    return this.#varint()[0] | 0;
  }

  /** A signed 64-bit varint, as a number (exact up to 2^53). */
  int64(): number {
    let [lo, hi] = this.#varint();
    if (hi >>> 31) {
      lo = (~lo + 1) >>> 0;
      hi = ~hi >>> 0;
      if (!lo) hi = (hi + 1) >>> 0;
      return -(lo + hi * TWO_32);
    }
    return lo + hi * TWO_32;
  }

  /** A 32-bit little-endian float. */
  float(): number {
    this.#need(4);
    const value = this.#view.getFloat32(this.#at, true);
    this.#at += 4;
    return value;
  }

  /** Length-prefixed bytes, as a view of the input (not a copy). */
  bytes(): Uint8Array {
    const [start, end] = this.#delimited();
    return this.#bytes.subarray(start, end);
  }

  /** A length-prefixed UTF-8 string (invalid sequences become U+FFFD). */
  string(): string {
    return decoder.decode(this.bytes());
  }

  /** A reader over the next length-prefixed field (a nested message, packed numbers). */
  nested(): ProtoReader {
    const [start, end] = this.#delimited();
    return new ProtoReader(this.#bytes, start, end);
  }

  /** Skips a field of the given wire type. */
  skip(wire: number, field: number): void {
    switch (wire) {
      case WireType.VARINT:
        this.#varint();
        return;
      case WireType.I64:
        this.#need(8);
        this.#at += 8;
        return;
      case WireType.LEN:
        this.#delimited();
        return;
      case WireType.I32:
        this.#need(4);
        this.#at += 4;
        return;
      default:
        throw new WireError(`field ${field} has wire type ${wire}, which is not read`);
    }
  }

  #need(bytes: number): void {
    if (this.#at + bytes > this.#end) {
      throw new WireError(`${bytes} bytes wanted at byte ${this.#at}, the message ends first`);
    }
  }

  #delimited(): [number, number] {
    const at = this.#at;
    const length = this.uint32();
    if (length > this.#end - this.#at) {
      throw new WireError(`a field of ${length} bytes at byte ${at} runs past its message`);
    }
    const start = this.#at;
    this.#at += length;
    return [start, this.#at];
  }

  /** The varint at the cursor as its low and high 32 bits. */
  #varint(): [number, number] {
    const start = this.#at;
    let lo = 0;
    let hi = 0;
    for (let index = 0; index < 10; index++) {
      if (this.#at >= this.#end) throw new WireError(`a varint at byte ${start} is cut short`);
      const byte = this.#bytes[this.#at++]!;
      const bits = byte & 0x7f;
      if (index < 4) lo |= bits << (7 * index);
      else if (index === 4) {
        lo |= bits << 28;
        hi |= bits >>> 4;
      } else hi |= bits << (7 * index - 32);
      if (byte < 0x80) return [lo >>> 0, hi >>> 0];
    }
    throw new WireError(`a varint at byte ${start} is longer than 10 bytes`);
  }
}
