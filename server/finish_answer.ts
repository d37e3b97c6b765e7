/**
 * The last steps every answer of the app goes through, in this order: compression of a large
 * dynamic body (`./compression.ts`), the CORS headers (`./cors.ts`), the `X-Request-Id` echo
 * (`./request_id.ts`), and for `HEAD` the body dropped with its length kept (`./head.ts`).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { finishAnswer } from "./finish_answer.ts";
 * const request = new Request("http://localhost/healthz", { method: "HEAD" });
 * const answer = await finishAnswer(request, Response.json({ status: "ok" }), "id-1", {});
 * assert.equal(answer.body, null);
 * assert.equal(answer.headers.get("content-length"), "15");
 * assert.equal(answer.headers.get("x-request-id"), "id-1");
 * ```
 *
 * @module
 */

import { compressAnswer } from "./compression.ts";
import type { Cors } from "./cors.ts";
import { withoutBody } from "./head.ts";
import { REQUEST_ID_HEADER } from "./request_id.ts";
import { withHeaders } from "./response_headers.ts";

/** What {@link finishAnswer} applies. */
export interface AnswerConventions {
  /** The CORS policy; none (the default) adds no header. */
  readonly cors?: Cors | undefined;
  /** Dynamic answers at least this long are compressed (default `COMPRESS_MIN_BYTES`). */
  readonly compressMinBytes?: number | undefined;
}

/**
 * `response` to `request`, finished; see the module doc.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { Cors } from "./cors.ts";
 * import { finishAnswer } from "./finish_answer.ts";
 * const request = new Request("http://localhost/schema", {
 *   headers: { origin: "https://app.example", "accept-encoding": "gzip" },
 * });
 * const big = Response.json({ places: Array.from({ length: 5000 }, (_, i) => `p_${i}`) });
 * const answer = await finishAnswer(request, big, "abc", {
 *   cors: new Cors(["https://app.example"]),
 * });
 * assert.equal(answer.headers.get("content-encoding"), "gzip");
 * assert.equal(answer.headers.get("access-control-allow-origin"), "https://app.example");
 * assert.equal(answer.headers.get("vary"), "accept-encoding, origin");
 * await answer.body?.cancel();
 * ```
 */
export async function finishAnswer(
  request: Request,
  response: Response,
  requestId: string,
  conventions: AnswerConventions,
): Promise<Response> {
  let answer = await compressAnswer(request, response, conventions.compressMinBytes);
  if (conventions.cors) answer = conventions.cors.apply(request, answer);
  answer = withHeaders(answer, { [REQUEST_ID_HEADER]: requestId });
  return request.method === "HEAD" ? await withoutBody(answer) : answer;
}
