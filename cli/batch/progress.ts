/**
 * The progress bar `batch` draws on a terminal's stderr: traces done, their rate, how far the
 * reading of the log is ({@link ByteCounter}) and the time left (unknown for standard input).
 *
 * @module
 */

import { ByteCounter } from "../../core/log_scoring/mod.ts";

export { ByteCounter };

/** A one-line progress bar on stderr, redrawn ten times a second while enabled. */
export class Progress {
  /** Traces done so far. */
  traces = 0;
  readonly #started = performance.now();
  readonly #timer: ReturnType<typeof setInterval> | undefined;
  #shown = false;

  /**
   * @param enabled draw at all (a terminal stderr, and not `--quiet`)
   * @param name the log's name, starting the line
   * @param counter how far the reading is
   */
  constructor(enabled: boolean, readonly name: string, readonly counter: ByteCounter) {
    if (!enabled) return;
    const timer = setInterval(() => this.#draw(), 100);
    Deno.unrefTimer(timer);
    this.#timer = timer;
  }

  /** Stops the redrawing and clears the bar. */
  finish(): void {
    clearInterval(this.#timer);
    if (this.#shown) this.#write("\r\x1b[2K");
    this.#shown = false;
  }

  #draw(): void {
    this.#shown = true;
    this.#write(`\r\x1b[2K${this.#line((performance.now() - this.#started) / 1000)}`);
  }

  #line(seconds: number): string {
    return progressLine(this.name, this.traces, seconds, this.counter.fraction);
  }

  #write(text: string): void {
    let bytes = new TextEncoder().encode(text);
    while (bytes.length > 0) bytes = bytes.subarray(Deno.stderr.writeSync(bytes));
  }
}

/**
 * The progress bar's text; without the bar and the time left when the fraction read is unknown.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { progressLine } from "./progress.ts";
 * assert.equal(
 *   progressLine("log.xes", 5000, 10, 0.25),
 *   "[#####---------------] 25%  log.xes: 5000 traces  500 traces/s  ETA 0:30",
 * );
 * assert.equal(progressLine("stdin", 5000, 10, undefined), "stdin: 5000 traces  500 traces/s");
 * ```
 */
export function progressLine(
  name: string,
  traces: number,
  seconds: number,
  fraction: number | undefined,
): string {
  const rate = seconds > 0 ? traces / seconds : 0;
  const parts = [`${name}: ${traces} traces`, `${Math.round(rate)} traces/s`];
  if (fraction !== undefined) {
    const width = 20;
    const full = Math.round(fraction * width);
    const bar = `[${"#".repeat(full)}${"-".repeat(width - full)}]`;
    parts.unshift(`${bar} ${Math.floor(fraction * 100)}%`);
    if (fraction > 0.005 && seconds > 1) {
      parts.push(`ETA ${clock((seconds * (1 - fraction)) / fraction)}`);
    }
  }
  return parts.join("  ");
}

function clock(seconds: number): string {
  const s = Math.round(seconds);
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  const mm = String(m).padStart(h > 0 ? 2 : 1, "0");
  return `${h > 0 ? `${h}:` : ""}${mm}:${String(s % 60).padStart(2, "0")}`;
}
