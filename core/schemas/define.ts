/**
 * The zod schemas of every request and response of SPEC.md Part 2, with the defaults of
 * DESIGN.md §3, descriptions and examples (ids from the credit_approval_coloured model).
 *
 * zod is passed in, never imported here, so that the server can load it lazily and report a
 * missing package by name. The schemas describe the wire format: id-keyed maps are
 * `z.record`s, which is what the OpenAPI document and the playground's forms show; reading a
 * body into the `Map`s the operations take is {@link ./parse.ts}'s job, because zod drops a
 * `"__proto__"` key from records.
 *
 * @example
 * ```ts
 * import * as z from "zod";
 * import { defineSchemas } from "./define.ts";
 * const schemas = defineSchemas(z);
 * schemas.requests.forward.safeParse({ input_marking: { p_submitted: 1 } }).success; // true
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

/** The four request bodies, by operation. */
export interface RequestSchemas {
  /** `POST /forward`'s body. */
  readonly forward: ObjectSchema;
  /** `POST /anomaly`'s body. */
  readonly anomaly: ObjectSchema;
  /** `POST /counterfactual`'s body. */
  readonly counterfactual: ObjectSchema;
  /** `POST /sensitivity`'s body. */
  readonly sensitivity: ObjectSchema;
}

/** The six response bodies and the error bodies. */
export interface ResponseSchemas {
  /** `GET /healthz`'s answer. */
  readonly health: ObjectSchema;
  /** `GET /schema`'s answer. */
  readonly schema: ObjectSchema;
  /** `POST /forward`'s answer. */
  readonly forward: ObjectSchema;
  /** `POST /anomaly`'s answer. */
  readonly anomaly: ObjectSchema;
  /** A union: the found answer, or only `found` and `target_transition` (D6). */
  readonly counterfactual: AnySchema;
  /** `POST /sensitivity`'s answer. */
  readonly sensitivity: ObjectSchema;
  /** `{"detail": "..."}`: 400, 404, 405, 408, 413. */
  readonly httpError: ObjectSchema;
  /** `{"detail": [issue, ...]}`: 422, FastAPI's shape. */
  readonly validationError: ObjectSchema;
}

/** Every schema of the HTTP surface. */
export interface SchemaSet {
  /** The request bodies. */
  readonly requests: RequestSchemas;
  /** The response and error bodies. */
  readonly responses: ResponseSchemas;
}

const EXAMPLE_MARKING = { p_submitted: 1 };
const EXAMPLE_VALUES = { p_submitted: 5000 };

/**
 * Builds the schemas with the given zod module. Cached per module, so schema ids are
 * registered once.
 *
 * @example
 * ```ts
 * import * as z from "zod";
 * import { defineSchemas } from "./define.ts";
 * const { requests } = defineSchemas(z);
 * requests.counterfactual.parse({
 *   input_marking: {},
 *   flip_place: "p_submitted",
 *   target_transition: "t_approve",
 * }).tolerance; // 0.001
 * ```
 */
export function defineSchemas(z: ZodModule): SchemaSet {
  let set = cache.get(z);
  if (!set) cache.set(z, set = build(z));
  return set;
}

const cache = new WeakMap<ZodModule, SchemaSet>();

