/**
 * Escapes text for HTML, for the `/docs` and `/redoc` pages, which put the API's title and
 * description (from the bundle's sidecar) into their markup.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { escapeHtml } from "./escape_html.ts";
 * assert.equal(escapeHtml(`<b title="x">Tom & Jerry's</b>`), "&lt;b title=&quot;x&quot;&gt;Tom &amp; Jerry&#39;s&lt;/b&gt;");
 * ```
 *
 * @module
 */

const ENTITIES: Readonly<Record<string, string>> = {
  "&": "&amp;",
  "<": "&lt;",
  ">": "&gt;",
  '"': "&quot;",
  "'": "&#39;",
};

/** `text` with `&`, `<`, `>`, `"` and `'` replaced by their entities. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ENTITIES[c]!);
}
