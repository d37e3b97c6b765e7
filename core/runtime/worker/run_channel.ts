/**
 * A shared-memory path for ORT runs between the main-thread proxy and the worker: the main
 * thread writes a run's feeds into one `SharedArrayBuffer` and wakes the worker with
 * `Atomics.notify`; the worker writes the outputs in the same area and notifies back, with no
 * message built or cloned. One run at a time; a run that does not fit takes the message path.
 *
 * Layout, in 32-bit words: feeds `[count]`, then per feed `[nameLength, ...nameCharCodes, type
 * (0 float32, 1 bool), rank, ...dims, length, ...data]`; outputs `[count]`, then per output
 * `[nameLength, ...nameCharCodes, length, ...data]`; an error `[messageLength, ...charCodes]`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { RunChannel } from "./run_channel.ts";
 * const channel = new RunChannel(new SharedArrayBuffer(1024));
 * assert.ok(channel.writeFeeds({ x: { type: "float32", data: new Float32Array([1, 2]), dims: [1, 2] } }));
 * assert.deepEqual([...channel.readFeeds().x!.data as Float32Array], [1, 2]);
 * ```
 *
 * @module
 */

import { freshFloats } from "../fresh_floats.ts";
import type { WireTensor } from "./protocol.ts";

/** Bytes of the shared buffer of one session: 1,024 rows of a 250-place net. */
export const RUN_CHANNEL_BYTES = 4 << 20;

/** Control words: the request counter, the response counter, the response status. */
const REQUEST = 0;
const RESPONSE = 1;
const STATUS = 2;
/** The data area starts after the control block (64 bytes: its own cache line). */
const DATA_WORD = 16;

/** Names remembered by position: more than any graph of the contract has inputs or outputs. */
const MAX_NAMES = 16;

const FLOAT32 = 0;
const BOOL = 1;

/** Whether this runtime can use a {@link RunChannel} (a browser page must be cross-origin isolated). */
export function runChannelSupported(): boolean {
  return typeof SharedArrayBuffer === "function" &&
    typeof (Atomics as { waitAsync?: unknown }).waitAsync === "function";
}

type WaitAsync = (
  array: Int32Array,
  index: number,
  value: number,
) => { async: false; value: string } | { async: true; value: Promise<string> };

/** Resolves once `control[index]` no longer holds `value` (at once when it already differs). */
function waitChange(control: Int32Array, index: number, value: number): Promise<unknown> | null {
  const wait = (Atomics as unknown as { waitAsync: WaitAsync }).waitAsync(control, index, value);
  return wait.async ? wait.value : null;
}

/** One side's view of the shared buffer; both sides build one over the same buffer. */
export class RunChannel {
  readonly #control: Int32Array;
  readonly #words: Int32Array;
  readonly #floats: Float32Array;
  /** The names last read, by position ({@link RunChannel.#name}). */
  readonly #names: string[] = [];

  /** A view of `buffer`; both sides build one over the same buffer. */
  constructor(buffer: SharedArrayBuffer) {
    this.#control = new Int32Array(buffer, 0, DATA_WORD);
    this.#words = new Int32Array(buffer, DATA_WORD * 4);
    this.#floats = new Float32Array(buffer, DATA_WORD * 4);
  }

  /**
   * Writes a run's feeds; `false` when they do not fit or a feed is of another kind. Feeds fill
   * half the area at most, so that the outputs, no larger in the graph contract, fit too.
   */
  writeFeeds(feeds: Readonly<Record<string, WireTensor>>): boolean {
    const words = this.#words;
    const names = Object.keys(feeds);
    const limit = words.length >> 1;
    let at = 1;
    for (const name of names) {
      const { type, data, dims } = feeds[name]!;
      const size = 1 + name.length + 3 + dims.length + data.length;
      if (at + size > limit) return false;
      at = writeText(words, at, name);
      words[at++] = type === "bool" ? BOOL : FLOAT32;
      words[at++] = dims.length;
      for (const dim of dims) words[at++] = dim;
      words[at++] = data.length;
      if (data instanceof Float32Array) {
        if (type !== "float32") return false;
        this.#floats.set(data, at);
      } else {
        if (type !== "bool") return false;
        for (let i = 0; i < data.length; i++) words[at + i] = data[i] ? 1 : 0;
      }
      at += data.length;
    }
    words[0] = names.length;
    return true;
  }

