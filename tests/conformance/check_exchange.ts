/**
 * Replays the recorded exchanges of `tests/fixtures/conformance/<model>/exchanges.jsonl` and checks
 * answers by their `expect.compare` rule, exactly as the conformance README describes. It
 * works on any `Response`: the server tests call `app.fetch`, the `serve` tests a real socket.
 *
 * @example
 * ```ts
 * import { checkExchange, exchangeRequest, readExchanges } from "./check_exchange.ts";
 * declare const app: { fetch(request: Request): Promise<Response> };
 * const dir = new URL("../fixtures/conformance/rest_serving/", import.meta.url);
 * for (const exchange of await readExchanges(dir)) {
 *   const request = exchangeRequest(exchange, "http://localhost");
 *   if (!request) continue; // compare "skip"
 *   const problems = await checkExchange(exchange, await app.fetch(request), {
 *     sourcePlaces: new Set(["p_application"]),
 *   });
 *   if (problems.length > 0) console.log(problems);
 * }
 * ```
 *
 * @module
 */

import { fail } from "node:assert/strict";
import { parseModelDescription } from "../../core/net/parse.ts";
import { quoteId } from "../../core/net/quote_id.ts";
import { netStructure } from "../../core/net/structure.ts";

/** One recorded exchange (one line of exchanges.jsonl). */
export interface Exchange {
  readonly i: number;
  readonly method: string;
  readonly path: string;
  readonly body?: unknown;
  readonly body_raw?: string;
  readonly request_content_type?: string;
  readonly note?: string;
  readonly petra: { readonly status: number; readonly response?: unknown };
  readonly expect: Expectation;
}

/** What petri-serve must answer. */
export interface Expectation {
  readonly compare: string;
  readonly status?: number;
  readonly response?: unknown;
  readonly ignore?: readonly string[];
  readonly detail?: string;
  readonly ids?: Readonly<Record<string, readonly string[]>>;
  readonly paths?: readonly string[];
  readonly compare_original_input?: boolean;
  readonly deviations?: readonly string[];
  readonly why?: string;
}

/** Facts about the served net that some rules need. */
export interface CheckContext {
  /** Source places of the net: the only extra sensitivity keys allowed (D7). */
  readonly sourcePlaces: ReadonlySet<string>;
}

/**
 * Reads `exchanges.jsonl` from a model's conformance folder.
 *
 * @example
 * ```ts
 * import { readExchanges } from "./check_exchange.ts";
 * const dir = new URL("../fixtures/conformance/paint_shop/", import.meta.url);
 * (await readExchanges(dir)).length > 0; // true
 * ```
 */
export async function readExchanges(dir: URL): Promise<Exchange[]> {
  const text = await Deno.readTextFile(new URL("exchanges.jsonl", dir));
  return text.split("\n").filter((line) => line.trim() !== "").map((line) => JSON.parse(line));
}

/**
 * The request of an exchange against `origin` (e.g. `http://127.0.0.1:8000`), or undefined for
 * a skipped exchange. `body` is sent as JSON, else `body_raw` verbatim, with
 * `Content-Type: application/json` unless `request_content_type` says otherwise.
 *
 * @example
 * ```ts
 * import { type Exchange, exchangeRequest } from "./check_exchange.ts";
 * declare const exchange: Exchange;
 * exchangeRequest(exchange, "http://localhost")?.method;
 * ```
 */
export function exchangeRequest(exchange: Exchange, origin: string): Request | undefined {
  if (exchange.expect.compare === "skip") return undefined;
  const body = exchange.body !== undefined ? JSON.stringify(exchange.body) : exchange.body_raw;
  const init: RequestInit = { method: exchange.method };
  if (body !== undefined) {
    init.body = body;
    init.headers = { "content-type": exchange.request_content_type ?? "application/json" };
  }
  return new Request(new URL(exchange.path, origin), init);
}

