/**
 * The request schemas of `core/schemas/` for the page, built with only the zod members they
 * use, as zod's whole namespace cannot be tree-shaken. A test checks that every `z.<member>`
 * that `core/schemas/` calls is listed in {@link ZOD_MEMBERS}.
 *
 * @example
 * ```ts
 * import { browserSchemas } from "./schemas.ts";
 * const schemas = browserSchemas();
 * schemas.parseRequest("forward", { input_marking: { p_in: 1 } }).success; // true
 * ```
 *
 * @module
 */

import {
  array,
  boolean,
  config,
  enum as zodEnum,
  int,
  literal,
  number,
  object,
  record,
  strictObject,
  string,
  tuple,
  union,
  unknown,
} from "zod";
import type { Schemas, ZodModule } from "../core/schemas/mod.ts";
import { defineSchemas } from "../core/schemas/define.ts";
import { parseRequestWith } from "../core/schemas/parse.ts";

/** The zod members `core/schemas/define.ts` calls, by name. */
export const ZOD_MEMBERS = {
  array,
  boolean,
  enum: zodEnum,
  int,
  literal,
  number,
  object,
  record,
  strictObject,
  string,
  tuple,
  union,
  unknown,
} as const;

/** The schemas and their request parser, as `createSchemas(z)` of `core/schemas/mod.ts` builds them. */
export function browserSchemas(): Schemas {
  // The page's Content-Security-Policy forbids eval: zod is told so, instead of probing for it.
  config({ jitless: true });
  const set = defineSchemas(ZOD_MEMBERS as unknown as ZodModule);
  return {
    requests: set.requests,
    responses: set.responses,
    parseRequest: (kind, json) => parseRequestWith(set, kind, json),
  };
}
