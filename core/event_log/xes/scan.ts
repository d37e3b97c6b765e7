/**
 * Finds where the traces of an XES log start in its bytes: the `<` of each `<trace` start tag
 * that is a child of the root `<log>`. A small XML lexer follows only what decides where
 * markup is (tags, quoted values, comments, CDATA, processing instructions, DOCTYPE) and counts
 * open elements, never decoding text. From a known state the scan is exact; from an arbitrary
 * offset it accepts a `<trace` only at the lowest depth seen, since attribute values cannot
 * hold `<` and the first `<` read is real markup.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { XesScanner } from "./scan.ts";
 * const text = '<log><trace a="x>"/><![CDATA[<trace>]]><trace/></log>';
 * const scanner = XesScanner.exact({ depth: 0, from: 6 });
 * assert.equal(scanner.scan(new TextEncoder().encode(text), 0), 39);
 * ```
 *
 * @module
 */

import { isSpace, type TraceScanner } from "../scan.ts";

const enum State {
  Text,
  /** After `<`. */
  Lt,
  /** After `<!`. */
  Bang,
  /** After `<!-`. */
  BangDash,
  /** After `<![`, up to the second `[` of `<![CDATA[`. */
  CdataHead,
  Comment,
  Cdata,
  Pi,
  /** `<!DOCTYPE …>` and other declarations, outside the internal subset. */
  Decl,
  /** Inside a declaration's `[…]` internal subset. */
  Subset,
  /** Inside a comment of the internal subset. */
  SubsetComment,
  /** The element name of a start tag. */
  Name,
  /** A start tag after its name. */
  Tag,
  /** A double-quoted attribute value (also a quoted literal of a declaration). */
  Dq,
  /** A single-quoted one. */
  Sq,
  /** An end tag `</…>`. */
  EndTag,
}

const LT = 0x3c;
const GT = 0x3e;
const BANG = 0x21;
const QUESTION = 0x3f;
const SLASH = 0x2f;
const DASH = 0x2d;
const OPEN_SQUARE = 0x5b;
const CLOSE_SQUARE = 0x5d;
const DQUOTE = 0x22;
const SQUOTE = 0x27;
const COLON = 0x3a;
const TRACE = [0x74, 0x72, 0x61, 0x63, 0x65]; // "trace"
/** Longer names are not compared (no `prefix:trace` is this long in practice). */
const MAX_NAME = 256;

/** How a scan started, and so which `<trace` tags it accepts. */
interface Mode {
  /** Accepts trace starts at this offset and after. */
  readonly from: number;
  /** Exact: depth 1 only; resync: the lowest relative depth seen. */
  readonly resync: boolean;
}

/**
 * The XES lexer.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { XesScanner } from "./scan.ts";
 * // From byte 5 of `…"/><trace>…`: inside an attribute value, then a trace start.
 * const bytes = new TextEncoder().encode('<trace k="v>"/><trace></trace>');
 * assert.equal(XesScanner.resync({ from: 5 }).scan(bytes.subarray(5), 5), 15);
 * ```
 */
export class XesScanner implements TraceScanner {
  #state = State.Text;
  #depth: number;
  #lowest: number;
  /** Offset of the current tag's `<`. */
  #tagStart = -1;
  readonly #name = new Uint8Array(MAX_NAME);
  #nameLength = 0;
  /** Dashes (comment), brackets (CDATA) or `?` (PI) just read, toward the region's end. */
  #run = 0;
  /** The byte before `>` in a tag: `/` makes it empty. */
  #last = 0;
  /** In a declaration: the state to return to after a quoted literal or subset comment. */
  #declState = State.Decl;
  readonly #mode: Mode;

  private constructor(mode: Mode, depth: number) {
    this.#mode = mode;
    this.#depth = depth;
    this.#lowest = depth;
  }

  /**
   * A scan from a point of known state: outside markup, with `depth` elements open (0 at the
   * start of the file, 1 at a trace start). It accepts the depth-1 `<trace` tags at or after
   * `from`.
   *
   * @example
   * ```ts
   * import assert from "node:assert/strict";
   * import { XesScanner } from "./scan.ts";
   * const bytes = new TextEncoder().encode("<log><trace><trace/></trace><trace/></log>");
   * assert.equal(XesScanner.exact({ depth: 0, from: 6 }).scan(bytes, 0), 28); // not the nested one
   * ```
   */
  static exact(options: { readonly depth: number; readonly from: number }): XesScanner {
    return new XesScanner({ from: options.from, resync: false }, options.depth);
  }