/**
 * A one-line description of an exchange for failure messages.
 *
 * @example
 * ```ts
 * import { type Exchange, describeExchange } from "./check_exchange.ts";
 * declare const exchange: Exchange;
 * describeExchange(exchange); // "#8 POST /forward (empty marking: ...)"
 * ```
 */
export function describeExchange(exchange: Exchange): string {
  return `#${exchange.i} ${exchange.method} ${exchange.path} (${exchange.note ?? ""})`;
}

/**
 * The facts {@link checkExchange} needs about the net of a model description (a recorded
 * `model.json`, parsed JSON).
 *
 * @example
 * ```ts
 * import { exchangeContext } from "./check_exchange.ts";
 * import { readConformanceDescription } from "./fixtures.ts";
 * exchangeContext(await readConformanceDescription("rest_serving")).sourcePlaces;
 * ```
 */
export function exchangeContext(description: unknown): CheckContext {
  return {
    sourcePlaces: new Set(netStructure(parseModelDescription(description).net).sourcePlaces),
  };
}

/**
 * Replays `exchanges` over HTTP against a running server at `origin`, one test step per
 * exchange (skipped exchanges are ignored steps); a step fails with the mismatches
 * {@link checkExchange} found.
 *
 * @example
 * ```ts
 * import { exchangeContext, readExchanges, replayExchanges } from "./check_exchange.ts";
 * import { CONFORMANCE, readConformanceDescription } from "./fixtures.ts";
 * declare const t: Deno.TestContext;
 * declare const origin: string; // e.g. "http://127.0.0.1:8000"
 * const context = exchangeContext(await readConformanceDescription("paint_shop"));
 * const exchanges = await readExchanges(new URL("paint_shop/", CONFORMANCE));
 * await replayExchanges(t, exchanges, origin, context);
 * ```
 */
export async function replayExchanges(
  t: Deno.TestContext,
  exchanges: readonly Exchange[],
  origin: string,
  context: CheckContext,
): Promise<void> {
  for (const exchange of exchanges) {
    await t.step({
      name: describeExchange(exchange),
      ignore: exchange.expect.compare === "skip",
      fn: async () => {
        const response = await fetch(exchangeRequest(exchange, origin)!);
        const problems = await checkExchange(exchange, response, context);
        if (problems.length > 0) {
          fail(
            `${describeExchange(exchange)}\n${problems.join("\n")}\n` +
              `exchange: ${JSON.stringify(exchange)}`,
          );
        }
      },
    });
  }
}

/**
 * Checks an answer against an exchange's rule; returns the mismatches (empty when it passes).
 * Consumes the response body.
 *
 * @example
 * ```ts
 * import { checkExchange, type Exchange } from "./check_exchange.ts";
 * declare const exchange: Exchange;
 * declare const response: Response;
 * const problems = await checkExchange(exchange, response, { sourcePlaces: new Set() });
 * ```
 */
export async function checkExchange(
  exchange: Exchange,
  response: Response,
  context: CheckContext,
): Promise<string[]> {
  const text = await response.text();
  const { expect } = exchange;
  if (expect.compare === "skip") return [];
  const problems: string[] = [];
  const expectedStatus = expect.status ?? statusOf(expect.compare);
  if (expectedStatus !== undefined && response.status !== expectedStatus) {
    problems.push(`status ${response.status}, expected ${expectedStatus}; body ${clip(text)}`);
    return problems;
  }
  if (expect.compare === "status") return problems;
  const type = response.headers.get("content-type") ?? "";
  if (!type.startsWith("application/json")) problems.push(`content-type is ${quoteId(type)}`);
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return [...problems, `body is not JSON: ${clip(text)}`];
  }
  const rule = RULES[expect.compare];
  if (rule === undefined) return [...problems, `unknown compare rule ${quoteId(expect.compare)}`];
  rule(exchange, body, context, problems);
  return problems;
}

type Rule = (
  exchange: Exchange,
  body: unknown,
  context: CheckContext,
  problems: string[],
) => void;

