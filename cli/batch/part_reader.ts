/**
 * Reads back the entries of a `batch` output (a part of a sharded run) one at a time, for
 * `cli.ts merge`: each entry's exact text, to copy as is, and its `trace_index`. The format
 * is told from the first character: `[` for `json` (PETRA's layout), `{` for `jsonl`; an empty
 * file is a `jsonl` part with no entries. In the `json` layout an entry runs from `  {` to the
 * next `\n  }` (nested lines are indented deeper, and strings hold no raw newline), so parts
 * are cut without a streaming JSON parser; each entry is then checked with `JSON.parse`.
 * Memory holds one read chunk and one entry. A shard's part starts with a header entry and
 * ends with a trailer entry (`part_meta.ts`), kept apart from the traces' entries.
 *
 * @example
 * ```ts
 * import { PartReader } from "./part_reader.ts";
 * import assert from "node:assert/strict";
 * const path = await Deno.makeTempFile();
 * await Deno.writeTextFile(path, '{"trace_index":1}\n{"trace_index":4}\n');
 * await using part = await PartReader.open(path);
 * assert.equal(part.format, "jsonl");
 * assert.equal((await part.next())?.index, 1);
 * assert.equal((await part.next())?.text, '{"trace_index":4}');
 * assert.equal(await part.next(), undefined);
 * await Deno.remove(path);
 * ```
 *
 * @module
 */

import { InputError } from "../command.ts";
import { fileProblem } from "../file_problems.ts";
import type { OutputFormat } from "../../core/log_scoring/mod.ts";
import { PART_END_KEY, type PartHeader, partMeta, type PartTrailer } from "./part_meta.ts";

/** One entry of a part. */
export interface PartEntry {
  /** Its `trace_index`. */
  readonly index: number;
  /** Its text as written (no separator, no newline). */
  readonly text: string;
}

/** Bytes read from a part at a time. */
const CHUNK = 64 * 1024;
/** The bytes that end an entry of the `json` layout: `\n  }`. */
const JSON_ENTRY_END = [0x0a, 0x20, 0x20, 0x7d];
const NEWLINE = 0x0a;
/** The bytes read from a part's end to find its trailer. */
const TAIL_BYTES = 4096;
/** A trailer entry ending a part, in either layout. */
const TRAILER = new RegExp(`"${PART_END_KEY}":\\s*(\\{[^{}]*\\})\\s*\\}\\s*\\]?\\s*$`);

/** A range shard's header or trailer entry. */
type PartMeta = { readonly header: PartHeader } | { readonly trailer: PartTrailer };

/**
 * An open part file. It works on bytes: an entry is found by searching only the bytes read
 * since the last search, and the buffer grows by doubling, so reading a part costs time in
 * proportion to its size however long one entry is (a string grown and searched after every
 * read would cost the square of an entry's length). Entries are decoded one at a time.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { PartReader } from "./part_reader.ts";
 * const path = await Deno.makeTempFile({ suffix: ".json" });
 * await Deno.writeTextFile(path, '[\n  {\n    "trace_index": 0\n  },\n  {\n    "trace_index": 2\n  }\n]\n');
 * const indices: number[] = [];
 * {
 *   await using part = await PartReader.open(path);
 *   for (let entry = await part.next(); entry; entry = await part.next()) indices.push(entry.index);
 *   assert.equal(part.format, "json");
 * }
 * assert.deepEqual(indices, [0, 2]);
 * await Deno.remove(path);
 * ```
 */
export class PartReader implements AsyncDisposable {
  readonly #file: Deno.FsFile;
  #buffer = new Uint8Array(CHUNK);
  /** The first unread byte. */
  #at = 0;
  /** The end of the bytes read. */
  #filled = 0;
  /** Where the search for the current entry's end resumes. */
  #searched = 0;
  #done = false;
  #closed = false;
  #ended = false;
  #count = 0;
  #last = -1;
  readonly #decoder = new TextDecoder("utf-8", { fatal: true });
  /** The first entry when it is a trace's (read to look for a header); null: none kept. */
  #peeked: PartEntry | undefined | null = null;
  /** A shard's header (its first entry); undefined for a whole run's output. */
  header: PartHeader | undefined;
  /** A shard's trailer (its last entry), once read. */
  trailer: PartTrailer | undefined;
  /** The format, once told from the first bytes. */
  format: OutputFormat = "jsonl";
  /** Bytes of the part searched for entry ends (each at most once), for tests. */
  scanned = 0;

