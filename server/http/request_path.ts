/**
 * The request-target as the request line sent it, and its path: what the server routes on,
 * checks and logs. `Request.url` is rebuilt from the `Host` header, so a `Host` such as
 * `x/metrics?` would move the path; the target is what follows the host in that URL.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { pathOf, targetOf } from "./request_path.ts";
 * const tricked = new Request("http://x/metrics?/healthz", { headers: { host: "x/metrics?" } });
 * assert.equal(targetOf(tricked), "/healthz");
 * assert.equal(pathOf("/a/../forward"), "/forward");
 * assert.equal(pathOf("//forward"), "//forward");
 * ```
 *
 * @module
 */

/** A target whose path is already in the URL parser's normal form (every route's is). */
const PLAIN = /^(\/[A-Za-z0-9_\/-]*)(?:[?#]|$)/;

/**
 * The request-target: `request.url` without its scheme and the `Host` it was built from (the
 * listener's address when the request had none).
 */
export function targetOf(request: Request): string {
  const { url } = request;
  const start = url.indexOf("://") + 3;
  const host = request.headers.get("host");
  if (host) {
    const end = start + host.length;
    if (url.startsWith(host, start)) return end < url.length ? url.slice(end) : "/";
  }
  const slash = url.indexOf("/", start);
  return slash < 0 ? "/" : url.slice(slash);
}

/** The path of a request-target, as `new URL(target, base).pathname` gives it. */
export function pathOf(target: string): string {
  const plain = PLAIN.exec(target)?.[1];
  if (plain !== undefined) return plain;
  // Appended, not resolved: a target such as `//forward` stays a path.
  return URL.parse(`http://localhost${target}`)?.pathname ?? target;
}

/** The host name of a `Host` header value, lower-cased, without its port (`[::1]` for IPv6). */
export function hostName(host: string): string {
  const lower = host.toLowerCase();
  if (lower.startsWith("[")) {
    const close = lower.indexOf("]");
    return close < 0 ? lower : lower.slice(0, close + 1);
  }
  const colon = lower.indexOf(":");
  return colon < 0 ? lower : lower.slice(0, colon);
}
