/**
 * Readiness of a served model, for `GET /readyz` and OIP's `/v2/health/ready`: ready once the
 * model is loaded and warmed (a {@link createApp} only ever gets such a model), not ready while
 * its ORT session is being recreated after a failed run, and not ready again once a drain has
 * begun, so load balancers stop routing before the socket closes. The listener
 * (`adapter/deno/listen.ts`) calls {@link Readiness.drain} when the drain begins and
 * {@link Readiness.cutOff} at its deadline (admitted requests are then answered 503); the app
 * reports the model's state.
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

  /**
   * True until {@link Readiness.drain} is called.
   *
   * @example
   * ```ts
   * import assert from "node:assert/strict";
   * import { Readiness } from "./readiness.ts";
   * assert.equal(new Readiness().ready, true);
   * ```
   */
  get ready(): boolean {
    return !this.#draining && !this.#modelDown;
  }

  /**
   * True once {@link Readiness.drain} (or {@link Readiness.cutOff}) has been called.
   *
   * @example
   * ```ts
   * import assert from "node:assert/strict";
   * import { Readiness } from "./readiness.ts";
   * const readiness = new Readiness();
   * readiness.modelAvailable(false);
   * assert.deepEqual([readiness.ready, readiness.draining], [false, false]);
   * ```
   */
  get draining(): boolean {
    return this.#draining;
  }

  /**
   * Marks the server as draining; it never becomes ready again.
   *
   * @example
   * ```ts
   * import assert from "node:assert/strict";
   * import { Readiness } from "./readiness.ts";
   * const readiness = new Readiness();
   * readiness.drain();
   * assert.equal(readiness.ready, false);
   * ```
   */
  drain(): void {
    this.#draining = true;
  }

  /**
   * The drain's deadline has passed: {@link Readiness.cutoff} aborts, so the requests still
   * being served are answered 503 at once, before the socket closes. Implies a drain.
   *
   * @example
   * ```ts
   * import assert from "node:assert/strict";
   * import { Readiness } from "./readiness.ts";
   * const readiness = new Readiness();
   * readiness.cutOff();
   * assert.deepEqual([readiness.ready, readiness.cutoff.aborted], [false, true]);
   * ```
   */
  cutOff(): void {
    this.#draining = true;
    this.#cutoff.abort();
  }

  /** Aborts at the drain's deadline ({@link Readiness.cutOff}). */
  get cutoff(): AbortSignal {
    return this.#cutoff.signal;
  }

  /**
   * Whether the model can run: `false` while its session is being recreated (or could not
   * be), and readiness answers 503 `{"status":"model_unavailable"}`.
   *
   * @example
   * ```ts
   * import assert from "node:assert/strict";
   * import { Readiness } from "./readiness.ts";
   * const readiness = new Readiness();
   * readiness.modelAvailable(false);
   * assert.deepEqual(await readiness.response().json(), { status: "model_unavailable" });
   * readiness.modelAvailable(true);
   * assert.equal(readiness.ready, true);
   * ```
   */
  modelAvailable(available: boolean): void {
    this.#modelDown = !available;
  }

  /**
   * The answer of `GET /readyz`: 200 `{"status":"ready"}`, or 503 `{"status":"draining"}`
   * (`{"status":"model_unavailable"}` while the model's session is being recreated).
   *
   * @example
   * ```ts
   * import assert from "node:assert/strict";
   * import { Readiness } from "./readiness.ts";
   * const readiness = new Readiness();
   * assert.deepEqual(await readiness.response().json(), { status: "ready" });
   * readiness.drain();
   * const draining = readiness.response();
   * assert.equal(draining.status, 503);
   * assert.deepEqual(await draining.json(), { status: "draining" });
   * ```
   */
  response(): Response {
    if (this.ready) return Response.json({ status: "ready" });
    const status = this.#draining ? "draining" : "model_unavailable";
    return Response.json({ status }, { status: 503 });
  }
}
