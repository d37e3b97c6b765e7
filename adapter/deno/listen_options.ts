/**
 * The options and the handle of `listen()` (`listen.ts`) and of its fallback on `Deno.serve`.
 *
 * @module
 */

/** The drain's default deadline in ms. */
export const DEFAULT_DRAIN_MS = 10_000;

/** How long the socket stays open after `onDeadline` for its responses to go out, in ms. */
export const DEADLINE_GRACE_MS = 250;

/** What `listen()` serves. */
export interface ListenedApp {
  /** Handles a request; `info.signal`, when given, aborts when its client hangs up. */
  fetch(request: Request, info?: { signal?: AbortSignal }): Promise<Response>;
  /** Handles requests on connections opened during the drain (the `Deno.serve` fallback). */
  fetchWhileDraining?(request: Request): Promise<Response>;
  /** Responses still streaming after their head (logs being scored): the drain waits for them. */
  streamsInProgress?(): number;
}

/** Where and how to listen. */
export interface ListenOptions {
  /** Not every interface, as `Deno.serve` would. @default {"127.0.0.1"} */
  readonly hostname?: string;
  /** 0 picks a free port. @default {8000} */
  readonly port?: number;
  /** The drain's deadline in ms: then the socket closes, cutting what is left. @default {10000} */
  readonly drainMs?: number;
  /**
   * How long new connections are still served after the drain begins, in ms: 0 closes the
   * socket at once so a proxy retries elsewhere; a Kubernetes Service without a `preStop` pause
   * wants a few seconds. @default {0}
   */
  readonly lameDuckMs?: number;
  /**
   * Hand the app `request.signal`, so a hang-up withdraws its queued rows; needs Deno's
   * `no-legacy-abort` (deno.json `unstable`), or Deno prints a notice. @default {false}
   */
  readonly hangUpSignal?: boolean;
  /**
   * How long no request may arrive before the drain closes idle keep-alive connections, in ms;
   * on the `Deno.serve` fallback, how long a connection may idle before it is abandoned.
   * @default {1000}
   */
  readonly idleMs?: number;
  /** Called once when the drain begins (e.g. `readiness.drain()`), before any other step. */
  readonly onDrain?: () => void;
  /**
   * Where the listener's lines go (accept failures, errors outside the app).
   * @default {console.error}
   */
  readonly log?: (line: string) => void;
  /** Called once if the deadline passes with work in flight, so the app can respond first. */
  readonly onDeadline?: () => void;
}

/** A listening server. */
export interface Running {
  /** The base URL, e.g. `http://127.0.0.1:8000`. */
  readonly url: string;
  /** Resolves once stopped (by `stop()` or a signal); rejects if the socket failed for good. */
  readonly finished: Promise<void>;
  /** Drains (see `listen.ts`) and closes the socket, then resolves. */
  stop(): Promise<void>;
}
