/**
 * The zod types the schema kit, the operations and the schema set share. A leaf module (it
 * imports only zod's types), so that the operations table and the schema set, which iterates
 * it, do not import each other.
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
