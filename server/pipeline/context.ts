/**
 * One request's state, made once at the top of the pipeline (`./compose.ts`) and passed to
 * every step: its id, path and route, when it started, the client's hang-up signal, the deadline
 * admission gives it, the bytes of its body, the rows its model runs took, and the runner its
 * operation calls.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { RequestContext } from "./context.ts";
 * const context = new RequestContext(new Request("http://localhost/forward?x=1"), false);
 * assert.equal(context.path, "/forward");
 * assert.equal(context.route, "unmatched");
 * assert.equal(context.rows, undefined);
 * ```
 *
 * @module
 */

import type { OpsModel, Runner } from "../../core/ops/mod.ts";
import type { PackedInputs, PackedOutputs, RunOptions } from "../../core/runtime/mod.ts";
import { HttpError, pathOf, requestIdOf, type ResponseNotes, targetOf } from "../http/mod.ts";
import { tooManyRowsDetail } from "./request_limits.ts";

/** What runs a request's rows: admission's guard around the model (`./admission.ts`). */
export interface RequestRunner {
  /** Runs `inputs` for `context`, with its signal and deadline, or throws an `HttpError`. */
  run(context: RequestContext, inputs: PackedInputs, options: RunOptions): Promise<PackedOutputs>;
}

/** How admission follows the reading of an admitted request's body (`./body.ts`). */
export interface BodyMeter {
  /** Called with each chunk's size; throws a 503 `HttpError` when memory would pass its limit. */
  received(context: RequestContext, bytes: number): void;
  /** Awaited once the whole body is read: a large body may wait for its turn to be parsed. */
  complete(context: RequestContext): Promise<void> | undefined;
}

/**
 * What the host tells the app about a request besides the request: `signal` aborts when the
 * client hangs up. `adapter/deno/listen.ts` passes `request.signal`; a bare `Deno.serve(app.fetch)`
 * passes none, so the app never reads `request.signal` (without Deno's `no-legacy-abort` flag,
 * reading it prints a notice) and a hung-up client's rows run to their deadline instead.
 */
export interface ClientInfo {
  /** Aborts when the client hangs up. */
  readonly signal?: AbortSignal | undefined;
}

/**
 * The hang-up signal of a host's second argument, if it is a {@link ClientInfo} with one
 * (`Deno.serve` passes its own info, which has none).
 */
export function clientSignalOf(info: unknown): AbortSignal | undefined {
  if (typeof info !== "object" || info === null || !("signal" in info)) return undefined;
  return info.signal instanceof AbortSignal ? info.signal : undefined;
}

/** See the module doc. */
export class RequestContext implements Runner, ResponseNotes {
  /** The request as it arrived. */
  readonly request: Request;
  /** The request-target as the request line sent it (path and query). */
  readonly target: string;
  /** The request-target's path. */
  readonly path: string;
  /** The request's id, echoed on the response and logged. */
  readonly requestId: string;
  /** Wall-clock time it arrived, ms since the epoch (for the access log). */
  readonly time: number = Date.now();
  /** `performance.now()` when it arrived. */
  readonly started: number = performance.now();
  /** Whether it arrived on a connection opened while the server drains. */
  readonly draining: boolean;
  /** Aborts when the client hangs up; `undefined` when the host gave none. */
  readonly clientSignal: AbortSignal | undefined;
  /** The route template (metrics' label, the access log), `unmatched` until routed. */
  route = "unmatched";
  /** Model rows its runs took; `undefined` for routes that never run the model. */
  rows: number | undefined;
  /** Most rows its runs may take in all. */
  maxRows = Infinity;
  /** Error responses' key: `detail`, or `error` for the Open Inference Protocol. */
  errorKey: "detail" | "error" = "detail";
  /** When its rows must have started their run (`performance.now()` ms); set by admission. */
  deadline: number | undefined;
  /** Bytes of its body read so far. */
  bodyBytes = 0;
  /** Admitted, and its first model run not queued yet (admission foresees its rows). */
  inTransit = false;
  /** Whether admission counts its body as it streams in (it declared no length). */
  metered = false;
  /** Bytes admission holds for it. */
  reservedBytes = 0;
  /** Whether its body has been read to the end. */
  bodyDone = false;
  /** Follows its body's reading, once admitted. */
  meter: BodyMeter | undefined;
  /** What runs its rows, once admitted; the model itself otherwise. */
  runner: RequestRunner | undefined;
  /** Its route's handler, once routed. */
  handler: ((context: RequestContext) => Promise<Response>) | undefined;
  /** The model its operation runs on. */
  model: OpsModel | undefined;
  /** Size of its JSON response (`../http/json.ts`), for admission's count of large responses. */
  responseBytes: number | undefined;
  /** Its JSON response when it has no extra headers: compression skips reading them. */
  plainResponse: Response | undefined;
  /** Its JSON response when it is streamed: compression streams too. */
  streamedResponse: Response | undefined;
  /** Called once its streamed response has been sent or cancelled (admission releases it). */
  responseSent: (() => void) | undefined;
  /** Its response when it goes out as it is (`POST /batch`: compressing would hold entries back). */
  identityResponse: Response | undefined;

  /**
   * @param draining whether the request came on a connection opened during the drain
   * @param clientSignal aborts when the client hangs up, if the host can tell (see
   * {@link ClientInfo})
   */
  constructor(request: Request, draining: boolean, clientSignal?: AbortSignal) {
    this.request = request;
    this.clientSignal = clientSignal;
    this.target = targetOf(request);
    this.path = pathOf(this.target);
    this.requestId = requestIdOf(request);
    this.draining = draining;
  }

  /** Runs packed rows as this request's: counted, with its signal and deadline. */
  runPacked(inputs: PackedInputs, options: RunOptions): Promise<PackedOutputs> {
    const total = (this.rows ?? 0) + inputs.batch;
    if (total > this.maxRows) {
      return Promise.reject(new HttpError(413, tooManyRowsDetail(total, this.maxRows)));
    }
    this.rows = total;
    if (this.runner !== undefined) return this.runner.run(this, inputs, options);
    return this.model!.runPacked(inputs, options);
  }
}
