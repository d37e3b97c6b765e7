/**
 * What a `POST /batch` asks for, read from its query and headers before its body: the log's
 * format (`?format=`, else `Content-Type`), whether it is gzipped (`Content-Encoding: gzip`;
 * the reader also knows gzip by its magic bytes), the CSV columns (`?case_column=`,
 * `?activity_column=`), the response's format (`?output_format=`, else `Accept`) and whether it
 * waits for the whole log (`?answer_after_upload=`). A query
 * parameter that is unknown, repeated, empty or not one of its values is a 422 in FastAPI's
 * shape (`loc: ["query", name]`); a type or an encoding the server cannot read is a 415, an
 * `Accept` it cannot satisfy a 406.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { readBatchRequest } from "./request.ts";
 * const request = new Request("http://localhost/batch?case_column=order", {
 *   method: "POST",
 *   headers: { "content-type": "text/csv", accept: "application/x-ndjson" },
 *   body: "order,activity\n",
 * });
 * assert.deepEqual(readBatchRequest(request), {
 *   format: "csv",
 *   gzip: false,
 *   caseColumn: "order",
 *   activityColumn: undefined,
 *   outputFormat: "jsonl",
 *   afterUpload: false,
 * });
 * ```
 *
 * @module
 */

import type { OutputFormat } from "../../core/log_scoring/mod.ts";
import type { ValidationIssue } from "../../core/schemas/mod.ts";
import type { TraceFormat } from "../../core/event_log/mod.ts";
import { HttpError, qualityValues, ValidationError } from "../http/mod.ts";

/** What {@link readBatchRequest} read. */
export interface BatchRequest {
  /** The log's format. */
  readonly format: TraceFormat;
  /** Whether the body says it is gzipped (its magic bytes are checked all the same). */
  readonly gzip: boolean;
  /** The CSV column of case ids; undefined: `batch`'s default. */
  readonly caseColumn: string | undefined;
  /** The CSV column of activities; undefined: `batch`'s default. */
  readonly activityColumn: string | undefined;
  /** The response's layout. */
  readonly outputFormat: OutputFormat;
  /** Whether the response waits for the whole log (`?answer_after_upload=true`). */
  readonly afterUpload: boolean;
}

/** The query parameters of `POST /batch`, each with what it takes. */
export const BATCH_PARAMETERS = {
  format: "xes, csv, json or jsonl (each also with .gz); default: from Content-Type",
  case_column: "the CSV column of case ids (default: case_id, else case:concept:name)",
  activity_column: "the CSV column of activities (default: activity, else concept:name)",
  output_format: "json or jsonl; default: from Accept",
  answer_after_upload: "true: the answer begins once the whole log has arrived (behind a " +
    "proxy that stops relaying the request once the answer begins, such as nginx); the log " +
    "is then held, up to serve --max-log-read-ahead-bytes. Default false",
} as const;

const FORMATS: readonly TraceFormat[] = ["xes", "csv", "json", "jsonl"];
const OUTPUT_FORMATS: readonly OutputFormat[] = ["json", "jsonl"];
const BOOLEANS: readonly string[] = ["true", "false"];

/** `Content-Type` → the log's format. */
const LOG_TYPES: ReadonlyMap<string, TraceFormat> = new Map([
  ["application/xml", "xes"],
  ["text/xml", "xes"],
  ["application/x-xes+xml", "xes"],
  ["text/csv", "csv"],
  ["application/csv", "csv"],
  ["application/json", "json"],
  ["application/x-ndjson", "jsonl"],
  ["application/jsonl", "jsonl"],
  ["application/x-jsonlines", "jsonl"],
  ["application/jsonlines", "jsonl"],
]);

/** Types that say nothing of the format: `?format=` must. */
const OPAQUE_TYPES = new Set(["application/octet-stream", "text/plain", ""]);
/** Types of a gzipped file: `?format=` names what is inside. */
const GZIP_TYPES = new Set(["application/gzip", "application/x-gzip"]);

/** The media types of the response's formats, first the one `Content-Type` says. */
export const RESPONSE_TYPES: Readonly<Record<OutputFormat, readonly string[]>> = {
  json: ["application/json"],
  jsonl: ["application/x-ndjson", "application/jsonl", "application/x-jsonlines"],
};

/** The detail of the 415 for a body whose format cannot be told. */
const TYPES_HELP = "send Content-Type text/csv, application/xml (XES), application/json or " +
  "application/x-ndjson (JSONL), or name the format with ?format=xes|csv|json|jsonl";

/**
 * Reads `request`'s query and headers.
 *
 * @throws {ValidationError} 422 for a query parameter that is unknown, repeated, empty or not
 * one of its values.
 * @throws {HttpError} 415 for a `Content-Type` or `Content-Encoding` the server cannot read,
 * 406 for an `Accept` that takes neither JSON nor JSONL.
 */
