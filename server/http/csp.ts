/**
 * The Content-Security-Policy of each page the app serves, as strict as the page allows: no
 * source but the app's own origin, scripts and styles only from its files or, for the few
 * inline blocks of `/` and `/docs`, by their SHA-256 hash; no plugins, no `<base>`, no form
 * targets, no framing by other sites. A model's name or description, shown on every page, can
 * then never run as script, even where a renderer let markup through.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { cspHash, pagePolicy } from "./csp.ts";
 * const policy = pagePolicy({ style: [await cspHash("body { margin: 0; }")] });
 * assert.match(policy, /^default-src 'none'; style-src 'sha256-[\w+/]+=*'; /);
 * ```
 *
 * @module
 */

/**
 * The CSP source for an inline `<script>` or `<style>` block's exact text.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { cspHash } from "./csp.ts";
 * assert.equal(await cspHash(""), "'sha256-47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU='");
 * ```
 */
export async function cspHash(text: string): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text));
  return `'sha256-${btoa(String.fromCharCode(...new Uint8Array(digest)))}'`;
}

/** What one page loads, by directive; anything not named is refused. */
export interface PageSources {
  readonly script?: readonly string[];
  readonly style?: readonly string[];
  readonly img?: readonly string[];
  readonly connect?: readonly string[];
  readonly worker?: readonly string[];
  readonly font?: readonly string[];
}

/**
 * A page's policy: `default-src 'none'`, the listed sources, and the directives every page
 * gets (`base-uri`, `form-action`, `frame-ancestors`, `object-src`).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { pagePolicy } from "./csp.ts";
 * assert.equal(
 *   pagePolicy({ img: ["'self'"] }),
 *   "default-src 'none'; img-src 'self'; base-uri 'none'; form-action 'none'; " +
 *     "frame-ancestors 'none'; object-src 'none'",
 * );
 * ```
 */
export function pagePolicy(sources: PageSources): string {
  const directives = Object.entries(sources)
    .filter(([, list]) => list !== undefined && list.length > 0)
    .map(([kind, list]) => `${kind}-src ${list.join(" ")}`);
  return ["default-src 'none'", ...directives, ...EVERY_PAGE].join("; ");
}

const EVERY_PAGE = [
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
  "object-src 'none'",
];