  /**
   * A scan from an arbitrary offset, assumed outside comments, CDATA and processing
   * instructions; it accepts `<trace` tags at or after `from` at the lowest depth seen. A shard
   * starts it ahead of its range, so only a long comment holding a `<trace` can mislead it,
   * which `merge` then detects.
   */
  static resync(options: { readonly from: number }): XesScanner {
    return new XesScanner({ from: options.from, resync: true }, 0);
  }

  get undecidedFrom(): number {
    return this.#state === State.Lt || this.#state === State.Name ? this.#tagStart : Infinity;
  }

  scan(bytes: Uint8Array, base: number): number {
    const length = bytes.length;
    let i = 0;
    while (i < length) {
      switch (this.#state) {
        case State.Text: {
          const lt = bytes.indexOf(LT, i);
          if (lt === -1) return -1;
          this.#tagStart = base + lt;
          // The fast path: a tag wholly inside these bytes; anything else goes byte by byte.
          const next = lt + 1 < length ? bytes[lt + 1]! : -1;
          if (next === SLASH) {
            const gt = bytes.indexOf(GT, lt + 2);
            if (gt === -1) {
              this.#state = State.EndTag;
              return -1;
            }
            this.#closeTag();
            i = gt + 1;
            break;
          }
          let end = lt + 1;
          while (end < length) {
            const code = bytes[end]!;
            if (code <= 0x20 || code === SLASH || code === GT) break;
            end++;
          }
          if (next === -1 || next === BANG || next === QUESTION || end === length) {
            this.#state = State.Lt;
            i = lt + 1;
            break;
          }
          if (this.#isTrace(bytes, lt + 1, end)) {
            const hit = this.#accepted();
            if (hit !== -1) {
              this.#state = State.Tag;
              return hit;
            }
          }
          // The rest of the tag: to its `>`, over quoted values.
          let k = end;
          for (;;) {
            while (k < length) {
              const code = bytes[k]!;
              if (code === GT || code === DQUOTE || code === SQUOTE) break;
              k++;
            }
            if (k === length) {
              this.#state = State.Tag;
              this.#last = bytes[length - 1]!;
              return -1;
            }
            const code = bytes[k]!;
            if (code === GT) {
              if (bytes[k - 1] !== SLASH) this.#depth++;
              i = k + 1;
              break;
            }
            const quote = bytes.indexOf(code, k + 1);
            if (quote === -1) {
              this.#state = code === DQUOTE ? State.Dq : State.Sq;
              this.#declState = State.Tag;
              return -1;
            }
            k = quote + 1;
          }
          break;
        }
        case State.Lt: {
          const code = bytes[i++]!;
          if (code === BANG) this.#state = State.Bang;
          else if (code === QUESTION) {
            this.#state = State.Pi;
            this.#run = 0;
          } else if (code === SLASH) this.#state = State.EndTag;
          else {
            this.#state = State.Name;
            this.#nameLength = 0;
            this.#nameByte(code);
          }
          break;
        }
        case State.Bang: {
          const code = bytes[i++]!;
          if (code === DASH) this.#state = State.BangDash;
          else if (code === OPEN_SQUARE) this.#state = State.CdataHead;
          else this.#state = State.Decl;
          break;
        }
        case State.BangDash: {
          // `<!-` then `-` opens a comment; anything else is malformed: read it as a declaration.
          this.#state = bytes[i++] === DASH ? State.Comment : State.Decl;
          this.#run = 0;
          break;
        }
        case State.CdataHead: {
          const open = bytes.indexOf(OPEN_SQUARE, i);
          if (open === -1) return -1;
          this.#state = State.Cdata;
          this.#run = 0;
          i = open + 1;
          break;
        }
        case State.Comment:
          i = this.#regionEnd(bytes, i, DASH, 2, State.Text);
          break;
        case State.Cdata:
          i = this.#regionEnd(bytes, i, CLOSE_SQUARE, 2, State.Text);
          break;
        case State.Pi:
          i = this.#regionEnd(bytes, i, QUESTION, 1, State.Text);
          break;
        case State.SubsetComment:
          i = this.#regionEnd(bytes, i, DASH, 2, State.Subset);
          break;
        case State.Decl:
        case State.Subset:
          i = this.#declaration(bytes, i);
          break;
        case State.Name: {
          const code = bytes[i]!;
          if (isSpace(code) || code === SLASH || code === GT) {
            this.#state = State.Tag;
            this.#last = 0;
            const hit = this.#traceStart();
            if (hit !== -1) return hit;
          } else {
            this.#nameByte(code);
            i++;
          }
          break;
        }
        case State.Tag: {
          const code = bytes[i++]!;
          if (code === GT) {
            if (this.#last !== SLASH) this.#depth++;
            this.#state = State.Text;
          } else if (code === DQUOTE) {
            this.#state = State.Dq;
            this.#declState = State.Tag;
          } else if (code === SQUOTE) {
            this.#state = State.Sq;
            this.#declState = State.Tag;
          }
          this.#last = code;
          break;
        }
        case State.Dq:
        case State.Sq: {
          const quote = bytes.indexOf(this.#state === State.Dq ? DQUOTE : SQUOTE, i);
          if (quote === -1) return -1;
          this.#state = this.#declState;
          this.#last = 0;
          i = quote + 1;
          break;
        }
        case State.EndTag: {
          const gt = bytes.indexOf(GT, i);
          if (gt === -1) return -1;
          this.#closeTag();
          this.#state = State.Text;
          i = gt + 1;
          break;
        }
      }
    }
    return -1;
  }

  #nameByte(code: number): void {
    if (this.#nameLength < MAX_NAME) this.#name[this.#nameLength] = code;
    this.#nameLength++;
  }

  /** The offset of the tag just named (in #name) when it is an accepted trace start, else -1. */
  #traceStart(): number {
    if (this.#nameLength > MAX_NAME) return -1;
    return this.#isTrace(this.#name, 0, this.#nameLength) ? this.#accepted() : -1;
  }

  /** Whether the name in `bytes[from, to)` is `trace` after any prefix. */
  #isTrace(bytes: Uint8Array, from: number, to: number): boolean {
    if (to - from < TRACE.length) return false;
    const local = to - TRACE.length;
    if (local > from && bytes[local - 1] !== COLON) return false;
    for (let k = 0; k < TRACE.length; k++) {
      if (bytes[local + k] !== TRACE[k]) return false;
    }
    return true;
  }

  /** The current tag's offset when a trace start there is accepted, else -1. */
  #accepted(): number {
    const depthOk = this.#mode.resync ? this.#depth === this.#lowest : this.#depth === 1;
    return depthOk && this.#tagStart >= this.#mode.from ? this.#tagStart : -1;
  }