const RULES: Readonly<Record<string, Rule>> = {
  exact(exchange, body, _context, problems) {
    const expected = exchange.expect.response ?? exchange.petra.response;
    const ignore = new Set(exchange.expect.ignore ?? []);
    compareJson(dropKeys(body, ignore), dropKeys(expected, ignore), "body", problems);
  },
  "error-detail"(_exchange, body, _context, problems) {
    if (typeof field(body, "detail") !== "string") {
      problems.push(`detail is not a string: ${JSON.stringify(body)}`);
    }
  },
  detail(exchange, body, _context, problems) {
    const detail = field(body, "detail");
    if (detail !== exchange.expect.detail) {
      problems.push(
        `detail ${JSON.stringify(detail)}, expected ${JSON.stringify(exchange.expect.detail)}`,
      );
    }
  },
  "detail-ids"(exchange, body, _context, problems) {
    const detail = field(body, "detail");
    if (typeof detail !== "string") {
      problems.push(`detail is not a string: ${JSON.stringify(body)}`);
      return;
    }
    for (const [name, ids] of Object.entries(exchange.expect.ids ?? {})) {
      if (!detail.includes(name)) problems.push(`detail does not name ${name}: ${detail}`);
      for (const id of ids) {
        if (!detail.includes(quoteId(id))) {
          problems.push(`detail does not quote ${quoteId(id)}: ${detail}`);
        }
      }
    }
  },
  validation(_exchange, body, _context, problems) {
    const detail = field(body, "detail");
    if (!Array.isArray(detail) || detail.length === 0) {
      problems.push(`detail is not a non-empty list: ${JSON.stringify(body)}`);
      return;
    }
    for (const issue of detail) {
      const ok = isObject(issue) && Array.isArray(issue.loc) && typeof issue.msg === "string" &&
        typeof issue.type === "string";
      if (!ok) problems.push(`malformed issue ${JSON.stringify(issue)}`);
    }
  },
  openapi(exchange, body, _context, problems) {
    const paths = field(body, "paths");
    if (!isObject(paths)) {
      problems.push("the document has no paths object");
      return;
    }
    for (const path of exchange.expect.paths ?? []) {
      if (!Object.hasOwn(paths, path)) problems.push(`paths lacks ${path}`);
    }
  },
  counterfactual(exchange, body, _context, problems) {
    checkCounterfactualShape(exchange, body, problems);
    if (problems.length > 0 || !isObject(body)) return;
    const petra = exchange.petra.response;
    if (!isObject(petra)) {
      problems.push("PETRA's response is missing");
      return;
    }
    const [lo, hi] = requestRange(exchange);
    const width = hi - lo;
    if (body.found !== petra.found) {
      if (body.found === true) {
        // D2/D3: ours may find a crossing PETRA missed; the shape check verified it is one.
        return;
      }
      // Ours found none: allowed only where PETRA's answer was no boundary either.
      if (petra.found === true && isBoundary(exchange, petra)) {
        problems.push(
          `found false, but PETRA found a boundary at ${petra.counterfactual_input} ` +
            `(activation ${petra.original_activation} -> ${petra.counterfactual_activation})`,
        );
      }
      return;
    }
    if (body.found !== true) return;
    for (const key of ["target_label", "flipped_place", "flipped_channel"]) {
      if (body[key] !== petra[key]) {
        problems.push(`${key} ${JSON.stringify(body[key])}, PETRA ${JSON.stringify(petra[key])}`);
      }
    }
    if (!close(body.original_activation, petra.original_activation, 1e-5, 1e-5)) {
      problems.push(
        `original_activation ${body.original_activation}, PETRA ${petra.original_activation}`,
      );
    }
    if (exchange.expect.compare_original_input && body.original_input !== petra.original_input) {
      problems.push(`original_input ${body.original_input}, PETRA ${petra.original_input}`);
    }
    const ours = body.counterfactual_input as number;
    const theirs = petra.counterfactual_input as number;
    const original = body.original_input as number;
    const near = Math.abs(ours - theirs) <= 0.01 * width;
    const nearer = Math.abs(ours - original) <= Math.abs(theirs - original);
    if (!near && !nearer) {
      problems.push(
        `counterfactual_input ${ours} is neither within 1% of the range of PETRA's ${theirs} ` +
          `nor nearer the original input ${original}`,
      );
    }
  },
  "counterfactual-shape"(exchange, body, _context, problems) {
    checkCounterfactualShape(exchange, body, problems);
  },
  sensitivity(exchange, body, context, problems) {
    const petra = exchange.petra.response;
    if (!isObject(body) || !isObject(petra)) {
      problems.push(`not an object: ${JSON.stringify(body)}`);
      return;
    }
    for (const key of ["target_transition", "target_label"]) {
      if (body[key] !== petra[key]) {
        problems.push(`${key} ${JSON.stringify(body[key])}, PETRA ${JSON.stringify(petra[key])}`);
      }
    }
    if (!close(body.base_activation, petra.base_activation, 1e-5, 1e-5)) {
      problems.push(`base_activation ${body.base_activation}, PETRA ${petra.base_activation}`);
    }
    for (const key of ["marking_gradients", "value_gradients"]) {
      const ours = body[key];
      const theirs = petra[key];
      if (!isObject(ours) || !isObject(theirs)) {
        problems.push(`${key} is not an object: ${JSON.stringify(ours)}`);
        continue;
      }
      for (const [id, value] of Object.entries(theirs)) {
        if (!Object.hasOwn(ours, id)) {
          problems.push(`${key} lacks ${quoteId(id)}`);
        } else if (!close(ours[id], value, 1e-5, 1e-4)) {
          problems.push(`${key}[${quoteId(id)}] ${ours[id]}, PETRA ${value}`);
        }
      }
      for (const id of Object.keys(ours)) {
        if (!Object.hasOwn(theirs, id) && !context.sourcePlaces.has(id)) {
          problems.push(`${key} has ${quoteId(id)}, which PETRA lacks and is not a source place`);
        }
      }
    }
  },
};

