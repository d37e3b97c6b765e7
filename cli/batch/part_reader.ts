/**
 * Reads back the entries of a `batch` output (a part of a sharded run) one at a time, for
 * `cli.ts merge`: each entry's exact text, to copy as is, and its `trace_index`. The format
 * is told from the first character: `[` for `json` (PETRA's layout), `{` for `jsonl`; an empty
 * file is a `jsonl` part with no entries. In the `json` layout an entry runs from `  {` to the
 * next `\n  }` (nested lines are indented deeper, and strings hold no raw newline), so parts
 * are cut without a streaming JSON parser; each entry is then checked with `JSON.parse`.
 * Memory holds one read chunk and one entry.
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

/** One entry of a part. */
export interface PartEntry {
  /** Its `trace_index`. */
  readonly index: number;
  /** Its text as written (no separator, no newline). */
  readonly text: string;
}

const JSON_ENTRY_END = "\n  }";

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
    return part;
  }

  /**
   * The next entry, or undefined after the last.
   *
   * @throws {InputError} naming the file and the entry for a malformed or truncated part, or
   * entries out of `trace_index` order.
   */
  async next(): Promise<PartEntry | undefined> {
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
    const index = (entry as { trace_index?: unknown } | null)?.trace_index;
    if (typeof index !== "number" || !Number.isSafeInteger(index) || index < 0) {
      throw new InputError(`${where} has no trace_index (a whole number)`);
    }
    if (index <= this.#last) {
      throw new InputError(`${where}: trace_index ${index} comes after ${this.#last}`);
    }
    this.#last = index;
    return { index, text };
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
    const start = this.#at + head.length - 3;
    for (;;) {
      const end = this.#buffer.indexOf(JSON_ENTRY_END, start);
      if (end !== -1) {
        this.#at = end + JSON_ENTRY_END.length;
        return this.#buffer.slice(start, this.#at);
      }
      if (this.#done) throw this.#malformed("it ends inside an entry");
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
