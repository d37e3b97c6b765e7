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
 * const preflight = cors.preflight(new Request("http://127.0.0.1:8000/forward", {
 *   method: "OPTIONS",
 *   headers: {
 *     origin: "http://localhost:3000",
 *     "access-control-request-method": "POST",
 *     "access-control-request-headers": "content-type",
 *   },
 * }))!;
 * assert.equal(preflight.status, 204);
 * assert.equal(preflight.headers.get("access-control-allow-origin"), "http://localhost:3000");
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
/** The answer headers a page may read beyond the CORS-safelisted ones. */
const EXPOSED = "x-request-id, retry-after";

/**
 * Checks the allowed origins: each is `*` or a bare origin (scheme, host, optional port).
 *
 * @throws {RangeError} naming the first origin that is not one.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { checkOrigins } from "./cors.ts";
 * assert.deepEqual(checkOrigins(["https://app.example", "*"]), ["https://app.example", "*"]);
 * assert.throws(() => checkOrigins(["https://app.example/"]), /not an origin/);
 * ```
 */
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

  /**
   * The response to `request` when it is a preflight, else `undefined`.
   *
   * @example
   * ```ts
   * import assert from "node:assert/strict";
   * import { Cors } from "./cors.ts";
   * const cors = new Cors(["https://app.example"]);
   * const other = cors.preflight(new Request("http://localhost/forward", {
   *   method: "OPTIONS",
   *   headers: { origin: "https://evil.example", "access-control-request-method": "POST" },
   * }))!;
   * assert.equal(other.status, 403);
   * assert.equal(cors.preflight(new Request("http://localhost/forward")), undefined);
   * ```
   */
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

  /**
   * `response` with the CORS headers for `request`'s origin, when it is allowed.
   *
   * @example
   * ```ts
   * import assert from "node:assert/strict";
   * import { Cors } from "./cors.ts";
   * const cors = new Cors(["*"]);
   * const request = new Request("http://localhost/healthz", {
   *   headers: { origin: "https://app.example" },
   * });
   * const response = cors.apply(request, Response.json({}));
   * assert.equal(response.headers.get("access-control-allow-origin"), "*");
   * assert.equal(response.headers.get("access-control-expose-headers"), "x-request-id, retry-after");
   * ```
   */
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