  #closeTag(): void {
    this.#depth--;
    if (this.#depth < this.#lowest) this.#lowest = this.#depth;
  }

  /**
   * Inside a comment (ends `-->`), CDATA section (`]]>`) or processing instruction (`?>`):
   * skips to after its end, or to the end of the bytes; returns the next index.
   */
  #regionEnd(
    bytes: Uint8Array,
    i: number,
    mark: number,
    marks: number,
    next: State,
  ): number {
    const length = bytes.length;
    while (i < length) {
      if (this.#run === 0) {
        const at = bytes.indexOf(mark, i);
        if (at === -1) return length;
        i = at;
      }
      const code = bytes[i++]!;
      if (code === mark) this.#run++;
      else if (code === GT && this.#run >= marks) {
        this.#state = next;
        this.#run = 0;
        return i;
      } else this.#run = 0;
      // "]]]>" still ends a CDATA section; "--->" is malformed, but ends the comment too.
    }
    return i;
  }

  /** A declaration (`<!DOCTYPE …>`), outside or inside its internal subset. */
  #declaration(bytes: Uint8Array, i: number): number {
    const length = bytes.length;
    while (i < length) {
      const code = bytes[i++]!;
      if (code === DQUOTE || code === SQUOTE) {
        this.#declState = this.#state;
        this.#state = code === DQUOTE ? State.Dq : State.Sq;
        return i;
      }
      if (this.#state === State.Decl) {
        if (code === OPEN_SQUARE) this.#state = State.Subset;
        else if (code === GT) {
          this.#state = State.Text;
          return i;
        }
      } else if (code === CLOSE_SQUARE) {
        this.#state = State.Decl;
      } else if (code === DASH && i >= 3 && bytes[i - 2] === DASH && bytes[i - 3] === BANG) {
        // "<!--" inside the subset (within one chunk: a comment split across chunks is read
        // as declarations, whose quotes it might hold; DOCTYPEs are rare in XES and tiny).
        this.#state = State.SubsetComment;
        this.#run = 0;
        return i;
      }
    }
    return i;
  }
}
