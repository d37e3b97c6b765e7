/**
 * The zod types an operation declares its schemas with; the schema set (`core/schemas/`) builds
 * on the same ones. Types only: zod itself is passed in at run time.
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
