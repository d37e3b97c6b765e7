/**
 * CORS, off unless origins are allowed: a preflight from an allowed origin gets 204 with the
 * allowed methods and headers, from another 403; other responses to an allowed origin carry
 * `Access-Control-Allow-Origin` and expose `X-Request-Id` and `Retry-After`. No credentials:
 * the API has no cookies or authentication to share.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { Cors } from "./cors.ts";
 * const cors = new Cors(["http://localhost:3000"]);
 * const headers = { origin: "http://localhost:3000", "access-control-request-method": "POST" };
 * const request = new Request("http://h/forward", { method: "OPTIONS", headers });
 * assert.equal(cors.preflight(request)?.status, 204);
 * ```
 *
 * @module
 */

import { jsonResponse } from "./json.ts";
import { addVary, withHeaders } from "./response_headers.ts";

/** How long a browser may cache a preflight's response, in seconds (Chromium caps it at 7200). */
export const PREFLIGHT_MAX_AGE_SECONDS = 600;

/** The methods a page may use. */
const METHODS = "GET, HEAD, POST";
/** The request headers a page may send beyond the CORS-safelisted ones. */
const HEADERS = "content-type, x-request-id";
/** The response headers a page may read beyond the CORS-safelisted ones. */
const EXPOSED = "x-request-id, retry-after";

/** Checks that each allowed origin is `*` or a bare origin; a RangeError names the first not. */
export function checkOrigins(origins: readonly string[]): string[] {
  for (const origin of origins) {
    if (origin === "*") continue;
    let parsed: string | undefined;
    try {
      parsed = new URL(origin).origin;
    } catch {
      parsed = undefined;
    }
    if (parsed === undefined || parsed === "null" || parsed !== origin) {
      throw new RangeError(
        `CORS origin '${origin}' is not an origin: give scheme://host[:port], ` +
          `e.g. https://app.example, or * for any`,
      );
    }
  }
  return [...origins];
}

/** The CORS policy of one app; see the module doc. */
export class Cors {
  readonly #any: boolean;
  readonly #origins: ReadonlySet<string>;

  /** Allows `origins` (checked by {@link checkOrigins}). */
  constructor(origins: readonly string[]) {
    checkOrigins(origins);
    this.#any = origins.includes("*");
    this.#origins = new Set(origins);
  }

  /** The response to `request` when it is a preflight, else `undefined`. */
  preflight(request: Request): Response | undefined {
    const origin = request.headers.get("origin");
    if (
      request.method !== "OPTIONS" || origin === null ||
      !request.headers.has("access-control-request-method")
    ) {
      return undefined;
    }
    const vary = "origin, access-control-request-method, access-control-request-headers";
    if (!this.#allows(origin)) {
      return jsonResponse(403, {
        detail: `CORS: origin ${JSON.stringify(origin.slice(0, 200))} is not allowed ` +
          "(the server's --cors-origin list)",
      }, { vary });
    }
    return new Response(null, {
      status: 204,
      headers: {
        "access-control-allow-origin": this.#any ? "*" : origin,
        "access-control-allow-methods": METHODS,
        "access-control-allow-headers": HEADERS,
        "access-control-max-age": String(PREFLIGHT_MAX_AGE_SECONDS),
        vary,
      },
    });
  }

  /** `response` with the CORS headers for `request`'s origin, when it is allowed. */
  apply(request: Request, response: Response): Response {
    const origin = request.headers.get("origin");
    if (response.headers.has("access-control-allow-origin")) return response; // a preflight
    const vary: Record<string, string> = this.#any
      ? {}
      : { vary: addVary(response.headers.get("vary"), "origin") };
    if (origin === null || !this.#allows(origin)) {
      return this.#any ? response : withHeaders(response, vary);
    }
    return withHeaders(response, {
      "access-control-allow-origin": this.#any ? "*" : origin,
      "access-control-expose-headers": EXPOSED,
      ...vary,
    });
  }

  #allows(origin: string): boolean {
    return this.#any || this.#origins.has(origin);
  }
}
