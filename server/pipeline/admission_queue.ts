/**
 * The queue of requests waiting for admission (`./admission.ts`), first come, first served
 * and bounded: a request that does not fit waits here, its body unread, until it fits, its
 * deadline passes or its client hangs up. Waiting is cheap, and unlike a refusal, no retry.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { AdmissionQueue } from "./admission_queue.ts";
 * const line = new AdmissionQueue<number>(10);
 * let room = 0;
 * const waiting = line.wait(3, performance.now() + 60_000, new AbortController().signal);
 * line.pump((size) => size <= room); // no room yet
 * room = 5;
 * line.pump((size) => size <= room);
 * assert.equal(await waiting, "admitted");
 * ```
 *
 * @module
 */

/** How a wait ended. */
export type WaitOutcome = "admitted" | "expired" | "gone" | "closed";

interface Waiter<T> {
  readonly item: T;
  readonly deadline: number;
  readonly since: number;
  readonly settle: (outcome: WaitOutcome) => void;
}

/** See the module doc. */
export class AdmissionQueue<T> {
  readonly #waiters: Waiter<T>[] = [];

  /** @param capacity the most waiters; more are not taken ({@link AdmissionQueue.full}). */
  constructor(readonly capacity: number) {}

  /** Waiters now. */
  get length(): number {
    return this.#waiters.length;
  }

  /** Whether another waiter would pass the capacity. */
  get full(): boolean {
    return this.#waiters.length >= this.capacity;
  }

  /**
   * Waits in line with `item` until {@link AdmissionQueue.pump} lets it through (`"admitted"`),
   * `deadline` (a `performance.now()` time) passes (`"expired"`), `signal` aborts (`"gone"`),
   * or the line is closed (`"closed"`).
   */
  wait(item: T, deadline: number, signal?: AbortSignal): Promise<WaitOutcome> {
    const { promise, resolve } = Promise.withResolvers<WaitOutcome>();
    const waiter: Waiter<T> = {
      item,
      deadline,
      since: performance.now(),
      settle: (outcome) => {
        signal?.removeEventListener("abort", leave);
        resolve(outcome);
      },
    };
    const leave = () => {
      const at = this.#waiters.indexOf(waiter);
      if (at >= 0) this.#waiters.splice(at, 1);
      waiter.settle("gone");
    };
    if (signal?.aborted) {
      resolve("gone");
      return promise;
    }
    signal?.addEventListener("abort", leave, { once: true });
    this.#waiters.push(waiter);
    return promise;
  }

  /**
   * Lets waiters through in order while `take(item)` says they fit (`take` also reserves what
   * they take), at most `most` of them; waiters past their deadline at the head leave with
   * `"expired"`.
   */
  pump(take: (item: T) => boolean, most = Infinity): void {
    const now = performance.now();
    let admitted = 0;
    while (this.#waiters.length > 0 && admitted < most) {
      const first = this.#waiters[0]!;
      if (first.deadline <= now) {
        this.#waiters.shift();
        first.settle("expired");
        continue;
      }
      if (!take(first.item)) break;
      this.#waiters.shift();
      first.settle("admitted");
      admitted++;
    }
  }

  /** Sends every waiter away with `"closed"` (the drain's deadline). */
  close(): void {
    for (const waiter of this.#waiters.splice(0)) waiter.settle("closed");
  }
}
