/**
 * Finds where the entries of a JSON log (a top-level list) start in its bytes, following
 * strings and bracket depth only, never decoding. From a known element start the scan is exact;
 * from an arbitrary offset it follows both readings (inside a string or not) until one fails,
 * which happens fast because strings cannot hold a raw line break.
 *
 * @module
 */

import { concatBytes } from "../../bytes/concat_bytes.ts";
import { isSpace, type TraceScanner } from "../scan.ts";
import {
  BACKSLASH,
  CLOSE_BRACE,
  CLOSE_BRACKET,
  COMMA,
  OPEN_BRACE,
  OPEN_BRACKET,
  QUOTE,
} from "./bytes.ts";

/** The bytes that may appear outside strings (besides white space and `"`). */
const OUTSIDE = new Uint8Array(256);
for (const ch of "{}[]:,0123456789+-.eEtrufalsn") OUTSIDE[ch.charCodeAt(0)] = 1;

/** The longest candidate entry checked for the shape of an event (1 MiB); longer ones pass. */
const MAX_CHECKED = 1024 * 1024;

/** One reading of the bytes: where strings are, and the depth. */
class Reading {
  alive = true;
  inString: boolean;
  escaped = false;
  depth = 0;
  lowest = 0;
  /** The last byte outside strings that was not white space. */
  last = 0;
  /** The first entry start this reading accepted, or -1. */
  hit = -1;
  /** The start of an object being read to check it is not an event, or -1. */
  #candidate = -1;
  #candidateDepth = 0;
  /** Its bytes so far (copies), and their length. */
  #parts: Uint8Array[] = [];
  #partsLength = 0;

  constructor(inString: boolean, escaped: boolean) {
    this.inString = inString;
    this.escaped = escaped;
  }