function build(z: ZodModule): SchemaSet {
  const placeId = (description: string, example: string) =>
    z.string().meta({ description, example });
  const transitionId = (description: string) =>
    z.string().meta({ description, example: "t_approve" });
  const marking = z.record(z.string(), z.number()).meta({
    description: "Marking by place id: JSON numbers, nominally activations in [0, 1] (not " +
      "enforced). A supplied place is clamped to its number; an absent source place takes " +
      "1.0 if it holds tokens in the initial marking, else 0.0. Ids that are not places " +
      "are rejected with 400",
    example: EXAMPLE_MARKING,
  });
  const values = z.record(z.string(), z.number()).nullable().optional().meta({
    description: "The value channel by place id, on the scale of the modeller's domain; " +
      "absent or null means no values (a source place's value is then 1.0)",
    example: EXAMPLE_VALUES,
  });
  const attributeValue = z.union([z.string(), z.number(), z.boolean()])
    .transform((v) => typeof v === "string" ? v : JSON.stringify(v))
    .meta({
      description: "A string; numbers and booleans are accepted and turned into their JSON " +
        'text (5000 -> "5000", true -> "true")',
    });
  const attributes = (description: string, example: Record<string, string>) =>
    z.record(z.string(), attributeValue).default({}).meta({ description, example });
  const activations = (what: string, example: Record<string, number>) =>
    z.record(z.string(), z.number().nullable()).meta({
      description: `${what} by id, sorted; null where the result is not finite`,
      example,
    });
  const activation = (description: string, example: number) =>
    z.number().nullable().meta({ description, example });

  // Requests

  const forward = z.object({ input_marking: marking, input_values: values }).meta({
    id: "ForwardRequest",
    description: "One input marking (and optional values) to run the model on",
    example: { input_marking: EXAMPLE_MARKING, input_values: EXAMPLE_VALUES },
  });

  const traceEvent = z.object({
    name: z.string().meta({
      description: "Matched exactly against the transition labels; an event whose name " +
        "matches no label is ignored",
      example: "approve loan",
    }),
    attributes: attributes("Event attributes (carried, not used for scoring)", {}),
  }).meta({ id: "TraceEvent", description: "One event of a trace" });

  const anomaly = z.object({
    input_marking: marking,
    input_values: values,
    events: z.array(traceEvent).meta({
      description: "The events of the trace, in order (order and repetitions do not matter)",
      example: [{ name: "approve loan" }],
    }),
    attributes: attributes("Trace-level attributes (carried, not used for scoring)", {
      case_id: "loan-1",
    }),
  }).meta({
    id: "AnomalyRequest",
    description: "A trace to score under the marking and values it was observed with",
    example: {
      input_marking: EXAMPLE_MARKING,
      input_values: EXAMPLE_VALUES,
      events: [{ name: "approve loan", attributes: {} }],
      attributes: { case_id: "loan-1" },
    },
  });

  const flipChannel = z.enum(["marking", "value"]);
  const counterfactual = z.object({
    input_marking: marking,
    input_values: values,
    flip_place: placeId(
      "The place whose input is varied; it must be a place of the net",
      "p_submitted",
    ),
    target_transition: transitionId(
      "The transition whose firing decision should flip; it must be a transition of the net",
    ),
    flip_channel: flipChannel.default("marking").meta({
      description: "Which input of flip_place is varied: its marking or its value",
      example: "value",
    }),
    search_range: z.tuple([z.number(), z.number()])
      .refine(([lo, hi]) => lo < hi, { message: "search_range must be [lo, hi] with lo < hi" })
      .default([0, 1])
      .meta({
        description: "[lo, hi], finite, lo < hi: the interval searched for the input at " +
          "which the target's activation crosses 0.5",
        example: [0, 10000],
        // zod-to-openapi writes only prefixItems for a tuple
        minItems: 2,
        maxItems: 2,
      }),
    tolerance: z.number().gt(0).default(1e-3).meta({
      description: "A finite number > 0: a probe is on the boundary when " +
        "|activation - 0.5| < tolerance",
      example: 0.001,
    }),
  }).meta({
    id: "CounterfactualRequest",
    description: "The base point, the input to vary and the transition whose decision to flip",
    example: {
      input_marking: EXAMPLE_MARKING,
      input_values: EXAMPLE_VALUES,
      flip_place: "p_submitted",
      target_transition: "t_approve",
      flip_channel: "value",
      search_range: [0, 10000],
      tolerance: 0.001,
    },
  });

  const sensitivity = z.object({
    input_marking: marking,
    input_values: values,
    target_transition: transitionId(
      "The transition to differentiate; it must be a transition of the net",
    ),
  }).meta({
    id: "SensitivityRequest",
    description: "The base point and the transition whose activation is differentiated",
    example: {
      input_marking: EXAMPLE_MARKING,
      input_values: EXAMPLE_VALUES,
      target_transition: "t_approve",
    },
  });

  // Responses

  const health = z.object({
    status: z.literal("ok").meta({ description: 'Always "ok"' }),
    version: z.string().meta({
      description: "The version the application was built with",
      example: "0.1.0",
    }),
    n_places: z.int().nonnegative().meta({ description: "Number of places", example: 3 }),
    n_transitions: z.int().nonnegative().meta({
      description: "Number of transitions",
      example: 2,
    }),
  }).meta({ id: "HealthResponse", description: "Liveness and the size of the net" });

  const schema = z.object({
    places: z.array(z.string()).meta({
      description: "All place ids, sorted",
      example: ["p_approved", "p_declined", "p_submitted"],
    }),
    transitions: z.record(z.string(), z.string()).meta({
      description: "Transition id -> label, sorted by id; the label is the id when the " +
        "transition has none",
      example: { t_approve: "approve loan", t_decline: "decline loan" },
    }),
    initial_marking: z.record(z.string(), z.number()).meta({
      description: "Token counts of the initial marking, by place id",
      example: {},
    }),
    has_silent_transitions: z.boolean().meta({
      description: "True when the net has at least one silent transition",
    }),
    has_structural_guards: z.boolean().meta({
      description: "True when at least one transition has a structural guard",
    }),
  }).meta({ id: "SchemaResponse", description: "The structure of the served net" });

  const forwardResponse = z.object({
    transition_activations: activations("Firing activation of each transition", {
      t_approve: 0.9744884371757507,
      t_decline: 0.02521030604839325,
    }),
    place_activations: activations("Activation of each place at the end of the pass", {
      p_approved: 0.9213,
      p_declined: 0.0267,
      p_submitted: 1,
    }),
  }).meta({ id: "ForwardResponse", description: "Activations of every transition and place" });

  const anomalyResponse = z.object({
    trace_score: activation("Sum of the residuals; higher is more anomalous", 0.05),
    per_transition_residuals: activations(
      '|predicted - observed| firing of each scored transition (labels without "->")',
      { t_approve: 0.0255, t_decline: 0.0252 },
    ),
  }).meta({ id: "AnomalyResponse", description: "Per-transition residuals and their sum" });

  const found = z.object({
    found: z.literal(true),
    target_transition: z.string().meta({ description: "Echo of the request" }),
    target_label: z.string().meta({ description: "Label of the target transition" }),
    flipped_place: z.string().meta({ description: "Echo of flip_place" }),
    flipped_channel: flipChannel.meta({ description: "Echo of flip_channel" }),
    original_input: z.number().meta({
      description: "The input the model used at flip_place in the base pass",
    }),
    counterfactual_input: z.number().meta({
      description: "The input at the boundary nearest the original input",
    }),
    original_activation: activation("The target's activation at the base point", 0.97),
    counterfactual_activation: activation(
      "The target's activation at the boundary: within tolerance of 0.5, or across 0.5 from " +
        "original_activation where it jumps (straight-through firing)",
      0.5003,
    ),
  }).meta({ id: "CounterfactualFound", description: "A crossing of 0.5 was found" });
  const notFound = z.strictObject({
    found: z.literal(false),
    target_transition: z.string().meta({ description: "Echo of the request" }),
  }).meta({
    id: "CounterfactualNotFound",
    description: "No crossing of 0.5 within search_range; no other field is present",
  });
  const counterfactualResponse = z.union([found, notFound]).meta({
    id: "CounterfactualResponse",
    description: "The boundary point when found, else only found and target_transition",
  });

  const gradients = (description: string) =>
    activations(description, { p_submitted: 7.520474173361436e-5 });
  const sensitivityResponse = z.object({
    target_transition: z.string().meta({ description: "Echo of the request" }),
    target_label: z.string().meta({ description: "Label of the target transition" }),
    base_activation: activation("The target's activation at the base point", 0.97),
    marking_gradients: gradients(
      "d activation / d marking for every supplied place and every source place",
    ),
    value_gradients: gradients(
      "d activation / d value for every supplied value and every source place",
    ),
  }).meta({ id: "SensitivityResponse", description: "Gradients of one transition's activation" });

  const httpError = z.object({
    detail: z.string().meta({
      description: "What went wrong",
      example: "flip_place 'p_x' is not in the net's place set",
    }),
  }).meta({ id: "HTTPError", description: "An error with a message" });

  const issue = z.object({
    type: z.string().meta({ description: "Error type, as pydantic names it", example: "missing" }),
    loc: z.array(z.union([z.string(), z.int()])).meta({
      description: 'Where: "body", then keys and indexes',
      example: ["body", "input_marking"],
    }),
    msg: z.string().meta({ example: "Field required" }),
    input: z.unknown().optional().meta({ description: "The offending value" }),
    ctx: z.record(z.string(), z.unknown()).optional().meta({ description: "Details" }),
  }).meta({ id: "ValidationIssue", description: "One problem with the request body" });
  const validationError = z.object({ detail: z.array(issue) }).meta({
    id: "HTTPValidationError",
    description: "The body is not valid JSON or does not match the request schema",
  });

  return {
    requests: { forward, anomaly, counterfactual, sensitivity },
    responses: {
      health,
      schema,
      forward: forwardResponse,
      anomaly: anomalyResponse,
      counterfactual: counterfactualResponse,
      sensitivity: sensitivityResponse,
      httpError,
      validationError,
    },
  };
}
