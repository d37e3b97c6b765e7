/**
 * Reads back the entries of a `batch` output (a part of a sharded run) one at a time, for
 * `cli.ts merge`: each entry's exact text, to copy as is, and its `trace_index`. The format
 * is told from the first character: `[` for `json` (PETRA's layout), `{` for `jsonl`; an empty
 * file is a `jsonl` part with no entries. In the `json` layout an entry runs from `  {` to the
 * next `\n  }` (nested lines are indented deeper, and strings hold no raw newline), so parts
 * are cut without a streaming JSON parser; each entry is then checked with `JSON.parse`.
 * Memory holds one read chunk and one entry. A range shard's part starts with a header entry
 * and ends with a trailer entry (`part_meta.ts`), kept apart from the traces' entries.
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
import type { OutputFormat } from "../../core/batch/entry_layout.ts";
import { PART_END_KEY, type PartHeader, partMeta, type PartTrailer } from "./part_meta.ts";

/** One entry of a part. */
export interface PartEntry {
  /** Its `trace_index`. */
  readonly index: number;
  /** Its text as written (no separator, no newline). */
  readonly text: string;
}

const JSON_ENTRY_END = "\n  }";
/** The bytes read from a part's end to find its trailer. */
const TAIL_BYTES = 4096;
/** A trailer entry ending a part, in either layout. */
const TRAILER = new RegExp(`"${PART_END_KEY}":\\s*(\\{[^{}]*\\})\\s*\\}\\s*\\]?\\s*$`);

/** A range shard's header or trailer entry. */
type PartMeta = { readonly header: PartHeader } | { readonly trailer: PartTrailer };

/**
 * An open part file.
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
  #reader: ReadableStreamDefaultReader<string>;
  #buffer: string;
  #at: number;
  #done = false;
  #ended = false;
  #count = 0;
  #last = -1;
  /** The first entry when it is a trace's (read to look for a header); null: none kept. */
  #peeked: PartEntry | undefined | null = null;
  /** A range shard's header (its first entry); undefined for any other output. */
  header: PartHeader | undefined;
  /** A range shard's trailer (its last entry), once read. */
  trailer: PartTrailer | undefined;

  private constructor(
    readonly path: string,
    readonly format: OutputFormat,
    reader: ReadableStreamDefaultReader<string>,
    buffer: string,
    at: number,
  ) {
    this.#reader = reader;
    this.#buffer = buffer;
    this.#at = at;
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
    const reader = file.readable
      .pipeThrough(new TextDecoderStream("utf-8", { fatal: true }))
      .getReader();
    let buffer = "";
    let done = false;
    try {
      while (!done && buffer.trimStart() === "") {
        const chunk = await reader.read();
        done = chunk.done;
        if (chunk.value) buffer += chunk.value;
      }
    } catch (error) {
      await reader.cancel().catch(() => {});
      throw new InputError(`${path}: ${readProblem(error)}`);
    }
    const first = buffer.trimStart()[0];
    let part: PartReader;
    if (first === undefined || first === "{") {
      part = new PartReader(path, "jsonl", reader, buffer, 0);
    } else if (buffer.startsWith("[\n") || buffer.startsWith("[]")) {
      part = new PartReader(path, "json", reader, buffer, 1);
    } else {
      await reader.cancel().catch(() => {});
      throw new InputError(
        `${path}: not a batch output (json output starts with '[' and a line break, jsonl with '{')`,
      );
    }
    part.#done = done;
    try {
      await part.#peek();
    } catch (error) {
      await part[Symbol.asyncDispose]();
      throw error;
    }
    return part;
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
    if (this.header !== undefined && index !== this.#last + 1) {
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
      const meta = partMeta({ [PART_END_KEY]: JSON.parse(match[1]!) });
      return meta && "trailer" in meta ? meta.trailer : undefined;
    } catch (error) {
      if (error instanceof SyntaxError) return undefined;
      throw new InputError(`${this.path}: ${readProblem(error)}`);
    } finally {
      file?.close();
    }
  }

  /** Stops reading and closes the file. */
  async [Symbol.asyncDispose](): Promise<void> {
    if (!this.#done) await this.#reader.cancel().catch(() => {});
    this.#done = true;
  }

  async #nextLine(): Promise<string | undefined> {
    for (;;) {
      const end = this.#buffer.indexOf("\n", this.#at);
      if (end !== -1) {
        const line = this.#buffer.slice(this.#at, end);
        this.#at = end + 1;
        if (line.trim() === "") continue;
        return line;
      }
      if (this.#done) {
        const rest = this.#buffer.slice(this.#at);
        this.#at = this.#buffer.length;
        if (rest.trim() === "") return undefined;
        return rest;
      }
      await this.#more();
    }
  }

  async #nextJson(): Promise<string | undefined> {
    if (this.#ended) return undefined;
    // After "[" (first) or the previous entry: "\n  {" starts one, "\n]\n" or "]\n" ends.
    await this.#want(4);
    const rest = this.#buffer.slice(this.#at, this.#at + 4);
    if (this.#count === 0 && rest.startsWith("]")) return this.#end(1);
    if (this.#count > 0 && rest.startsWith("\n]")) return this.#end(2);
    const head = this.#count === 0 ? "\n  {" : ",\n  {";
    await this.#want(head.length);
    if (!this.#buffer.startsWith(head, this.#at)) {
      throw this.#malformed(
        this.#done && this.#buffer.length - this.#at < head.length
          ? "it ends before the list is closed"
          : `expected ${this.#count === 0 ? "an entry" : "',' and an entry, or ']'"}`,
      );
    }
    // The entry starts at its "  {"; skip the separator before it. Reading more moves the
    // buffer's unread text to its start, so positions are kept relative to the entry's start.
    this.#at += head.length - 3;
    let searched = 0;
    for (;;) {
      const end = this.#buffer.indexOf(JSON_ENTRY_END, this.#at + searched);
      if (end !== -1) {
        const start = this.#at;
        this.#at = end + JSON_ENTRY_END.length;
        return this.#buffer.slice(start, this.#at);
      }
      if (this.#done) throw this.#malformed("it ends inside an entry");
      // The end marker may straddle the chunks: search again from its possible start.
      searched = Math.max(0, this.#buffer.length - this.#at - (JSON_ENTRY_END.length - 1));
      await this.#more();
    }
  }

  /** Checks what follows the closing bracket (a newline, then nothing). */
  async #end(skip: number): Promise<undefined> {
    this.#at += skip;
    while (!this.#done) await this.#more();
    if (this.#buffer.slice(this.#at).trim() !== "") {
      throw this.#malformed("text after the end of the list");
    }
    this.#ended = true;
    return undefined;
  }

  /** Reads until `count` characters are buffered past the position, or the file ends. */
  async #want(count: number): Promise<void> {
    while (!this.#done && this.#buffer.length - this.#at < count) await this.#more();
  }

  async #more(): Promise<void> {
    // Keep only the unread text, so the buffer holds about one chunk.
    this.#buffer = this.#buffer.slice(this.#at);
    this.#at = 0;
    try {
      const chunk = await this.#reader.read();
      if (chunk.done) this.#done = true;
      else this.#buffer += chunk.value;
    } catch (error) {
      this.#done = true;
      throw new InputError(`${this.path}: ${readProblem(error)}`);
    }
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