  private constructor(readonly path: string, file: Deno.FsFile) {
    this.#file = file;
  }

  /**
   * Opens `path` and reads enough to tell its format.
   *
   * @throws {InputError} naming the file when it cannot be read or is not a `batch` output.
   */
  static async open(path: string): Promise<PartReader> {
    let file: Deno.FsFile;
    try {
      file = await Deno.open(path);
    } catch (error) {
      throw new InputError(`${path}: ${readProblem(error)}`);
    }
    const part = new PartReader(path, file);
    try {
      await part.#start();
      await part.#peek();
    } catch (error) {
      await part[Symbol.asyncDispose]();
      throw error;
    }
    return part;
  }

  /** Tells the format from the first bytes (a UTF-8 byte order mark skipped). */
  async #start(): Promise<void> {
    await this.#want(3);
    if (this.#startsWith([0xef, 0xbb, 0xbf])) this.#at += 3;
    while (!this.#done && this.#firstNonBlank() === undefined) await this.#more();
    const first = this.#firstNonBlank();
    await this.#want(2);
    if (first === undefined || first === 0x7b) this.format = "jsonl";
    else if (this.#startsWith([0x5b, NEWLINE]) || this.#startsWith([0x5b, 0x5d])) {
      this.format = "json";
      this.#at += 1;
    } else {
      throw new InputError(
        `${this.path}: not a batch output (json output starts with '[' and a line break, jsonl with '{')`,
      );
    }
    this.#searched = this.#at;
  }

  /**
   * The next entry, or undefined after the last (a range shard's trailer, which is then in
   * {@link PartReader.trailer}, is not an entry).
   *
   * @throws {InputError} naming the file and the entry for a malformed or truncated part, or
   * entries out of `trace_index` order (in a range shard's part: not 0, 1, 2, …).
   */
  async next(): Promise<PartEntry | undefined> {
    if (this.#peeked !== null) {
      const peeked = this.#peeked;
      this.#peeked = null;
      return peeked;
    }
    if (this.trailer !== undefined) return undefined;
    const read = await this.#read();
    if (read === undefined) {
      if (this.header !== undefined) throw this.#malformed("it has no trailer entry");
      return undefined;
    }
    if ("header" in read) throw new InputError(`${this.path}: a second header entry`);
    if ("trailer" in read) {
      if (this.header === undefined) {
        throw new InputError(`${this.path}: a trailer entry without a header entry`);
      }
      if ((await this.#read()) !== undefined) {
        throw new InputError(`${this.path}: entries after its trailer entry`);
      }
      this.trailer = read.trailer;
      return undefined;
    }
    return read;
  }

  /** The first entry: the header of a range shard's part, or kept for {@link next}. */
  async #peek(): Promise<void> {
    const read = await this.#read();
    if (read !== undefined && "header" in read) this.header = read.header;
    else if (read !== undefined && "trailer" in read) {
      throw new InputError(`${this.path}: a trailer entry without a header entry`);
    } else this.#peeked = read;
  }

  /** The next entry read and checked, a header or trailer, or undefined at the end. */
  async #read(): Promise<PartEntry | PartMeta | undefined> {
    const text = this.format === "json" ? await this.#nextJson() : await this.#nextLine();
    if (text === undefined) return undefined;
    const where = `${this.path}: entry ${this.#count}`;
    this.#count++;
    let entry: unknown;
    try {
      entry = JSON.parse(text);
    } catch {
      throw new InputError(`${where} is not valid JSON`);
    }
    let meta: PartMeta | undefined;
    try {
      meta = partMeta(entry);
    } catch (error) {
      throw new InputError(`${where}: ${(error as Error).message}`);
    }
    if (meta !== undefined) return meta;
    const index = (entry as { trace_index?: unknown } | null)?.trace_index;
    if (typeof index !== "number" || !Number.isSafeInteger(index) || index < 0) {
      throw new InputError(`${where} has no trace_index (a whole number)`);
    }
    if (this.header?.mode === "range" && index !== this.#last + 1) {
      throw new InputError(
        `${where}: trace_index ${index} where a range shard's part holds ${this.#last + 1}`,
      );
    }
    if (index <= this.#last) {
      throw new InputError(`${where}: trace_index ${index} comes after ${this.#last}`);
    }
    this.#last = index;
    return { index, text };
  }