const FOUND_KEYS = [
  "found",
  "target_transition",
  "target_label",
  "flipped_place",
  "flipped_channel",
  "original_input",
  "counterfactual_input",
  "original_activation",
  "counterfactual_activation",
];

/** A well-formed answer: found with every field (a real crossing), or only two fields (D6). */
function checkCounterfactualShape(exchange: Exchange, body: unknown, problems: string[]): void {
  if (!isObject(body)) {
    problems.push(`not an object: ${JSON.stringify(body)}`);
    return;
  }
  const request = isObject(exchange.body) ? exchange.body : {};
  if (body.target_transition !== request.target_transition) {
    problems.push(`target_transition ${JSON.stringify(body.target_transition)} is not the echo`);
  }
  const keys = Object.keys(body).sort();
  if (body.found === false) {
    if (keys.join() !== "found,target_transition") {
      problems.push(`found false with keys ${keys.join(", ")} (D6: only found, target_transition)`);
    }
    return;
  }
  if (body.found !== true) {
    problems.push(`found is ${JSON.stringify(body.found)}`);
    return;
  }
  if (keys.join() !== [...FOUND_KEYS].sort().join()) {
    problems.push(`found true with keys ${keys.join(", ")}`);
  }
  for (const key of FOUND_KEYS.slice(5)) {
    if (typeof body[key] !== "number") problems.push(`${key} is not a number: ${body[key]}`);
  }
  if (body.flipped_place !== request.flip_place) {
    problems.push(`flipped_place ${JSON.stringify(body.flipped_place)} is not flip_place`);
  }
  if (body.flipped_channel !== (request.flip_channel ?? "marking")) {
    problems.push(`flipped_channel ${JSON.stringify(body.flipped_channel)} is not flip_channel`);
  }
  const tolerance = requestTolerance(exchange);
  const [lo, hi] = requestRange(exchange);
  const input = body.counterfactual_input as number;
  if (!isBoundary(exchange, body)) {
    problems.push(
      `counterfactual_activation ${body.counterfactual_activation} is neither within ` +
        `${tolerance} of 0.5 nor across 0.5 from original_activation ${body.original_activation}`,
    );
  }
  if (!(lo <= input && input <= hi)) {
    problems.push(`counterfactual_input ${input} is outside [${lo}, ${hi}]`);
  }
}

