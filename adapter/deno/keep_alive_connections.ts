/**
 * The keep-alive connections that may still send a request, by client address and port, for
 * the drain of `listen_shared.ts` (`Deno.serve` exposes no connections). A connection is
 * forgotten once told `Connection: close` or idle past the allowance.
 *
 * @module
 */

interface Entry {
  /** Requests of this connection whose answer is not finished. */
  active: number;
  /** When its last answer was finished (ms). */
  lastEnd: number;
}

const MIN_SWEEP = 1024;

/** The connections that may still send a request; see the module doc. */
export class KeepAliveConnections {
  readonly #connections = new Map<string, Entry>();
  #inFlight = 0;
  #sweepAt = MIN_SWEEP;

  /** Requests whose response is not finished, over every connection. */
  get inFlight(): number {
    return this.#inFlight;
  }

  /** Whether `key` is a connection that has sent a request and may send another. */
  known(key: string): boolean {
    return this.#connections.has(key);
  }

  /** Records a request arriving on connection `key`. */
  begin(key: string): void {
    let entry = this.#connections.get(key);
    if (entry === undefined) {
      entry = { active: 0, lastEnd: 0 };
      this.#connections.set(key, entry);
    }
    entry.active++;
    this.#inFlight++;
  }

  /**
   * Records the end of a response at `now` (ms); `closing` when it told the client to close.
   * Forgets long-idle connections now and then, so the map stays small.
   */
  end(key: string, now: number, closing: boolean, idleMs = 1000): void {
    this.#inFlight--;
    const entry = this.#connections.get(key);
    if (entry === undefined) return;
    entry.active--;
    entry.lastEnd = now;
    if (closing && entry.active === 0) this.#connections.delete(key);
    if (this.#connections.size >= this.#sweepAt) {
      this.#sweep(now, idleMs);
      this.#sweepAt = Math.max(MIN_SWEEP, 2 * this.#connections.size);
    }
  }

  /**
   * True when nothing is in flight and every remembered connection has been idle for at least
   * `idleMs` at `now`: no client is expected to send another request.
   */
  settled(now: number, idleMs: number): boolean {
    if (this.#inFlight > 0) return false;
    this.#sweep(now, idleMs);
    return this.#connections.size === 0;
  }

  #sweep(now: number, idleMs: number): void {
    for (const [key, entry] of this.#connections) {
      if (entry.active === 0 && now - entry.lastEnd >= idleMs) this.#connections.delete(key);
    }
  }
}
