/**
 * Cuts a JSON text whose top level is an array into the texts of its elements, chunk by
 * chunk, so a huge array is never held whole. Not a parser: it follows strings and bracket
 * depth only, checks the array's own punctuation, and leaves each element to `JSON.parse`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { JsonArraySplitter } from "./split.ts";
 * const splitter = new JsonArraySplitter();
 * const texts = [...splitter.push('[{"a": 1}, {"b'), ...splitter.push('": 2}]')];
 * splitter.end();
 * assert.deepEqual(texts.map((t) => t.text), ['{"a": 1}', '{"b": 2}']);
 * ```
 *
 * @module
 */

import {
  BACKSLASH,
  CLOSE_BRACE,
  CLOSE_BRACKET,
  COMMA,
  OPEN_BRACE,
  OPEN_BRACKET,
  QUOTE,
} from "./bytes.ts";
import { isSpace } from "../scan.ts";

/** One top-level element's text and where it starts (1-based line and column, 0-based offset). */
export interface JsonElementText {
  text: string;
  /** 0-based position of the element in the array. */
  index: number;
  line: number;
  column: number;
  offset: number;
}

/** A fault in the array's structure, with its position. */
export class JsonSplitError extends Error {
  override readonly name = "JsonSplitError";

  /**
   * @param message what is wrong, no final period
   * @param line 1-based line
   * @param column 1-based column
   * @param offset 0-based character offset
   */
  constructor(
    message: string,
    readonly line: number,
    readonly column: number,
    readonly offset: number,
  ) {
    super(message);
  }
}

/** The longest entry cut (a trace of a few million events), as for a JSONL line. */
const MAX_ELEMENT_CHARS = 256 * 1024 * 1024;

const enum State {
  Start,
  FirstElement,
  NextElement,
  Element,
  AfterElement,
  Done,
}

const NEWLINE = 0x0a;

/**
 * The incremental splitter: {@link JsonArraySplitter.push} each text chunk and take the
 * element texts completed so far; {@link JsonArraySplitter.end} at the end of the input.
 */
export class JsonArraySplitter {
  #state = State.Start;
  #line = 1;
  /** Offset of the current line's first character. */
  #lineStart = 0;
  /** Offset of the current chunk's first character. */
  #base = 0;
  #count = 0;
  // The element being cut: its text so far, nesting depth and string state.
  #parts: string[] = [];
  /** The characters in #parts. */
  #partsLength = 0;
  #depth = 0;
  #inString = false;
  #escaped = false;
  #start: Omit<JsonElementText, "text"> = { index: 0, line: 1, column: 1, offset: 0 };