  /**
   * A range shard's trailer read from the end of the part file, before its entries are read
   * (so `merge` can check the shards' boundaries first); undefined when the tail holds none.
   */
  async trailerFromTail(): Promise<PartTrailer | undefined> {
    let file: Deno.FsFile | undefined;
    try {
      file = await Deno.open(this.path);
      const size = (await file.stat()).size;
      const length = Math.min(size, TAIL_BYTES);
      await file.seek(size - length, Deno.SeekMode.Start);
      const bytes = new Uint8Array(length);
      for (let at = 0; at < length;) {
        const count = await file.read(bytes.subarray(at));
        if (count === null) break;
        at += count;
      }
      const tail = new TextDecoder().decode(bytes);
      const match = TRAILER.exec(tail);
      if (!match) return undefined;
      let fields: unknown;
      try {
        fields = JSON.parse(match[1]!);
      } catch {
        return undefined;
      }
      let meta: PartMeta | undefined;
      try {
        meta = partMeta({ [PART_END_KEY]: fields });
      } catch (error) {
        throw new InputError(
          `${this.path}: its trailer entry: ${(error as Error).message} (a part written by ` +
            `another version of petri-serve? re-run its shard)`,
        );
      }
      return meta && "trailer" in meta ? meta.trailer : undefined;
    } catch (error) {
      if (error instanceof InputError) throw error;
      throw new InputError(`${this.path}: ${readProblem(error)}`);
    } finally {
      file?.close();
    }
  }

  /** Stops reading and closes the file. */
  [Symbol.asyncDispose](): Promise<void> {
    if (!this.#closed) this.#file.close();
    this.#closed = true;
    this.#done = true;
    return Promise.resolve();
  }

  async #nextLine(): Promise<string | undefined> {
    for (;;) {
      const end = this.#find(NEWLINE);
      if (end !== -1) {
        const line = this.#take(end, end + 1);
        if (line.trim() === "") continue;
        return line;
      }
      if (this.#done) {
        const rest = this.#take(this.#filled, this.#filled);
        return rest.trim() === "" ? undefined : rest;
      }
      await this.#more();
    }
  }

