/**
 * Readiness of a served model, for `GET /readyz` and OIP's `/v2/health/ready`: ready once the
 * model is loaded and warmed (a {@link createApp} only ever gets such a model), not ready again
 * once a drain has begun, so load balancers stop routing before the socket closes. The listener
 * (`adapter/deno/listen.ts`) flips it; the app only reads it.
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
    return !this.#draining;
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
   * The answer of `GET /readyz`: 200 `{"status":"ready"}`, or 503 `{"status":"draining"}`.
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
    return this.ready
      ? Response.json({ status: "ready" })
      : Response.json({ status: "draining" }, { status: 503 });
  }
}
