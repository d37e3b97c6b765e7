/**
 * `GET /`: a small page for a person who opens the server's address, with the served model's
 * identity and links to everything else: the API explorer (`/docs`), ReDoc, the playground,
 * the OpenAPI document, the metrics, the probes and the Open Inference Protocol's metadata.
 * Links are relative, so the page works under a path prefix too.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { homePage } from "./home.ts";
 * const html = homePage(
 *   { title: "Loans", version: "0.1.0" },
 *   { name: "loans", version: "abababababab", scenario: "loans", sha256: "ab".repeat(32), savedAt: null },
 * );
 * assert.ok(html.includes('<a href="docs">'));
 * assert.ok(html.includes("abababababab"));
 * ```
 *
 * @module
 */

import { cspHash, escapeHtml, pagePolicy } from "../http/mod.ts";
import type { ModelIdentity } from "../pipeline/mod.ts";

/** The page's one inline style block (its hash is in {@link HOME_CSP}). */
const STYLE = `
  body { margin: 0 auto; max-width: 44rem; padding: 1.5rem; font-family: sans-serif; line-height: 1.5; }
  h1 { font-size: 1.5rem; margin: 0 0 0.25rem; overflow-wrap: anywhere; }
  table { border-collapse: collapse; margin: 1rem 0; }
  th { text-align: left; padding-right: 1rem; font-weight: normal; color: #555; vertical-align: top; }
  td code { overflow-wrap: anywhere; }
  li { margin: 0.25rem 0; }
`;

/** The page's Content-Security-Policy: no script at all, its own style block, the favicon. */
export const HOME_CSP: string = pagePolicy({
  style: [await cspHash(STYLE)],
  img: ["'self'"],
});

/** The page's HTML. */
export function homePage(
  info: { readonly title: string; readonly version: string },
  model: ModelIdentity,
): string {
  const title = escapeHtml(info.title);
  const row = (key: string, value: string | null) =>
    value === null
      ? ""
      : `<tr><th scope="row">${key}</th><td><code>${escapeHtml(value)}</code></td></tr>\n`;
  const name = encodeURIComponent(model.name);
  const links: [string, string, string][] = [
    ["docs", "API explorer", "try every endpoint (Swagger UI)"],
    ["redoc", "API reference", "the same document in ReDoc"],
    ["playground/", "Playground", "run the model in your browser"],
    ["openapi.json", "openapi.json", "the OpenAPI 3.1 document"],
    ["metrics", "metrics", "Prometheus text format"],
    ["healthz", "healthz", "liveness"],
    ["readyz", "readyz", "readiness (503 while draining)"],
    [
      `v2/models/${name}`,
      `v2/models/${escapeHtml(model.name)}`,
      "Open Inference Protocol metadata",
    ],
  ];
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title} ${escapeHtml(info.version)}</title>
<link rel="icon" href="favicon.ico">
<style>${STYLE}</style>
</head>
<body>
<h1>${title}</h1>
<p>petri-serve ${escapeHtml(info.version)}, serving one Petri-net model.</p>
<table>
${row("model", model.name)}${row("version", model.version)}${row("onnx_sha256", model.sha256)}${
    row("saved_at", model.savedAt)
  }</table>
<ul>
${links.map(([href, text, what]) => `<li><a href="${href}">${text}</a>: ${what}</li>`).join("\n")}
</ul>
</body>
</html>
`;
}
