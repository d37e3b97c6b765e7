/**
 * How a failed `fetch` reads on one line, for the files petri-serve fetches from URLs (bundles
 * in `bundle_files.ts`, event logs in `log_source.ts`): a timeout says how long it waited, a
 * missing `--allow-net` says which host to allow, anything else is the error's message with
 * its line breaks folded.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { fetchFailure } from "./fetch_failure.ts";
 * const timeout = new DOMException("timed out", "TimeoutError");
 * assert.equal(fetchFailure(timeout), "no answer within 60 s");
 * ```
 *
 * @module
 */

/** How long fetching may wait for an answer (and, streaming, for the next bytes), in ms. */
export const FETCH_TIMEOUT_MS = 60_000;

/**
 * A fetch failure on one line.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { fetchFailure } from "./fetch_failure.ts";
 * const denied = new Deno.errors.NotCapable('Requires net access to "logs.example.com:443"');
 * assert.equal(
 *   fetchFailure(denied),
 *   "no net permission for logs.example.com:443 (run deno with --allow-net=logs.example.com:443)",
 * );
 * assert.equal(fetchFailure(new TypeError("error sending request\n  refused")), "error sending request refused");
 * ```
 */
export function fetchFailure(error: unknown, timeoutMs: number = FETCH_TIMEOUT_MS): string {
  if (error instanceof DOMException && error.name === "TimeoutError") {
    return `no answer within ${timeoutMs / 1000} s`;
  }
  if (error instanceof Deno.errors.NotCapable || error instanceof Deno.errors.PermissionDenied) {
    const host = /net access to "([^"]+)"/.exec(error.message)?.[1];
    if (host !== undefined) {
      return `no net permission for ${host} (run deno with --allow-net=${host})`;
    }
  }
  const text = error instanceof Error ? error.message : String(error);
  return text.replace(/\s*\n\s*/g, " ");
}
