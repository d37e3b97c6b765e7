/**
 * Serves the built playground (`dist/web/`, see `build.ts`) under a path prefix, for
 * `cli.ts serve` (at `/playground`) and for the browser tests. The handler answers only paths
 * under its prefix and returns `undefined` for every other request, so it mounts in front of
 * any fetch handler:
 *
 * ```ts
 * import assert from "node:assert/strict";
 * import { playgroundHandler } from "./serve_static.ts";
 * const app = { fetch: (_request: Request) => Promise.resolve(new Response("from the app")) };
 * const playground = playgroundHandler(); // dist/web/ at /playground
 * const handler = async (request: Request) => (await playground(request)) ?? app.fetch(request);
 * const response = await handler(new Request("http://localhost/healthz"));
 * assert.equal(await response.text(), "from the app");
 * // Deno.serve(handler) serves both.
 * ```
 *
 * `GET` and `HEAD` only; `/playground` redirects to `/playground/`; a directory serves its
 * `index.html`; paths that climb out of the directory are not found. When the site has not been
 * built, `/playground/` answers 404 with a detail saying to run `deno task build:web`.
 *
 * @module
 */

/** The default prefix. */
export const PLAYGROUND_PREFIX = "/playground";

/** Where `deno task build:web` writes the site: `dist/web/` beside `deno.json`. */
export const PLAYGROUND_DIST: URL = new URL("../../dist/web/", import.meta.url);

/** Options of {@link playgroundHandler}. */
export interface PlaygroundOptions {
  /** Where the site is served; default {@link PLAYGROUND_PREFIX}. No trailing slash. */
  readonly prefix?: string;
}

/** A fetch handler that may decline a request (`undefined`) so the next one answers it. */
export type MaybeHandler = (request: Request) => Promise<Response | undefined>;

const CONTENT_TYPES: Readonly<Record<string, string>> = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".mjs": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".json": "application/json",
  ".map": "application/json",
  ".wasm": "application/wasm",
  ".onnx": "application/octet-stream",
  ".svg": "image/svg+xml",
  ".png": "image/png",
  ".txt": "text/plain; charset=utf-8",
};

/**
 * Builds the handler for the site in `distDir`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { playgroundHandler } from "./serve_static.ts";
 * const handler = playgroundHandler("dist/web", { prefix: "/playground" });
 * assert.equal(await handler(new Request("http://localhost/healthz")), undefined);
 * const moved = await handler(new Request("http://localhost/playground?backend=wasm"));
 * assert.equal(moved?.status, 308);
 * assert.equal(moved?.headers.get("location"), "/playground/?backend=wasm");
 * const climbing = await handler(new Request("http://localhost/playground/..%5Cdeno.json"));
 * assert.equal(climbing?.status, 404);
 * await climbing?.body?.cancel();
 * ```
 */
export function playgroundHandler(
  distDir: string | URL = PLAYGROUND_DIST,
  options: PlaygroundOptions = {},
): MaybeHandler {
  const prefix = (options.prefix ?? PLAYGROUND_PREFIX).replace(/\/+$/, "");
  // Not a local directory (e.g. this module imported from JSR, without dist/): never built.
  const root = typeof distDir === "string" ? distDir.replace(/\/+$/, "") : dirPath(distDir);
  return async (request) => {
    const url = new URL(request.url);
    if (url.pathname === prefix) {
      return new Response(null, {
        status: 308,
        headers: { location: `${prefix}/${url.search}` },
      });
    }
    if (!url.pathname.startsWith(`${prefix}/`)) return undefined;
    if (request.method !== "GET" && request.method !== "HEAD") {
      return detail(405, "Method Not Allowed", { allow: "GET, HEAD" });
    }
    const relative = safeRelative(url.pathname.slice(prefix.length + 1));
    if (relative === undefined) return detail(404, "Not Found");
    if (root === undefined) return notBuilt();
    let path = `${root}/${relative || "index.html"}`;
    let info: Deno.FileInfo;
    try {
      info = await Deno.stat(path);
      if (info.isDirectory) {
        path = `${path.replace(/\/+$/, "")}/index.html`;
        info = await Deno.stat(path);
      }
    } catch (error) {
      // Not there, or not a path at all (a file used as a directory, a name too long): 404.
      const missing = error instanceof Deno.errors.NotFound;
      if (missing && (relative === "" || relative === "index.html")) return notBuilt();
      return detail(404, "Not Found");
    }
    const headers = {
      "content-type": contentType(path),
      "content-length": String(info.size),
      "cache-control": path.endsWith(".html") ? "no-cache" : "public, max-age=3600",
      "x-content-type-options": "nosniff",
    };
    if (request.method === "HEAD") return new Response(null, { headers });
    if (!info.isFile) return detail(404, "Not Found");
    const file = await Deno.open(path, { read: true });
    return new Response(file.readable, { headers });
  };
}

/** The path below the prefix, decoded and normalised; `undefined` when it is unsafe. */
function safeRelative(raw: string): string | undefined {
  let decoded: string;
  try {
    decoded = decodeURIComponent(raw);
  } catch {
    return undefined;
  }
  if (decoded.includes("\0") || decoded.includes("\\")) return undefined;
  const parts = decoded.split("/");
  if (parts.some((part) => part === ".." || part === ".")) return undefined;
  return parts.filter((part, i) => part !== "" || i === parts.length - 1).join("/");
}

function contentType(path: string): string {
  const dot = path.lastIndexOf(".");
  return CONTENT_TYPES[dot < 0 ? "" : path.slice(dot)] ?? "application/octet-stream";
}

function detail(status: number, message: string, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify({ detail: message }), {
    status,
    headers: { ...headers, "content-type": "application/json" },
  });
}

function notBuilt(): Response {
  return detail(404, "The playground is not built: run `deno task build:web`");
}

function dirPath(url: URL): string | undefined {
  if (url.protocol !== "file:") return undefined;
  return decodeURIComponent(url.pathname).replace(/\/+$/, "");
}
