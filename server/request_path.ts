/**
 * The path of a request's URL, as `new URL(request.url).pathname` gives it, without parsing the
 * URL when it is plainly `scheme://authority/path` with a path of letters, digits, `/`, `_` and
 * `-` (every route of the server): such a path is already in the parser's normal form. The app
 * needs the path of every request (once, to resolve its route), and URL parsing showed in the
 * profile.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { pathOf } from "./request_path.ts";
 * assert.equal(pathOf(new Request("http://localhost:8000/v2/models/m/infer?x=1")), "/v2/models/m/infer");
 * assert.equal(pathOf(new Request("http://localhost/a/../forward")), "/forward");
 * ```
 *
 * @module
 */

const PLAIN = /^[a-z][a-z0-9+.-]*:\/\/[^/?#]*(\/[A-Za-z0-9_\/-]*)(?:[?#]|$)/;

/**
 * `new URL(request.url).pathname`, taken straight from the text when that is safe.
 *
 * @example
 * ```ts
 * import { pathOf } from "./request_path.ts";
 * pathOf(new Request("http://localhost/forward")); // "/forward"
 * ```
 */
export function pathOf(request: Request): string {
  const { url } = request;
  return PLAIN.exec(url)?.[1] ?? new URL(url).pathname;
}