  /**
   * Consumes a chunk of the text; returns the elements it completed.
   *
   * @throws {JsonSplitError} when the top level is not an array or its punctuation is wrong.
   */
  push(chunk: string): JsonElementText[] {
    const out: JsonElementText[] = [];
    let from = this.#state === State.Element ? 0 : -1;
    const length = chunk.length;
    try {
      for (let i = 0; i < length; i++) {
        if (this.#inString) {
          // Jump to the string's end: the next quote not escaped by an odd run of backslashes.
          if (this.#escaped) {
            this.#escaped = false;
            continue;
          }
          const quote = chunk.indexOf('"', i);
          const end = quote === -1 ? length : quote;
          let backslashes = 0;
          while (
            end - backslashes - 1 >= i && chunk.charCodeAt(end - backslashes - 1) === BACKSLASH
          ) {
            backslashes++;
          }
          if (quote === -1) {
            this.#escaped = backslashes % 2 === 1;
            break;
          }
          i = quote;
          if (backslashes % 2 === 1) continue;
          this.#inString = false;
          if (this.#state === State.Element && this.#depth === 0) {
            this.#finish(chunk.slice(from, i + 1), out);
          }
          continue;
        }
        const code = chunk.charCodeAt(i);
        if (code === NEWLINE) {
          this.#line++;
          this.#lineStart = this.#base + i + 1;
        }
        switch (this.#state) {
          case State.Element: {
            if (code === QUOTE) {
              this.#inString = true;
            } else if (code === OPEN_BRACE || code === OPEN_BRACKET) {
              this.#depth++;
            } else if (code === CLOSE_BRACE || code === CLOSE_BRACKET) {
              if (this.#depth === 0) {
                // A scalar element ends at the array's closing bracket.
                this.#finish(chunk.slice(from, i), out);
                this.#afterElement(code, i);
              } else if (--this.#depth === 0) {
                this.#finish(chunk.slice(from, i + 1), out);
              }
            } else if (this.#depth === 0 && (code === COMMA || isSpace(code))) {
              this.#finish(chunk.slice(from, i), out);
              this.#afterElement(code, i);
            }
            break;
          }
          case State.Start:
            if (isSpace(code)) break;
            if (code !== OPEN_BRACKET) {
              throw this.#error("the top level is not a list (expected '[')", i);
            }
            this.#state = State.FirstElement;
            break;
          case State.FirstElement:
          case State.NextElement:
            if (isSpace(code)) break;
            if (code === CLOSE_BRACKET) {
              if (this.#state === State.NextElement) {
                throw this.#error("a ',' before the closing ']'", i);
              }
              this.#state = State.Done;
              break;
            }
            if (code === COMMA) {
              throw this.#error(`a ',' where entry ${this.#count} should start`, i);
            }
            this.#begin(i);
            from = i;
            if (code === QUOTE) this.#inString = true;
            else if (code === OPEN_BRACE || code === OPEN_BRACKET) this.#depth = 1;
            else if (code === CLOSE_BRACE) throw this.#error("an unexpected '}'", i);
            break;
          case State.AfterElement:
            this.#afterElement(code, i);
            break;
          case State.Done:
            if (!isSpace(code)) throw this.#error("text after the end of the top-level list", i);
            break;
        }
      }
      if (this.#state === State.Element && from >= 0) {
        const part = chunk.slice(from);
        this.#parts.push(part);
        this.#partsLength += part.length;
        if (this.#partsLength > MAX_ELEMENT_CHARS) {
          throw new JsonSplitError(
            `entry ${this.#count} is longer than ${MAX_ELEMENT_CHARS} characters (the limit)`,
            this.#start.line,
            this.#start.column,
            this.#start.offset,
          );
        }
      }
    } finally {
      this.#base += length;
    }
    return out;
  }

  /**
   * Checks that the input ended after the top-level array's closing bracket.
   *
   * @throws {JsonSplitError} when it ended earlier (or was empty).
   */
  end(): void {
    if (this.#state === State.Done) return;
    if (this.#state === State.Start) {
      throw this.#error("no JSON value (the input is empty)", 0);
    }
    throw this.#error("the input ends before the top-level list is closed", 0);
  }

  /** Starts an element at position `i` of the current chunk. */
  #begin(i: number): void {
    this.#state = State.Element;
    this.#parts = [];
    this.#partsLength = 0;
    this.#depth = 0;
    this.#inString = false;
    this.#escaped = false;
    const offset = this.#base + i;
    this.#start = {
      index: this.#count,
      line: this.#line,
      column: offset - this.#lineStart + 1,
      offset,
    };
  }

  #finish(last: string, out: JsonElementText[]): void {
    this.#parts.push(last);
    out.push({ text: this.#parts.join(""), ...this.#start });
    this.#parts = [];
    this.#partsLength = 0;
    this.#count++;
    this.#state = State.AfterElement;
  }

  /** Handles a character after an element (at `i`): whitespace, `,` or the closing `]`. */
  #afterElement(code: number, i: number): void {
    if (isSpace(code)) return;
    if (code === COMMA) this.#state = State.NextElement;
    else if (code === CLOSE_BRACKET) this.#state = State.Done;
    else throw this.#error(`expected ',' or ']' after entry ${this.#count - 1}`, i);
  }

  /** An error at position `i` of the current chunk (after the last chunk: at its end). */
  #error(message: string, i: number): JsonSplitError {
    const offset = this.#base + i;
    return new JsonSplitError(
      message,
      this.#line,
      Math.max(1, offset - this.#lineStart + 1),
      offset,
    );
  }
}
