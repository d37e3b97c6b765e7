/**
 * `POST /batch` in the OpenAPI document (`./route.ts`): the log as the body in any format
 * `cli.ts batch` reads (a file upload in Swagger UI: `format: binary`), its query parameters,
 * and the two responses `Accept` chooses between, with the final record that ends a cut one.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { batchDoc } from "./route_doc.ts";
 * const doc = batchDoc({ maxConcurrentLogs: 2, idleMs: 30_000 });
 * assert.equal(doc.POST?.operationId, "batch");
 * ```
 *
 * @module
 */

import { lateBodyDetail } from "../pipeline/mod.ts";
import { BATCH_PARAMETERS, RESPONSE_TYPES } from "./request.ts";
import { type RouteDoc, TAGS } from "../http/mod.ts";

/** What the route's documentation states. */
export interface BatchInfo {
  /** Logs scored at once. */
  readonly maxConcurrentLogs: number;
  /** Time allowed between two chunks of a log, in ms. */
  readonly idleMs: number;
}

/** The body's media types, each with the format it means. */
const LOG_TYPES = [
  ["application/xml", "XES (also text/xml)"],
  ["text/csv", "CSV: one row per event, each case's rows together"],
  ["application/json", "JSON: a list of traces"],
  ["application/x-ndjson", "JSONL: one trace a line (also application/jsonl)"],
  ["application/gzip", "any of them gzipped; name the format with ?format="],
  ["application/octet-stream", "any of them, gzipped or not; name the format with ?format="],
] as const;

/** `POST /batch`'s documentation, stating `info`'s bounds. */
export function batchDoc(info: BatchInfo): RouteDoc {
  const detail = (description: string, example: string) => ({
    description,
    content: {
      "application/json": {
        schema: {
          type: "object",
          properties: { detail: { type: "string" } },
          required: ["detail"],
        },
        example: { detail: example },
      },
    },
  });
  const entry = {
    type: "object",
    description: "A scored trace (attributes, per_transition_residuals, trace_index, " +
      "trace_score), a trace whose input specs failed (attributes, error, trace_index), or, " +
      "last, the record that ends a cut answer (error, incomplete: true, traces_written; no " +
      "trace_index)",
    properties: {
      attributes: { type: "object", additionalProperties: { type: "string" } },
      per_transition_residuals: {
        type: "object",
        additionalProperties: { type: ["number", "null"] },
      },
      trace_index: { type: "integer", minimum: 0 },
      trace_score: { type: ["number", "null"] },
      error: { type: "string" },
      incomplete: { const: true },
      traces_written: { type: "integer", minimum: 0 },
    },
  };
  const example = {
    attributes: { amount: "5000", case_id: "loan-1" },
    per_transition_residuals: { t_approve: 0.0021, t_decline: -0.0004 },
    trace_index: 0,
    trace_score: 0.0017,
  };
  const parameters = Object.entries(BATCH_PARAMETERS).map(([name, description]) => ({
    name,
    in: "query" as const,
    required: false,
    description,
    schema: name === "format"
      ? { type: "string", enum: ["xes", "csv", "json", "jsonl"].flatMap((f) => [f, `${f}.gz`]) }
      : name === "output_format"
      ? { type: "string", enum: ["json", "jsonl"] }
      : name === "answer_after_upload"
      ? { type: "string", enum: ["true", "false"] }
      : { type: "string", minLength: 1 },
  }));
  return {
    POST: {
      tags: [TAGS.logs.name],
      operationId: "batch",
      summary: "Score a whole event log, streamed",
      description: "The body is an event log, as `cli.ts batch` reads it; the answer streams " +
        "one entry per trace, in input order, as batches are scored, byte for byte what " +
        "`cli.ts batch` writes (application/json, the default) or `batch --output-format jsonl` " +
        "(application/x-ndjson), as Accept asks. The body is read only as fast as scoring and " +
        "the answer's reading go, so memory stays flat whatever the log's size. A log that " +
        "breaks after entries went out (malformed further on, a drain's deadline) ends with a " +
        "record without trace_index: `error`, `incomplete: true`, `traces_written`. At most " +
        `${info.maxConcurrentLogs} logs at once (serve --max-concurrent-logs); more get 503. ` +
        "Content-Encoding: gzip (or gzip's magic bytes) is gunzipped. A client that sends the " +
        "whole log before it reads the answer is served too: the server reads ahead while the " +
        "answer waits, up to serve --max-log-read-ahead-bytes.",
      parameters,
      request: {
        body: {
          required: true,
          description: "The log",
          content: Object.fromEntries(
            LOG_TYPES.map(([type, what]) => [type, {
              schema: { type: "string", format: "binary", description: what },
            }]),
          ),
        },
      },
      responses: {
        200: {
          description: "The entries, streamed",
          content: {
            [RESPONSE_TYPES.json[0]!]: {
              schema: { type: "array", items: entry },
              example: [example],
            },
            [RESPONSE_TYPES.jsonl[0]!]: {
              schema: { ...entry, description: `One a line. ${entry.description}` },
              example,
            },
          },
        },
        400: detail(
          "The log cannot be read before its first entries (malformed, not the format named, " +
            "no traces, a CSV case split over the file), or the body's stream broke",
          "request body: malformed XML at line 12, column 5: unexpected close tag",
        ),
        406: detail(
          "Accept takes neither application/json nor application/x-ndjson",
          "Accept text/html takes neither answer this route gives: application/json (the list " +
            "cli.ts batch writes) or application/x-ndjson (one entry a line)",
        ),
        408: detail(
          `No byte of the body came for ${info.idleMs} ms (serve --body-timeout-ms)`,
          lateBodyDetail(info.idleMs),
        ),
        413: detail(
          "With answer_after_upload=true, a log larger than serve --max-log-read-ahead-bytes",
          "The log is larger than 67108864 bytes, the most a log may hold before its answer " +
            "begins (serve --max-log-read-ahead-bytes): send it gzipped, or without " +
            "answer_after_upload",
        ),
        415: detail(
          "The format cannot be told (Content-Type and ?format=), or an unsupported " +
            "Content-Encoding",
          "Content-Type text/plain does not say the log's format: send Content-Type text/csv, " +
            "application/xml (XES), application/json or application/x-ndjson (JSONL), or name " +
            "the format with ?format=xes|csv|json|jsonl",
        ),
        422: {
          description: "A query parameter that is unknown, repeated, empty or not one of its " +
            'values (FastAPI\'s shape, loc ["query", name])',
          content: {
            "application/json": {
              schema: {
                type: "object",
                properties: {
                  detail: {
                    type: "array",
                    items: {
                      type: "object",
                      properties: {
                        type: { type: "string" },
                        loc: { type: "array", items: { type: "string" } },
                        msg: { type: "string" },
                        input: { type: "string" },
                      },
                      required: ["type", "loc", "msg"],
                    },
                  },
                },
                required: ["detail"],
              },
              example: {
                detail: [{
                  type: "enum",
                  loc: ["query", "format"],
                  msg: "Input should be 'xes', 'xes.gz', 'csv', 'csv.gz', 'json', 'json.gz', " +
                    "'jsonl' or 'jsonl.gz'",
                  input: "parquet",
                }],
              },
            },
          },
        },
        503: detail(
          "As many logs as allowed are being scored (with Retry-After), the model is busy or " +
            "unavailable, or the server is draining",
          `${info.maxConcurrentLogs} logs are being scored, the most at once (serve ` +
            "--max-concurrent-logs); retry later",
        ),
      },
    },
  };
}
