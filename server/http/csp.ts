/**
 * The Content-Security-Policy of each page, as strict as the page allows: only the app's own
 * files, inline blocks by their SHA-256 hash, no plugins, `<base>`, form targets or framing, so
 * a model's name or description shown on a page can never run as script.
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

/** The CSP source for an inline `<script>` or `<style>` block's exact text. */
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
