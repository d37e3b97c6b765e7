/**
 * Lets heavy requests through one per turn of the event loop. Parsing a 1 MiB body, or writing
 * a 60,000-row answer, is tens to hundreds of milliseconds of work on the thread that also
 * accepts connections and answers `/healthz`; when several such requests become ready in the
 * same turn (their bodies completed together, or their rows shared one model run), their work
 * would run back to back and a health probe would wait for all of it. Each heavy section awaits
 * {@link Turnstile.turn} first: the turnstile releases one waiter per timer turn, so the event
 * loop polls its sockets between two heavy sections and a probe waits for one at most.
 *
 * The waiters form the server's queue for its own thread: a waiter may carry a deadline and a
 * signal, and one whose deadline passes, or whose signal aborts, leaves the line with `false`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { Turnstile } from "./turnstile.ts";
 * const turnstile = new Turnstile();
 * const order: number[] = [];
 * await Promise.all([1, 2, 3].map(async (n) => {
 *   await turnstile.turn();
 *   order.push(n);
 * }));
 * assert.deepEqual(order, [1, 2, 3]); // first come, first through
 * ```
 *
 * @module
 */

/** See the module doc. */
export class Turnstile {
  readonly #waiting: Waiter[] = [];
  #scheduled = false;

  /** Waiters not let through yet. */
  get waiting(): number {
    return this.#waiting.length;
  }

  /**
   * How long the first waiter in line has waited, in ms; 0 when nobody waits.
   *
   * @example
   * ```ts
   * import assert from "node:assert/strict";
   * import { Turnstile } from "./turnstile.ts";
   * assert.equal(new Turnstile().oldestWaitMs, 0);
   * ```
   */
  get oldestWaitMs(): number {
    const first = this.#waiting[0];
    return first === undefined ? 0 : performance.now() - first.since;
  }

  /**
   * Resolves on a turn of the event loop of its own, after the waiters that came before.
   *
   * @example
   * ```ts
   * import assert from "node:assert/strict";
   * import { Turnstile } from "./turnstile.ts";
   * const turnstile = new Turnstile();
   * let through = false;
   * const turn = turnstile.turn().then(() => (through = true));
   * await Promise.resolve();
   * assert.equal(through, false); // not within the same turn
   * await turn;
   * assert.equal(through, true);
   * ```
   */
  turn(): Promise<void> {
    const { promise, resolve } = Promise.withResolvers<void>();
    this.#waiting.push({
      since: performance.now(),
      deadline: Infinity,
      signal: undefined,
      settle: () => resolve(),
    });
    this.#schedule();
    return promise;
  }

  /**
   * As {@link Turnstile.turn}, but gives up when `performance.now()` passes `deadline` or
   * `signal` aborts before the turn comes: resolves `true` when let through, else `false`.
   *
   * @example
   * ```ts
   * import assert from "node:assert/strict";
   * import { Turnstile } from "./turnstile.ts";
   * const turnstile = new Turnstile();
   * assert.equal(await turnstile.turnBefore(performance.now() + 60_000), true);
   * assert.equal(await turnstile.turnBefore(performance.now() - 1), false); // already late
   * ```
   */
  turnBefore(deadline: number, signal?: AbortSignal): Promise<boolean> {
    const { promise, resolve } = Promise.withResolvers<boolean>();
    this.#waiting.push({ since: performance.now(), deadline, signal, settle: resolve });
    this.#schedule();
    return promise;
  }

  #schedule(): void {
    if (this.#scheduled || this.#waiting.length === 0) return;
    this.#scheduled = true;
    setTimeout(() => {
      this.#scheduled = false;
      // Those that gave up leave the line without using a turn.
      const now = performance.now();
      let next = this.#waiting.shift();
      while (next && (next.deadline < now || next.signal?.aborted)) {
        next.settle(false);
        next = this.#waiting.shift();
      }
      next?.settle(true);
      this.#schedule();
    }, 0);
  }
}

interface Waiter {
  readonly since: number;
  readonly deadline: number;
  readonly signal: AbortSignal | undefined;
  readonly settle: (through: boolean) => void;
}
