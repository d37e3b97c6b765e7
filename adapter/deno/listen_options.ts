/**
 * The options and the handle of `listen()` (`listen.ts`), shared with its fallback on
 * `Deno.serve` (`listen_shared.ts`).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { DEFAULT_DRAIN_MS } from "./listen_options.ts";
 * assert.equal(DEFAULT_DRAIN_MS, 10_000);
 * ```
 *
 * @module
 */

/** The drain's default deadline in ms. */
export const DEFAULT_DRAIN_MS = 10_000;

/**
 * How long the socket stays open after `onDeadline` for the answers it provoked to go out, in
 * ms, at most.
 */
export const DEADLINE_GRACE_MS = 250;

/** What `listen()` serves. */
export interface ListenedApp {
  /** Answers a request; `info.signal`, when given, aborts when its client hangs up. */
  fetch(request: Request, info?: { signal?: AbortSignal }): Promise<Response>;
  /**
   * Answers requests on connections opened during the drain; used only where connections
   * cannot be served on their own (see `listen.ts`).
   */
  fetchWhileDraining?(request: Request): Promise<Response>;
  /**
   * Answers still streaming after `fetch` returned their head (logs being scored): at the
   * drain's deadline, `onDeadline` is called for them too, and they are waited for.
   */
  streamsInProgress?(): number;
}

/** Where and how to listen. */
export interface ListenOptions {
  /** Default `127.0.0.1` (Deno.serve's own default would be every interface). */
  readonly hostname?: string;
  /** Default 8000; 0 picks a free port. */
  readonly port?: number;
  /**
   * The drain's deadline in ms (default {@link DEFAULT_DRAIN_MS}): then the socket closes,
   * cutting what is left.
   */
  readonly drainMs?: number;
  /**
   * How long new connections are still accepted and served after the drain begins, in ms
   * (default 0: the listening socket closes at once, so that a proxy in front retries them on
   * another replica). A platform that keeps routing new connections to a stopping process for a
   * while (a Kubernetes Service without a `preStop` pause) wants a few seconds here.
   */
  readonly lameDuckMs?: number;
  /**
   * Hand the app `request.signal`, so that a client's hang-up withdraws its queued rows. Only
   * with Deno's `no-legacy-abort` on (`"unstable": ["no-legacy-abort"]` in deno.json, as this
   * package's own CLI runs): without it, Deno prints a notice the first time it is read, and
   * Deno gives no other way to see a hang-up before the answer (default false).
   */
  readonly hangUpSignal?: boolean;
  /**
   * During the drain, how long no request must arrive on any connection before the idle
   * keep-alive connections are closed, in ms (default 1000; see `listen.ts`). On `Deno.serve`
   * (`listen_shared.ts`): how long a connection may stay idle before it counts as abandoned
   * (default 1 s).
   */
  readonly idleMs?: number;
  /** Called once when the drain begins (e.g. `readiness.drain()`), before any other step. */
  readonly onDrain?: () => void;
  /**
   * Where the listener's own lines go (accepting failing and working again, an error outside
   * the app); default `console.error`.
   */
  readonly log?: (line: string) => void;
  /**
   * Called once when the drain's deadline passes with requests in flight or answers streaming (e.g.
   * `readiness.cutOff()`), so the app can answer them before the socket closes.
   */
  readonly onDeadline?: () => void;
}

/** A listening server. */
export interface Running {
  /** The base URL, e.g. `http://127.0.0.1:8000`. */
  readonly url: string;
  /**
   * Resolves once the server has stopped (after {@link Running.stop} or a signal); rejects
   * when its listening socket failed for good.
   */
  readonly finished: Promise<void>;
  /** Drains (see `listen.ts`) and closes the socket, then resolves. */
  stop(): Promise<void>;
}