  /** Reads the feeds written by {@link RunChannel.writeFeeds}, copied out of the shared buffer. */
  readFeeds(): Record<string, WireTensor> {
    const words = this.#words;
    const feeds: Record<string, WireTensor> = {};
    let at = 1;
    for (let n = words[0]!, k = 0; n > 0; n--, k++) {
      const name = this.#name(k, at);
      at += 1 + name.length;
      const type = words[at++] === BOOL ? "bool" : "float32";
      const rank = words[at++]!;
      const dims = new Array<number>(rank);
      for (let d = 0; d < rank; d++) dims[d] = words[at + d]!;
      at += rank;
      const length = words[at++]!;
      let data: WireTensor["data"];
      if (type === "bool") {
        const flags = new Array<boolean>(length);
        for (let i = 0; i < length; i++) flags[i] = words[at + i] !== 0;
        data = flags;
      } else {
        data = this.#floats.slice(at, at + length);
      }
      at += length;
      feeds[name] = { type, data, dims };
    }
    return feeds;
  }

  /** The `k`-th name at word `at`: the last string read there when unchanged, so reads build none. */
  #name(k: number, at: number): string {
    const words = this.#words;
    const length = words[at]!;
    const known = this.#names[k];
    if (known !== undefined && known.length === length) {
      let same = true;
      for (let i = 0; i < length && same; i++) same = known.charCodeAt(i) === words[at + 1 + i];
      if (same) return known;
    }
    const name = readText(words, at)[0];
    if (k < MAX_NAMES) this.#names[k] = name;
    return name;
  }

  /**
   * Writes a run's float outputs; `false` when they do not fit (the run is reported another way).
   */
  writeOutputs(outputs: Readonly<Record<string, Float32Array>>): boolean {
    const words = this.#words;
    const names = Object.keys(outputs);
    let at = 1;
    for (const name of names) {
      const data = outputs[name]!;
      if (at + 2 + name.length + data.length > words.length) return false;
      at = writeText(words, at, name);
      words[at++] = data.length;
      this.#floats.set(data, at);
      at += data.length;
    }
    words[0] = names.length;
    return true;
  }

  /** Reads the outputs written by {@link RunChannel.writeOutputs}, copied out. */
  readOutputs(): Record<string, Float32Array> {
    const words = this.#words;
    const outputs: Record<string, Float32Array> = {};
    let at = 1;
    for (let n = words[0]!, k = 0; n > 0; n--, k++) {
      const name = this.#name(k, at);
      at += 1 + name.length;
      const length = words[at++]!;
      const data = freshFloats(length);
      data.set(this.#floats.subarray(at, at + length));
      outputs[name] = data;
      at += length;
    }
    return outputs;
  }

  /** Writes a failed run's error message (cut to fit). */
  writeError(message: string): void {
    writeText(this.#words, 0, message.slice(0, Math.min(4096, this.#words.length - 1)));
  }

  /** Reads the message written by {@link RunChannel.writeError}. */
  readError(): string {
    return readText(this.#words, 0)[0];
  }

  /**
   * Main side: announces the feeds just written as run `seq`; resolves with whether the worker
   * answered with outputs (`true`) or an error (`false`).
   *
   * @example
   * ```ts
   * import assert from "node:assert/strict";
   * import { RunChannel } from "./run_channel.ts";
   * const buffer = new SharedArrayBuffer(1024);
   * const main = new RunChannel(buffer);
   * const worker = new RunChannel(buffer); // the worker's view of the same memory
   * // Atomics.waitAsync does not keep Deno's event loop alive (the worker does in use): a timer does.
   * const keepAlive = setInterval(() => {}, 1000);
   * const answered = main.request(1);
   * assert.equal(await worker.nextRequest(0), 1);
   * worker.respond(1, true);
   * assert.equal(await answered, true);
   * clearInterval(keepAlive);
   * ```
   */
  async request(seq: number): Promise<boolean> {
    const control = this.#control;
    Atomics.store(control, REQUEST, seq);
    Atomics.notify(control, REQUEST, 1);
    // The response counter holds the previous run's number until the worker answers this one.
    for (let seen = Atomics.load(control, RESPONSE); seen !== seq;) {
      await waitChange(control, RESPONSE, seen);
      seen = Atomics.load(control, RESPONSE);
    }
    return Atomics.load(control, STATUS) === 0;
  }

  /** Worker side: resolves with the number of the next requested run after `seen`. */
  async nextRequest(seen: number): Promise<number> {
    const control = this.#control;
    while (Atomics.load(control, REQUEST) === seen) await waitChange(control, REQUEST, seen);
    return Atomics.load(control, REQUEST);
  }

  /** Worker side: announces run `seq`'s outputs, or its error when `ok` is false, and wakes the main thread. */
  respond(seq: number, ok: boolean): void {
    const control = this.#control;
    Atomics.store(control, STATUS, ok ? 0 : 1);
    Atomics.store(control, RESPONSE, seq);
    Atomics.notify(control, RESPONSE, 1);
  }
}

function writeText(words: Int32Array, at: number, text: string): number {
  words[at++] = text.length;
  for (let i = 0; i < text.length; i++) words[at++] = text.charCodeAt(i);
  return at;
}

function readText(words: Int32Array, at: number): [string, number] {
  const length = words[at++]!;
  return [String.fromCharCode(...words.subarray(at, at + length)), at + length];
}
