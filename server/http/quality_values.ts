/**
 * The choices of a header with quality values (RFC 9110 §12.4.2, `Accept`, `Accept-Encoding`),
 * lower-cased, with their `q`; only the first `most` count, so any header costs a bounded parse.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { qualityValues } from "./quality_values.ts";
 * assert.deepEqual(
 *   qualityValues("gzip;q=0.5, BR, identity;q=x", 16),
 *   new Map([["gzip", 0.5], ["br", 1]]),
 * );
 * ```
 *
 * @module
 */

/** See the module doc. */
export function qualityValues(header: string, most: number): Map<string, number> {
  const weights = new Map<string, number>();
  for (const entry of header.split(",", most)) {
    const [name = "", ...params] = entry.split(";");
    let q = 1;
    for (const param of params) {
      const [key, value] = param.split("=");
      if (key?.trim().toLowerCase() === "q") q = Number(value?.trim());
    }
    if (Number.isFinite(q)) weights.set(name.trim().toLowerCase(), q);
  }
  return weights;
}
