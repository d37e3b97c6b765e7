/**
 * Readiness of a served model, for `GET /readyz` and `/v2/health/ready`: not ready while its
 * ORT session is being recreated, and never again once a drain has begun, so load balancers stop
 * routing before the socket closes.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { Readiness } from "./readiness.ts";
 * const readiness = new Readiness();
 * assert.equal(readiness.ready, true);
 * readiness.drain();
 * assert.equal(readiness.ready, false);
 * ```
 *
 * @module
 */

/** Whether the server takes traffic; see the module doc. */
export class Readiness {
  #draining = false;
  #modelDown = false;
  readonly #cutoff = new AbortController();

  /** True until {@link Readiness.drain} is called. */
  get ready(): boolean {
    return !this.#draining && !this.#modelDown;
  }

  /** True once {@link Readiness.drain} (or {@link Readiness.cutOff}) has been called. */
  get draining(): boolean {
    return this.#draining;
  }

  /** Marks the server as draining; it never becomes ready again. */
  drain(): void {
    this.#draining = true;
  }

  /** The drain's deadline has passed: {@link Readiness.cutoff} aborts, so requests still served get 503. */
  cutOff(): void {
    this.#draining = true;
    this.#cutoff.abort();
  }

  /** Aborts at the drain's deadline ({@link Readiness.cutOff}). */
  get cutoff(): AbortSignal {
    return this.#cutoff.signal;
  }

  /** Whether the model can run: `false` while its session is being recreated (or could not be). */
  modelAvailable(available: boolean): void {
    this.#modelDown = !available;
  }

  /**
   * The response of `GET /readyz`: 200 `{"status":"ready"}`, or 503 with `draining` or
   * `model_unavailable`.
   */
  response(): Response {
    if (this.ready) return Response.json({ status: "ready" });
    const status = this.#draining ? "draining" : "model_unavailable";
    return Response.json({ status }, { status: 503 });
  }
}