export function readBatchRequest(request: Request): BatchRequest {
  const query = readQuery(new URL(request.url).searchParams);
  const type = mediaType(request.headers.get("content-type"));
  const encodingGzip = readEncoding(request.headers.get("content-encoding"));
  let format: TraceFormat | undefined;
  let gzip = encodingGzip || GZIP_TYPES.has(type);
  if (query.format !== undefined) {
    gzip ||= query.format.endsWith(".gz");
    format = query.format.replace(/\.gz$/, "") as TraceFormat;
  } else {
    format = LOG_TYPES.get(type);
    if (format === undefined) {
      const why = type === ""
        ? "The request has no Content-Type"
        : OPAQUE_TYPES.has(type) || GZIP_TYPES.has(type)
        ? `Content-Type ${type} does not say the log's format`
        : `Content-Type ${type} is not a log format this server reads`;
      throw new HttpError(415, `${why}: ${TYPES_HELP}`);
    }
  }
  return {
    format,
    gzip,
    caseColumn: query.case_column,
    activityColumn: query.activity_column,
    outputFormat: (query.output_format as OutputFormat | undefined) ??
      negotiateEncoding(request.headers.get("accept")),
    afterUpload: query.answer_after_upload === "true",
  };
}

type Query = Partial<Record<keyof typeof BATCH_PARAMETERS, string>>;

/** The query's parameters, checked; every problem is one issue of a 422. */
function readQuery(params: URLSearchParams): Query {
  const issues: ValidationIssue[] = [];
  const query: Query = {};
  const seen = new Set<string>();
  // Bounded: the request-target is at most the runtime's limit for a request line.
  for (const [name, value] of params) {
    const loc = ["query", name];
    if (!Object.hasOwn(BATCH_PARAMETERS, name)) {
      issues.push({
        type: "extra_forbidden",
        loc,
        msg: "Extra inputs are not permitted",
        input: value,
      });
      continue;
    }
    if (seen.has(name)) {
      issues.push({
        type: "value_error",
        loc,
        msg: "Value error, given more than once",
        input: value,
      });
      continue;
    }
    seen.add(name);
    const choices: readonly string[] | undefined = name === "format"
      ? FORMATS.flatMap((f) => [f, `${f}.gz`])
      : name === "output_format"
      ? OUTPUT_FORMATS
      : name === "answer_after_upload"
      ? BOOLEANS
      : undefined;
    if (value === "") {
      issues.push({
        type: "string_too_short",
        loc,
        msg: "String should have at least 1 character",
        input: value,
        ctx: { min_length: 1 },
      });
    } else if (choices !== undefined && !choices.includes(value.toLowerCase())) {
      const expected = alternatives(choices);
      issues.push({
        type: "enum",
        loc,
        msg: `Input should be ${expected}`,
        input: value,
        ctx: { expected },
      });
    } else {
      query[name as keyof Query] = choices === undefined ? value : value.toLowerCase();
    }
  }
  if (issues.length > 0) throw new ValidationError(issues);
  return query;
}

/** pydantic's wording of a list of choices: `'a', 'b' or 'c'`. */
function alternatives(choices: readonly string[]): string {
  const quoted = choices.map((c) => `'${c}'`);
  return `${quoted.slice(0, -1).join(", ")} or ${quoted.at(-1)}`;
}

/** The media type of a `Content-Type` value, lower-cased, without parameters. */
function mediaType(value: string | null): string {
  return (value ?? "").split(";", 1)[0]!.trim().toLowerCase();
}

/** Whether `Content-Encoding` says gzip; 415 for any other coding. */
function readEncoding(value: string | null): boolean {
  const codings = (value ?? "").split(",", 4).map((c) => c.trim().toLowerCase())
    .filter((c) => c !== "" && c !== "identity");
  if (codings.length === 0) return false;
  if (codings.length === 1 && (codings[0] === "gzip" || codings[0] === "x-gzip")) return true;
  throw new HttpError(
    415,
    `Content-Encoding ${value} is not supported: send the log as it is, or gzipped with ` +
      "Content-Encoding: gzip",
  );
}

/**
 * The response's format by `Accept` (RFC 9110 §12.5.1): the one with the higher weight, by the
 * most specific range that matches it; on a tie, the one named outright, else JSON (`batch`'s
 * default). No `Accept` is JSON; one that takes neither is a 406.
 */
export function negotiateEncoding(accept: string | null): OutputFormat {
  if (accept === null || accept.trim() === "") return "json";
  // Bounded: only the first 32 ranges count.
  const weights = qualityValues(accept, 32);
  const weigh = (format: OutputFormat) => {
    const exact = RESPONSE_TYPES[format].find((type) => weights.has(type));
    if (exact !== undefined) return { q: weights.get(exact)!, exact: true };
    return { q: weights.get("application/*") ?? weights.get("*/*") ?? 0, exact: false };
  };
  const json = weigh("json");
  const jsonl = weigh("jsonl");
  if (json.q <= 0 && jsonl.q <= 0) {
    throw new HttpError(
      406,
      `Accept ${accept} takes neither answer this route gives: application/json (the list ` +
        "cli.ts batch writes) or application/x-ndjson (one entry a line)",
    );
  }
  if (jsonl.q > json.q || (jsonl.q === json.q && jsonl.exact && !json.exact)) return "jsonl";
  return "json";
}
