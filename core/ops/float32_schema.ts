/**
 * The request number the model can take: one float32 holds, since the graph runs in float32 and
 * a larger number would silently become infinity.
 *
 * @module
 */

import { beyondFloat32, isFiniteFloat32 } from "../net/model_limits.ts";
import type { AnySchema, ZodModule } from "./zod_types.ts";

/**
 * `z.number()` refined to numbers that round to a finite float32; the issue names the number.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import * as z from "zod";
 * import { finiteFloat32 } from "./float32_schema.ts";
 * const number = finiteFloat32(z);
 * assert.equal(number.safeParse(3.4e38).success, true);
 * const result = number.safeParse(-1e39);
 * assert.match(result.error!.issues[0]!.message, /-1e\+39 is beyond the float32 range/);
 * ```
 */
export function finiteFloat32(z: ZodModule): AnySchema {
  return z.number().refine(isFiniteFloat32, {
    error: (issue) => beyondFloat32(issue.input as number),
  });
}