  async #nextJson(): Promise<string | undefined> {
    if (this.#ended) return undefined;
    // After "[" (first) or the previous entry: "\n  {" starts one, "\n]\n" or "]\n" ends.
    await this.#want(4);
    if (this.#count === 0 && this.#startsWith([0x5d])) return this.#end(1);
    if (this.#count > 0 && this.#startsWith([NEWLINE, 0x5d])) return this.#end(2);
    const head = this.#count === 0 ? "\n  {" : ",\n  {";
    await this.#want(head.length);
    if (!this.#startsWith([...head].map((c) => c.charCodeAt(0)))) {
      throw this.#malformed(
        this.#done && this.#filled - this.#at < head.length
          ? "it ends before the list is closed"
          : `expected ${this.#count === 0 ? "an entry" : "',' and an entry, or ']'"}`,
      );
    }
    // The entry starts at its "  {"; skip the separator before it.
    this.#at += head.length - 3;
    this.#searched = this.#at;
    for (;;) {
      const found = this.#find(NEWLINE);
      if (found !== -1) {
        // A line break: the entry's end when "  }" follows (reading more moves the bytes).
        const offset = found - this.#at;
        const length = JSON_ENTRY_END.length;
        while (!this.#done && this.#filled - this.#at - offset < length) await this.#more();
        const end = this.#at + offset;
        if (JSON_ENTRY_END.every((b, i) => this.#buffer[end + i] === b)) {
          return this.#take(end + length, end + length);
        }
        this.#searched = end + 1;
        continue;
      }
      if (this.#done) throw this.#malformed("it ends inside an entry");
      await this.#more();
    }
  }

  /**
   * The position of the next `byte` at or after where the last search stopped, or -1 (the
   * search then resumes after the bytes read so far: no byte is searched twice).
   */
  #find(byte: number): number {
    const from = Math.max(this.#searched, this.#at);
    const found = this.#buffer.subarray(0, this.#filled).indexOf(byte, from);
    const stop = found === -1 ? this.#filled : found + 1;
    this.scanned += stop - from;
    this.#searched = found === -1 ? this.#filled : found;
    return found;
  }

  /** The text of the unread bytes up to `end`, which are then read up to `next`. */
  #take(end: number, next: number): string {
    let text: string;
    try {
      text = this.#decoder.decode(this.#buffer.subarray(this.#at, end));
    } catch {
      throw new InputError(`${this.path}: not UTF-8 text (at entry ${this.#count})`);
    }
    this.#at = next;
    this.#searched = next;
    return text;
  }

  /** Checks what follows the closing bracket (a newline, then nothing). */
  async #end(skip: number): Promise<undefined> {
    this.#at += skip;
    for (;;) {
      const rest = this.#buffer.subarray(this.#at, this.#filled);
      if (rest.some((b) => b !== 0x20 && b !== NEWLINE && b !== 0x0d && b !== 0x09)) {
        throw this.#malformed("text after the end of the list");
      }
      this.#at = this.#filled;
      if (this.#done) break;
      await this.#more();
    }
    this.#ended = true;
    return undefined;
  }

  /** Whether the unread bytes start with `bytes`. */
  #startsWith(bytes: readonly number[]): boolean {
    return this.#filled - this.#at >= bytes.length &&
      bytes.every((b, i) => this.#buffer[this.#at + i] === b);
  }

  /** The first unread byte that is not white space, if one has been read. */
  #firstNonBlank(): number | undefined {
    for (let i = this.#at; i < this.#filled; i++) {
      const b = this.#buffer[i]!;
      if (b !== 0x20 && b !== NEWLINE && b !== 0x0d && b !== 0x09) return b;
    }
    return undefined;
  }

  /** Reads until `count` bytes are buffered past the position, or the file ends. */
  async #want(count: number): Promise<void> {
    while (!this.#done && this.#filled - this.#at < count) await this.#more();
  }

  /** Reads one more chunk: into free space, else after moving the unread bytes forward, else into a buffer twice the size. */
  async #more(): Promise<void> {
    if (this.#buffer.length - this.#filled < CHUNK) {
      const unread = this.#filled - this.#at;
      const target = this.#buffer.length - unread >= CHUNK
        ? this.#buffer
        : new Uint8Array(Math.max(2 * this.#buffer.length, unread + CHUNK));
      target.set(this.#buffer.subarray(this.#at, this.#filled));
      this.#buffer = target;
      this.#searched -= this.#at;
      this.#filled = unread;
      this.#at = 0;
    }
    let count: number | null;
    try {
      count = await this.#file.read(this.#buffer.subarray(this.#filled));
    } catch (error) {
      this.#done = true;
      throw new InputError(`${this.path}: ${readProblem(error)}`);
    }
    if (count === null) this.#done = true;
    else this.#filled += count;
  }

  #malformed(why: string): InputError {
    return new InputError(
      `${this.path}: not a complete batch output: ${why} (at entry ${this.#count})`,
    );
  }
}

function readProblem(error: unknown): string {
  if (error instanceof Deno.errors.IsADirectory) return "is a directory, not a part file";
  if (error instanceof TypeError) return "not UTF-8 text";
  return fileProblem(error);
}
