/**
 * The zod types the schema kit, the operations and the schema set share: the zod module as it
 * is passed in, any schema, and an object schema. A leaf module (it imports only zod's types),
 * so that the operations table, whose rows write their schemas from the kit, and the schema
 * set, which iterates that table, do not import each other.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import * as z from "zod";
 * import type { AnySchema, ZodModule } from "./zod_types.ts";
 * const zod: ZodModule = z;
 * const id: AnySchema = zod.string();
 * assert.equal(id.safeParse("p_in").success, true);
 * ```
 *
 * @module
 */

import type * as Zod from "zod";

/** The zod module (its namespace, as `import * as z from "zod"` gives it). */
export type ZodModule = typeof Zod;

// Reached through ZodModule, so that zod's types stay out of this package's API.

/** Any zod schema (zod's `ZodType`). */
export type AnySchema = InstanceType<ZodModule["ZodType"]>;

/** An object schema whose fields are zod schemas (what a form builder walks). */
export interface ObjectSchema extends InstanceType<ZodModule["ZodObject"]> {
  /** The field schemas, by field name. */
  shape: Record<string, AnySchema>;
}