/**
 * A found answer is a boundary when its activation is within `tolerance` of 0.5 or lies across
 * 0.5 from the original activation (a decision flip, e.g. a straight-through jump).
 */
function isBoundary(exchange: Exchange, answer: Record<string, unknown>): boolean {
  const activation = answer.counterfactual_activation;
  const original = answer.original_activation;
  if (typeof activation !== "number") return false;
  if (Math.abs(activation - 0.5) < requestTolerance(exchange)) return true;
  return typeof original === "number" &&
    Math.sign(activation - 0.5) * Math.sign(original - 0.5) < 0;
}

function requestTolerance(exchange: Exchange): number {
  const tolerance = isObject(exchange.body) ? exchange.body.tolerance : undefined;
  return typeof tolerance === "number" ? tolerance : 1e-3;
}

function requestRange(exchange: Exchange): [number, number] {
  const range = isObject(exchange.body) ? exchange.body.search_range : undefined;
  return Array.isArray(range) ? [range[0], range[1]] : [0, 1];
}

function statusOf(compare: string): number | undefined {
  switch (compare) {
    case "detail":
    case "detail-ids":
      return 400;
    case "validation":
      return 422;
    case "openapi":
    case "counterfactual":
    case "counterfactual-shape":
    case "sensitivity":
      return 200;
    default:
      return undefined;
  }
}

/**
 * Deep comparison: same keys (order ignored), strings and booleans equal, numbers within
 * 1e-5 absolute or 1e-5 relative.
 */
function compareJson(actual: unknown, expected: unknown, at: string, problems: string[]): void {
  if (typeof expected === "number" || typeof actual === "number") {
    if (!close(actual, expected, 1e-5, 1e-5)) {
      problems.push(`${at}: ${actual}, expected ${expected}`);
    }
    return;
  }
  if (Array.isArray(expected)) {
    if (!Array.isArray(actual) || actual.length !== expected.length) {
      problems.push(`${at}: ${JSON.stringify(actual)}, expected ${JSON.stringify(expected)}`);
      return;
    }
    expected.forEach((item, i) => compareJson(actual[i], item, `${at}[${i}]`, problems));
    return;
  }
  if (isObject(expected)) {
    if (!isObject(actual)) {
      problems.push(`${at}: ${JSON.stringify(actual)}, expected an object`);
      return;
    }
    const a = Object.keys(actual).sort();
    const e = Object.keys(expected).sort();
    if (a.join("\u0000") !== e.join("\u0000")) {
      problems.push(`${at}: keys ${a.join(", ")}, expected ${e.join(", ")}`);
    }
    for (const key of e) {
      if (Object.hasOwn(actual, key)) {
        compareJson(actual[key], expected[key], `${at}.${key}`, problems);
      }
    }
    return;
  }
  if (actual !== expected) {
    problems.push(`${at}: ${JSON.stringify(actual)}, expected ${JSON.stringify(expected)}`);
  }
}

function close(actual: unknown, expected: unknown, atol: number, rtol: number): boolean {
  if (actual === null && expected === null) return true;
  if (typeof actual !== "number" || typeof expected !== "number") return false;
  const diff = Math.abs(actual - expected);
  return diff <= atol || diff <= rtol * Math.abs(expected);
}

function dropKeys(value: unknown, keys: ReadonlySet<string>): unknown {
  if (!isObject(value) || keys.size === 0) return value;
  return Object.fromEntries(Object.entries(value).filter(([key]) => !keys.has(key)));
}

function field(value: unknown, key: string): unknown {
  return isObject(value) && Object.hasOwn(value, key) ? value[key] : undefined;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function clip(text: string): string {
  return text.length > 300 ? `${text.slice(0, 297)}...` : text;
}
