/**
 * Deno's web `Worker`, captured before the tests' in-process ORT initialises (its Emscripten
 * glue replaces `globalThis.Worker` with node's). Import it before `../../core/fixtures.ts`.
 *
 * @module
 */

/** The web `Worker` constructor. */
export const WebWorker: typeof Worker = globalThis.Worker;
