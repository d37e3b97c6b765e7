/**
 * Serves the playground under a path prefix (`/playground` for `cli.ts serve`): the files that
 * come with the package (`playground_site.ts`), so a clone or a JSR import needs no build step,
 * or a site written by `deno task build:web --site DIR`. Given the served bundle, it also serves
 * it under `model/` and names it in the page, which then opens it instead of its example.
 * Requests outside the prefix get `undefined`, so the handler mounts in front of any other.
 *
 * Files go out as `server/static_asset.ts` sends them (ETags, 304s, compression kept); names
 * with a content hash are `immutable`, the rest revalidated. `GET` and `HEAD` only; paths and
 * links that lead out of the site are not found.
 *
 * @module
 */

import type { AnyBundleFiles } from "../../core/pt/mod.ts";
import { type FileBody, PLAYGROUND_FILES, PLAYGROUND_SOURCES } from "./playground_site.ts";
import { servedModelFiles } from "./served_model.ts";
import { IMMUTABLE, REVALIDATE, StaticAsset } from "../../server/http/mod.ts";
import { withoutBody } from "../../server/http/mod.ts";

/** The default prefix. */
export const PLAYGROUND_PREFIX = "/playground";

/** Options of {@link playgroundHandler}. */
export interface PlaygroundOptions {
  /** Where the site is served; default {@link PLAYGROUND_PREFIX}. No trailing slash. */
  readonly prefix?: string;
  /** The served bundle (`readBundleFiles`): served under `PREFIX/model/`, opened by the page. */
  readonly model?: AnyBundleFiles;
}

/** A fetch handler that may decline a request (`undefined`) so the next one handles it. */
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
 * Builds the handler for the packaged playground, or for the site in `distDir`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { playgroundHandler } from "./serve_static.ts";
 * const handler = playgroundHandler(undefined, { prefix: "/playground" });
 * assert.equal(await handler(new Request("http://localhost/healthz")), undefined);
 * const page = await handler(new Request("http://localhost/playground/"));
 * assert.equal(page?.headers.get("content-type"), "text/html; charset=utf-8");
 * await page?.body?.cancel();
 * ```
 */
export function playgroundHandler(
  distDir?: string | URL,
  options: PlaygroundOptions = {},
): MaybeHandler {
  const prefix = (options.prefix ?? PLAYGROUND_PREFIX).replace(/\/+$/, "");
  const packaged = distDir === undefined;
  // Not a local directory (e.g. a URL on JSR): there is no site there.
  const root = typeof distDir === "string" ? distDir.replace(/\/+$/, "") : dirPath(distDir);
  const packagedAssets = new Map<string, StaticAsset>();
  const siteAssets = new Map<string, { readonly stamp: string; readonly asset: StaticAsset }>();
  const served = options.model === undefined ? undefined : servedModelFiles(options.model);
  const modelAssets = new Map(
    [...served?.files ?? []].map(([path, body]) => [path, modelAsset(path, body)]),
  );
  let realRoot: Promise<string | undefined> | undefined;
  const serve = async (request: Request, asset: StaticAsset) => {
    const response = await asset.respond(request);
    return request.method === "HEAD" ? await withoutBody(response) : response;
  };
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
    const model = modelAssets.get(relative);
    if (model !== undefined) return await serve(request, model);
    // The page names the served model in its head; other files are the site's own.
    const page = served && (relative === "" || relative === "index.html") ? served : undefined;
    if (packaged) {
      const path = relative === "" || relative.endsWith("/") ? `${relative}index.html` : relative;
      const load = PLAYGROUND_FILES.get(path);
      if (load === undefined) return detail(404, "Not Found");
      let asset = packagedAssets.get(path);
      if (asset === undefined) {
        const read = page ? async () => page.page(await load() as string) : load;
        const modified = await fileModified(PLAYGROUND_SOURCES.get(path)?.());
        asset = packagedAssets.get(path) ?? packagedAsset(path, read, modified);
        packagedAssets.set(path, asset);
      }
      return await serve(request, asset);
    }
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
    if (!info.isFile) return detail(404, "Not Found");
    // A link may point anywhere: the file served is where it leads, and that must be inside.
    const file = await inside(path, realRoot ??= Deno.realPath(root).catch(() => undefined));
    if (file === undefined) return detail(404, "Not Found");
    // A file changed on disk (the site rebuilt) gets new validators.
    const stamp = `${file} ${info.size} ${info.mtime?.getTime()}`;
    let known = siteAssets.get(path);
    if (known?.stamp !== stamp) {
      const asset = new StaticAsset({
        contentType: contentType(path),
        cacheControl: cacheControl(path),
        read: page
          ? async () => page.page(await Deno.readTextFile(file))
          : () => Deno.readFile(file),
        ...(isLarge(path)
          ? { stream: async () => (await Deno.open(file, { read: true })).readable }
          : {}),
        lastModified: info.mtime,
      });
      siteAssets.set(path, known = { stamp, asset });
    }
    return await serve(request, known.asset);
  };
}

/** When the file at `href` was last modified; null when unknown (not local, no permission). */
async function fileModified(href: string | undefined): Promise<Date | null> {
  if (href === undefined || !href.startsWith("file:")) return null;
  try {
    return (await Deno.stat(new URL(href))).mtime;
  } catch {
    return null;
  }
}

/** A packaged file as a static asset; large ones stream from disk when sent uncompressed. */
function packagedAsset(
  path: string,
  load: () => Promise<FileBody>,
  lastModified: Date | null,
): StaticAsset {
  return new StaticAsset({
    contentType: contentType(path),
    cacheControl: cacheControl(path),
    lastModified,
    read: async () => {
      const body = await load();
      return typeof body === "string"
        ? body
        : new Uint8Array(await new Response(body).arrayBuffer());
    },
    ...(isLarge(path)
      ? {
        stream: async () => {
          const body = await load();
          return typeof body === "string" ? new Blob([body]).stream() : body;
        },
      }
      : {}),
  });
}

/** A file of the served model: revalidated on each use (the URL does not name its bytes). */
function modelAsset(path: string, body: Uint8Array | string): StaticAsset {
  return new StaticAsset({
    contentType: contentType(path),
    cacheControl: REVALIDATE,
    read: () => Promise.resolve(body),
  });
}

/** The real path of `path` when it lies inside the real directory `root`, else undefined. */
async function inside(
  path: string,
  root: Promise<string | undefined>,
): Promise<string | undefined> {
  const [real, base] = await Promise.all([Deno.realPath(path).catch(() => undefined), root]);
  if (real === undefined || base === undefined) return undefined;
  return real.startsWith(base.endsWith("/") ? base : `${base}/`) ? real : undefined;
}

/** `name-ABCDEFGH.ext`: the bundle's chunks and ORT's `.wasm` files, named after their bytes. */
const CONTENT_HASHED = /-[A-Z2-7]{8}\.[a-z]+$/;

function cacheControl(path: string): string {
  return CONTENT_HASHED.test(path) ? IMMUTABLE : REVALIDATE;
}

/** ORT's `.wasm` files (14 and 27 MB): not kept in memory uncompressed. */
function isLarge(path: string): boolean {
  return path.endsWith(".wasm");
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
  return detail(404, "There is no playground site here: run `deno task build:web --site DIR`");
}

function dirPath(url: URL | undefined): string | undefined {
  if (url === undefined) return undefined;
  if (url.protocol !== "file:") return undefined;
  return decodeURIComponent(url.pathname).replace(/\/+$/, "");
}
