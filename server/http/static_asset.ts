/**
 * Static files served as `serveDir` serves them, and compressed: a strong `ETag` (SHA-256 of
 * the content), `Last-Modified`, 304 on a matching validator, the caller's `Cache-Control`, and
 * brotli or gzip by `Accept-Encoding`, each compressed copy made on first demand and kept.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { REVALIDATE, StaticAsset } from "./static_asset.ts";
 * const read = () => Promise.resolve("hello");
 * const asset = new StaticAsset({ contentType: "text/plain", cacheControl: REVALIDATE, read });
 * const first = await asset.respond(new Request("http://h/a.txt"));
 * await first.body?.cancel();
 * const headers = { "if-none-match": first.headers.get("etag")! };
 * assert.equal((await asset.respond(new Request("http://h/a.txt", { headers }))).status, 304);
 * ```
 *
 * @module
 */

import {
  compress,
  compressible,
  type Encoding,
  negotiateEncoding,
  STATIC_ENCODINGS,
} from "./compression.ts";

/** `Cache-Control` for a URL that names its content (a hash in the file name): never revalidated. */
export const IMMUTABLE = "public, max-age=31536000, immutable";

/** `Cache-Control` for a URL that stays the same across versions: revalidated on each use. */
export const REVALIDATE = "no-cache";

/** A file to serve; see {@link StaticAsset}. */
export interface StaticFile {
  readonly contentType: string;
  readonly cacheControl: string;
  /** Sent with every response, e.g. a `Content-Security-Policy`. */
  readonly headers?: Readonly<Record<string, string>>;
  /** The content, bytes or text; read for the validators and each compressed copy. */
  readonly read: () => Promise<Uint8Array | string>;
  /** For large files: a fresh stream of the bytes per uncompressed response, so they are not kept. */
  readonly stream?: () => Promise<ReadableStream<Uint8Array>>;
  /**
   * `Last-Modified`; null for none (then only `If-None-Match` gets a 304).
   * @default when the {@link StaticAsset} was made
   */
  readonly lastModified?: Date | null;
}

/** The validators of the content, found on first use. */
interface Identity {
  /** The SHA-256 of the content, base64url, 22 characters. */
  readonly hash: string;
  readonly size: number;
  /** The content, when it is kept. */
  readonly bytes: Uint8Array | undefined;
}

/** A compressed copy, or `undefined` when compression did not make it smaller. */
type Copy = { readonly bytes: Uint8Array; readonly etag: string } | undefined;

/** A compressed copy must save at least this share of the bytes to be sent. */
const WORTH = 0.95;

/** One static file with its validators and compressed copies; see the module doc. */
export class StaticAsset {
  readonly #file: StaticFile;
  readonly #lastModified: string | undefined;
  readonly #modifiedSeconds: number | undefined;
  readonly #encodings: readonly Encoding[];
  #identity: Promise<Identity> | undefined;
  readonly #copies = new Map<Encoding, Promise<Copy>>();

  /** Serves `file`; nothing is read until the first request. */
  constructor(file: StaticFile) {
    this.#file = file;
    // HTTP dates have whole seconds; a validator finer than that would never match.
    const modified = file.lastModified === undefined ? new Date() : file.lastModified;
    const seconds = modified === null ? undefined : Math.floor(modified.getTime() / 1000);
    this.#modifiedSeconds = seconds;
    this.#lastModified = seconds === undefined ? undefined : new Date(seconds * 1000).toUTCString();
    this.#encodings = compressible(file.contentType) ? STATIC_ENCODINGS : [];
  }

  /**
   * The response to a `GET` or `HEAD` of this file: 200 in the best encoding the client
   * accepts, or 304 when its validators match.
   */
  async respond(request: Request): Promise<Response> {
    const identity = await this.#read();
    const encoding = negotiateEncoding(request.headers.get("accept-encoding"), this.#encodings);
    const copy = encoding === undefined ? undefined : await this.#copy(encoding, identity);
    const etag = copy?.etag ?? `"${identity.hash}"`;
    const headers: Record<string, string> = {
      ...this.#file.headers,
      "content-type": this.#file.contentType,
      "cache-control": this.#file.cacheControl,
      etag,
      ...(this.#lastModified === undefined ? {} : { "last-modified": this.#lastModified }),
      "x-content-type-options": "nosniff",
    };
    if (this.#encodings.length > 0) headers["vary"] = "accept-encoding";
    if (this.#notModified(request, etag)) return new Response(null, { status: 304, headers });
    if (copy !== undefined) {
      headers["content-encoding"] = encoding!;
      headers["content-length"] = String(copy.bytes.length);
      return new Response(copy.bytes as Uint8Array<ArrayBuffer>, { headers });
    }
    headers["content-length"] = String(identity.size);
    const body = identity.bytes ?? await this.#file.stream!();
    return new Response(body as Uint8Array<ArrayBuffer> | ReadableStream<Uint8Array>, { headers });
  }

  /** RFC 9110 §13.2.2: If-None-Match first; If-Modified-Since only without it. */
  #notModified(request: Request, etag: string): boolean {
    const ifNoneMatch = request.headers.get("if-none-match");
    if (ifNoneMatch !== null) {
      // Weak comparison (§8.8.3.2): W/ is ignored.
      return ifNoneMatch.split(",").some((tag) => {
        const trimmed = tag.trim();
        return trimmed === "*" || trimmed.replace(/^W\//, "") === etag;
      });
    }
    const since = Date.parse(request.headers.get("if-modified-since") ?? "");
    const seconds = this.#modifiedSeconds;
    return seconds !== undefined && Number.isFinite(since) && seconds * 1000 <= since;
  }

  #read(): Promise<Identity> {
    this.#identity ??= (async () => {
      const bytes = await this.#content();
      const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", bytes));
      const hash = btoa(String.fromCharCode(...digest.subarray(0, 16)))
        .replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
      const keep = this.#file.stream === undefined;
      return { hash, size: bytes.length, bytes: keep ? bytes : undefined };
    })().catch((error) => {
      this.#identity = undefined; // a later request tries again
      throw error;
    });
    return this.#identity;
  }

  async #content(): Promise<Uint8Array<ArrayBuffer>> {
    const content = await this.#file.read();
    return typeof content === "string"
      ? new TextEncoder().encode(content)
      : content as Uint8Array<ArrayBuffer>;
  }

  #copy(encoding: Encoding, identity: Identity): Promise<Copy> {
    let copy = this.#copies.get(encoding);
    if (copy === undefined) {
      copy = (async () => {
        const bytes = await compress(identity.bytes ?? await this.#content(), encoding);
        if (bytes.length > identity.size * WORTH) return undefined;
        return { bytes, etag: `"${identity.hash}.${encoding}"` };
      })().catch((error) => {
        this.#copies.delete(encoding); // a later request tries again
        throw error;
      });
      this.#copies.set(encoding, copy);
    }
    return copy;
  }
}
