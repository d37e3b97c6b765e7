/**
 * The schema pieces every operation's request and response share (markings, value maps, ids,
 * attribute and activation maps), built from a zod module passed in: one wire format each.
 *
 * @module
 */

import { finiteFloat32 } from "./float32_schema.ts";
import type { AnySchema, ZodModule } from "./zod_types.ts";

/** The shared schema pieces, with the zod module they were built with. */
export interface SchemaKit {
  /** The zod module, for an operation's own fields. */
  readonly z: ZodModule;
  /** A marking by place id (required). */
  readonly marking: AnySchema;
  /** The value channel by place id (optional, nullable). */
  readonly values: AnySchema;
  /** A place id field. */
  placeId(description: string, example: string): AnySchema;
  /** A transition id field. */
  transitionId(description: string): AnySchema;
  /** A string map of attributes (defaults to `{}`); numbers and booleans become their text. */
  attributes(description: string, example: Record<string, string>): AnySchema;
  /** An id-keyed map of numbers that are `null` where not finite. */
  activations(what: string, example: Record<string, number>): AnySchema;
  /** One number that is `null` where not finite. */
  activation(description: string, example: number): AnySchema;
  /** Example inputs (ids of the credit_approval_coloured model) for the documents. */
  readonly examples: {
    readonly marking: Readonly<Record<string, number>>;
    readonly values: Readonly<Record<string, number>>;
  };
}

const EXAMPLE_MARKING = { p_submitted: 1 };
const EXAMPLE_VALUES = { p_submitted: 5000 };

/**
 * Builds the kit with the given zod module.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import * as z from "zod";
 * import { schemaKit } from "./schema_kit.ts";
 * const { activations } = schemaKit(z);
 * const parsed = activations("Firing", { t_a: 1 }).parse({ t_a: null });
 * assert.deepEqual(parsed, { t_a: null });
 * ```
 */
export function schemaKit(z: ZodModule): SchemaKit {
  const attributeValue = z.union([z.string(), z.number(), z.boolean()])
    .transform((v) => typeof v === "string" ? v : JSON.stringify(v))
    .meta({
      description: "A string; numbers and booleans are accepted and turned into their JSON " +
        'text (5000 -> "5000", true -> "true")',
    });
  return {
    z,
    marking: z.record(z.string(), finiteFloat32(z)).meta({
      description: "Marking by place id: JSON numbers, nominally activations in [0, 1] (not " +
        "enforced) and within float32's range (±3.4028234663852886e38). A supplied place is clamped to its number; an absent source place takes " +
        "1.0 if it holds tokens in the initial marking, else 0.0. Ids that are not places " +
        "are rejected with 400",
      example: EXAMPLE_MARKING,
    }),
    values: z.record(z.string(), finiteFloat32(z)).nullable().optional().meta({
      description: "The value channel by place id, on the scale of the modeller's domain and " +
        "within float32's range (±3.4028234663852886e38); " +
        "absent or null means no values (a source place's value is then 1.0)",
      example: EXAMPLE_VALUES,
    }),
    placeId: (description, example) => z.string().meta({ description, example }),
    transitionId: (description) => z.string().meta({ description, example: "t_approve" }),
    attributes: (description, example) =>
      z.record(z.string(), attributeValue).default({}).meta({ description, example }),
    activations: (what, example) =>
      z.record(z.string(), z.number().nullable()).meta({
        description: `${what} by id, sorted; null where the result is not finite`,
        example,
      }),
    activation: (description, example) => z.number().nullable().meta({ description, example }),
    examples: { marking: EXAMPLE_MARKING, values: EXAMPLE_VALUES },
  };
}