  /**
   * Reads `bytes` (at offset `base`), noting the first entry start at or after `from`, and
   * going on so that a wrong reading still fails.
   */
  read(bytes: Uint8Array, base: number, from: number): void {
    const length = bytes.length;
    let i = 0;
    /** Where the candidate's bytes start in this chunk. */
    let captureFrom = 0;
    while (i < length) {
      const code = bytes[i]!;
      if (this.inString) {
        if (this.escaped) this.escaped = false;
        else if (code === BACKSLASH) this.escaped = true;
        else if (code === QUOTE) {
          this.inString = false;
          this.last = QUOTE;
        } else if (code < 0x20) {
          this.alive = false;
          return;
        }
        i++;
        continue;
      }
      i++;
      if (isSpace(code)) continue;
      if (code === QUOTE) {
        this.inString = true;
        continue;
      }
      if (OUTSIDE[code] !== 1) {
        this.alive = false;
        return;
      }
      if (code === OPEN_BRACE || code === OPEN_BRACKET) {
        if (
          this.hit === -1 && this.#candidate === -1 && code === OPEN_BRACE &&
          this.depth === this.lowest && base + i - 1 >= from &&
          (this.last === COMMA || this.last === OPEN_BRACKET)
        ) {
          this.#candidate = base + i - 1;
          this.#candidateDepth = this.depth;
          captureFrom = i - 1;
        }
        this.depth++;
      } else if (code === CLOSE_BRACE || code === CLOSE_BRACKET) {
        this.depth--;
        if (this.depth < this.lowest) this.lowest = this.depth;
        if (this.#candidate !== -1 && this.depth === this.#candidateDepth) {
          this.#capture(bytes.subarray(captureFrom, i));
          this.#decide();
        }
      }
      this.last = code;
    }
    if (this.#candidate !== -1) this.#capture(bytes.subarray(captureFrom));
  }

  #capture(bytes: Uint8Array): void {
    if (this.#partsLength <= MAX_CHECKED) this.#parts.push(bytes.slice());
    this.#partsLength += bytes.length;
    if (this.#partsLength > MAX_CHECKED && this.hit === -1) this.hit = this.#candidate;
  }

  /**
   * A whole candidate object is read: it starts an entry unless it has the shape of an event
   * (a `name` and no `events`), which a scan begun inside an entry's events meets first.
   */
  #decide(): void {
    if (this.hit === -1) {
      let value: unknown;
      try {
        value = JSON.parse(new TextDecoder().decode(concatBytes(this.#parts, this.#partsLength)));
      } catch {
        value = undefined; // Malformed: let the parser say so.
      }
      const event = typeof value === "object" && value !== null && "name" in value &&
        !("events" in value);
      if (!event) this.hit = this.#candidate;
    }
    this.#candidate = -1;
    this.#parts = [];
    this.#partsLength = 0;
  }
}

/**
 * The JSON list lexer.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { JsonScanner } from "./scan.ts";
 * // From inside a string holding `}, {`: the real entry comes after.
 * const bytes = new TextEncoder().encode('x}, {y": "z"}]}, {"events": []}]');
 * assert.equal(JsonScanner.resync({ from: 0 }).scan(bytes, 0), 17);
 * ```
 */
export class JsonScanner implements TraceScanner {
  readonly #from: number;
  readonly #exact: boolean;
  // Exact mode: a single state.
  #inString = false;
  #escaped = false;
  #depth = 0;
  /** The next byte that is not white space (or a comma) at depth 0 starts an element. */
  #expect = true;
  #ended = false;
  // Resync mode: three readings, the offset outside a string, inside one, or inside one just
  // after a backslash.
  readonly #readings: Reading[];

  private constructor(from: number, exact: boolean) {
    this.#from = from;
    this.#exact = exact;
    this.#readings = exact
      ? []
      : [new Reading(false, false), new Reading(true, false), new Reading(true, true)];
  }

  /**
   * A scan from the first byte of an element of the list; it accepts element starts at or
   * after `from`.
   *
   * @example
   * ```ts
   * import assert from "node:assert/strict";
   * import { JsonScanner } from "./scan.ts";
   * const bytes = new TextEncoder().encode('{"a": "]"} , "x"]');
   * assert.equal(JsonScanner.exact({ from: 1 }).scan(bytes, 0), 13); // a string element
   * ```
   */
  static exact(options: { readonly from: number }): JsonScanner {
    return new JsonScanner(options.from, true);
  }

  /**
   * A scan from an arbitrary offset inside the list; it accepts entry objects at or after
   * `from`. An entry `{` follows `,` or `[` at the lowest depth seen so far and is not shaped
   * like an event (a `name`, no `events`), which a scan begun inside an entry's events meets
   * first; a shard starts it ahead of its range so that only a very long entry can mislead it,
   * which `merge` then detects.
   */
  static resync(options: { readonly from: number }): JsonScanner {
    return new JsonScanner(options.from, false);
  }

  get undecidedFrom(): number {
    return Infinity;
  }

  /**
   * When the input ends (or the caller stops reading) undecided in resync mode: the entry
   * start of the first reading still possible, preferring the offset outside a string, then
   * inside one; -1 when it found none.
   */
  settle(): number {
    return this.#readings.find((r) => r.alive)?.hit ?? -1;
  }

  scan(bytes: Uint8Array, base: number): number {
    return this.#exact ? this.#scanExact(bytes, base) : this.#scanBoth(bytes, base);
  }

  #scanBoth(bytes: Uint8Array, base: number): number {
    for (const reading of this.#readings) {
      if (reading.alive) reading.read(bytes, base, this.#from);
    }
    // Decided when every reading still possible gives the same entry start (one reading left
    // is the document's; readings in step agree).
    const alive = this.#readings.filter((r) => r.alive);
    const hit = alive[0]?.hit ?? -1;
    return hit !== -1 && alive.every((r) => r.hit === hit) ? hit : -1;
  }

  #scanExact(bytes: Uint8Array, base: number): number {
    if (this.#ended) return -1;
    const length = bytes.length;
    let i = 0;
    /** The next backslash at or after `i` (`length`: none), found once per stretch. */
    let slash = -1;
    while (i < length) {
      if (this.#inString) {
        // Jump to the next quote or backslash.
        if (this.#escaped) {
          this.#escaped = false;
          i++;
          continue;
        }
        const quote = bytes.indexOf(QUOTE, i);
        if (slash < i) {
          slash = bytes.indexOf(BACKSLASH, i);
          if (slash === -1) slash = length;
        }
        if (slash < length && (quote === -1 || slash < quote)) {
          this.#escaped = true;
          i = slash + 1;
          continue;
        }
        if (quote === -1) return -1;
        this.#inString = false;
        i = quote + 1;
        continue;
      }
      const code = bytes[i]!;
      if (isSpace(code)) {
        i++;
        continue;
      }
      if (this.#depth === 0) {
        if (code === COMMA) {
          this.#expect = true;
          i++;
          continue;
        }
        if (code === CLOSE_BRACKET) {
          // The end of the list: nothing more starts.
          this.#ended = true;
          return -1;
        }
        if (this.#expect) {
          this.#expect = false;
          const at = base + i;
          if (at >= this.#from) return at;
        }
      }
      if (code === QUOTE) this.#inString = true;
      else if (code === OPEN_BRACE || code === OPEN_BRACKET) this.#depth++;
      else if (code === CLOSE_BRACE || code === CLOSE_BRACKET) this.#depth--;
      i++;
    }
    return -1;
  }
}
