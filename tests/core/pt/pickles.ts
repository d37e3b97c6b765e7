/**
 * Builders for the `.pt` tests: a small pickle writer (protocol 2 opcodes as bytes, any global
 * the test names), a rewriter that renames strings inside a real PETRA pickle, and a zip
 * writer for `torch.save`-shaped archives (stored entries, via fflate's `zipSync`).
 *
 * @example
 * ```ts
 * import { Pickle } from "./pickles.ts";
 * const bytes = new Pickle().proto().global("os", "system").unicode("true").tuple1().reduce()
 *   .stop().bytes();
 * ```
 *
 * @module
 */

import { unzipSync, zipSync } from "fflate";

import { CONFORMANCE } from "../../conformance/fixtures.ts";

/** Writes pickle opcodes; each method appends one opcode with its argument. */
export class Pickle {
  readonly #parts: number[] = [];

  /** Raw bytes. */
  raw(...bytes: number[]): this {
    this.#parts.push(...bytes);
    return this;
  }
  proto(version = 2): this {
    return this.raw(0x80, version);
  }
  global(module: string, name: string): this {
    return this.raw(0x63, ...ascii(`${module}\n${name}\n`));
  }
  unicode(text: string): this {
    const utf8 = new TextEncoder().encode(text);
    return this.raw(0x58, ...u32(utf8.length), ...utf8);
  }
  int(value: number): this {
    return this.raw(0x4a, ...u32(value));
  }
  float(value: number): this {
    const bytes = new Uint8Array(8);
    new DataView(bytes.buffer).setFloat64(0, value, false);
    return this.raw(0x47, ...bytes);
  }
  mark(): this {
    return this.raw(0x28);
  }
  emptyTuple(): this {
    return this.raw(0x29);
  }
  tuple(): this {
    return this.raw(0x74);
  }
  tuple1(): this {
    return this.raw(0x85);
  }
  tuple2(): this {
    return this.raw(0x86);
  }
  emptyList(): this {
    return this.raw(0x5d);
  }
  append(): this {
    return this.raw(0x61);
  }
  emptyDict(): this {
    return this.raw(0x7d);
  }
  setitem(): this {
    return this.raw(0x73);
  }
  setitems(): this {
    return this.raw(0x75);
  }
  reduce(): this {
    return this.raw(0x52);
  }
  newobj(): this {
    return this.raw(0x81);
  }
  build(): this {
    return this.raw(0x62);
  }
  longBinput(index: number): this {
    return this.raw(0x72, ...u32(index));
  }
  binget(index: number): this {
    return this.raw(0x68, index);
  }
  stop(): this {
    return this.raw(0x2e);
  }
  /** The pickle so far. */
  bytes(): Uint8Array {
    return new Uint8Array(this.#parts);
  }
}

/** Argument lengths of the opcodes PETRA pickles use (-1: a u32 length, then that many). */
const ARG_BYTES: Readonly<Record<number, number>> = {
  0x80: 1,
  0x71: 1,
  0x72: 4,
  0x68: 1,
  0x6a: 4,
  0x4a: 4,
  0x4b: 1,
  0x4d: 2,
  0x47: 8,
  0x58: -1,
};

/**
 * A copy of a PETRA pickle with some `BINUNICODE` strings replaced (ids renamed). The memo
 * refers to slots, not offsets, so strings may change length.
 */
export function renameStrings(pickle: Uint8Array, names: ReadonlyMap<string, string>): Uint8Array {
  const out: number[] = [];
  let pos = 0;
  while (pos < pickle.length) {
    const code = pickle[pos]!;
    if (code === 0x63) { // GLOBAL: two lines
      const end = pickle.indexOf(0x0a, pickle.indexOf(0x0a, pos) + 1) + 1;
      out.push(...pickle.subarray(pos, end));
      pos = end;
      continue;
    }
    const arg = ARG_BYTES[code] ?? 0;
    if (arg === -1) {
      const n = new DataView(pickle.buffer, pickle.byteOffset + pos + 1, 4).getUint32(0, true);
      const text = new TextDecoder().decode(pickle.subarray(pos + 5, pos + 5 + n));
      const utf8 = new TextEncoder().encode(names.get(text) ?? text);
      out.push(0x58, ...u32(utf8.length), ...utf8);
      pos += 5 + n;
      continue;
    }
    out.push(...pickle.subarray(pos, pos + 1 + arg));
    pos += 1 + arg;
  }
  return new Uint8Array(out);
}

/**
 * A copy of a PETRA pickle with the value stored under the string `key` (the first such
 * `BINUNICODE`, past its memo put) replaced by `value`, one pickled value: e.g. a module's
 * `num_steps` set to `new Pickle().int(10_000_000).bytes()`.
 */
export function replaceValueOf(pickle: Uint8Array, key: string, value: Uint8Array): Uint8Array {
  let pos = 0;
  while (pos < pickle.length) {
    const code = pickle[pos]!;
    if (code === 0x63) {
      pos = pickle.indexOf(0x0a, pickle.indexOf(0x0a, pos) + 1) + 1;
      continue;
    }
    const arg = ARG_BYTES[code] ?? 0;
    if (arg !== -1) {
      pos += 1 + arg;
      continue;
    }
    const n = new DataView(pickle.buffer, pickle.byteOffset + pos + 1, 4).getUint32(0, true);
    const text = new TextDecoder().decode(pickle.subarray(pos + 5, pos + 5 + n));
    pos += 5 + n;
    if (text !== key) continue;
    while (pickle[pos] === 0x71 || pickle[pos] === 0x72) pos += 1 + ARG_BYTES[pickle[pos]!]!;
    const end = pos + 1 + (ARG_BYTES[pickle[pos]!] ?? 0);
    return new Uint8Array([...pickle.subarray(0, pos), ...value, ...pickle.subarray(end)]);
  }
  throw new Error(`no string ${key} in the pickle`);
}

/** A `torch.save`-shaped zip: `PREFIX/NAME` entries, stored (no compression). */
export function torchZip(
  prefix: string,
  entries: Readonly<Record<string, Uint8Array>>,
): Uint8Array {
  const files: Record<string, [Uint8Array, { level: 0 }]> = {};
  for (const [name, data] of Object.entries(entries)) {
    files[`${prefix}/${name}`] = [data, { level: 0 }];
  }
  return zipSync(files);
}

/** A conformance model's `.pt` entries, keyed without their top folder. */
export async function fixtureEntries(model: string): Promise<Record<string, Uint8Array>> {
  const files = unzipSync(await Deno.readFile(new URL(`${model}/model.pt`, CONFORMANCE)));
  return Object.fromEntries(
    Object.entries(files).map(([name, data]) => [name.slice(name.indexOf("/") + 1), data]),
  );
}

/** A conformance model's PETRA sidecar text. */
export async function fixtureSidecar(model: string): Promise<string> {
  return await Deno.readTextFile(new URL(`${model}/model.pt.meta.json`, CONFORMANCE));
}

function ascii(text: string): number[] {
  return [...text].map((c) => c.charCodeAt(0));
}

function u32(value: number): number[] {
  return [value & 0xff, (value >>> 8) & 0xff, (value >>> 16) & 0xff, (value >>> 24) & 0xff];
}
