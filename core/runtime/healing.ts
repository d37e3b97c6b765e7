/**
 * An ORT session that heals: when a run fails (out of memory, a dead worker, a run that never
 * ends), {@link HealingSession} refuses it with `model_unavailable`, releases the broken session
 * and opens a new one in the background with a growing pause, refusing runs meanwhile. After
 * `maxRestartAttempts` failures in a row it gives up, and its `gave_up` event tells the process
 * to exit so that its supervisor replaces it. Events report bursts, so the log gets two lines each.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { HealingSession } from "./healing.ts";
 * import type { OrtSession } from "./session.ts";
 * let opened = 0;
 * const fake = (): OrtSession => ({
 *   outputNames: ["transitions"],
 *   run: () => Promise.reject(new Error("out of memory")),
 *   release: () => Promise.resolve(),
 * });
 * const healing = await HealingSession.open(() => (opened++, Promise.resolve(fake())), {
 *   restartBackoffMs: 1,
 * });
 * const events: string[] = [];
 * healing.onHealth((event) => events.push(event.kind));
 * await assert.rejects(healing.run((session) => session.run({})), { reason: "model_unavailable" });
 * assert.equal(healing.state, "restarting");
 * await new Promise((resolve) => setTimeout(resolve, 50));
 * assert.deepEqual([healing.state, healing.restarts, opened, events], ["ready", 1, 2, ["failed", "restarted"]]);
 * await healing.release();
 * ```
 *
 * @module
 */

import type { OrtSession } from "./ort_module.ts";
import { messageOf, ModelBusyError } from "./errors.ts";
import { deferred } from "./deferred.ts";

/** How a {@link HealingSession} recreates its session. */
export interface HealingPolicy {
  /**
   * Failures in a row (failed runs and failed attempts to reopen) before giving up.
   * @default {DEFAULT_MAX_RESTART_ATTEMPTS}
   */
  readonly maxRestartAttempts?: number | undefined;
  /**
   * Pause before the first attempt to reopen, in ms, doubled after each failure.
   * @default {DEFAULT_RESTART_BACKOFF_MS}
   */
  readonly restartBackoffMs?: number | undefined;
  /**
   * A run unsettled after this many ms fails (its session is released, which ends a worker's run).
   * @default {DEFAULT_RUN_TIMEOUT_MS}
   */
  readonly runTimeoutMs?: number | undefined;
}

/** The default of {@link HealingPolicy.maxRestartAttempts}. */
export const DEFAULT_MAX_RESTART_ATTEMPTS = 5;
/** The default of {@link HealingPolicy.restartBackoffMs}. */
export const DEFAULT_RESTART_BACKOFF_MS = 100;
/** The default of {@link HealingPolicy.runTimeoutMs}. */
export const DEFAULT_RUN_TIMEOUT_MS = 30_000;
/** The longest pause between two attempts to reopen, in ms. */
const MAX_BACKOFF_MS = 5_000;
/** How long releasing a broken session may take before it is abandoned, in ms. */
const RELEASE_TIMEOUT_MS = 1_000;

/** Where a {@link HealingSession} stands. */
export type HealthState = "ready" | "restarting" | "failed";

/** One step of a burst of failures; see the module doc. */
export type HealthEvent =
  | {
    /** A run failed, or an attempt to reopen did. */
    readonly kind: "failed";
    readonly error: unknown;
    /** Failures in a row so far, this one included. */
    readonly consecutive: number;
  }
  | {
    /** A new session is open and takes runs. */
    readonly kind: "restarted";
    /** Sessions opened after failures since the start. */
    readonly restarts: number;
  }
  | {
    /** The first successful run after a burst: the burst is over. */
    readonly kind: "healthy";
    /** Failures in the burst. */
    readonly failures: number;
  }
  | {
    /** Too many failures in a row: the session stays closed; the process should exit. */
    readonly kind: "gave_up";
    readonly error: unknown;
    readonly failures: number;
  };

/** The current session of a model, reopened after failures; see the module doc. */
export class HealingSession<S extends OrtSession = OrtSession> {
  readonly #open: () => Promise<S>;
  readonly #maxAttempts: number;
  readonly #backoffMs: number;
  readonly #runTimeoutMs: number;
  readonly #listeners = new Set<(event: HealthEvent) => void>();
  #session: S | undefined;
  #state: HealthState = "ready";
  #consecutive = 0;
  #restarts = 0;
  #released = false;
  #lastError: unknown;
  /** The reopening in progress, awaited by {@link HealingSession.release}. */
  #restarting: Promise<void> | undefined;
  /** Ends the pause before the next attempt early (on release). */
  #wake: (() => void) | undefined;
  /** The run in flight (runs are one at a time): when it started, and how to fail it. */
  #current: { readonly started: number; readonly fail: (error: Error) => void } | undefined;
  #watchdog: ReturnType<typeof setTimeout> | undefined;

  private constructor(open: () => Promise<S>, session: S, policy: HealingPolicy) {
    this.#open = open;
    this.#session = session;
    this.#maxAttempts = policy.maxRestartAttempts ?? DEFAULT_MAX_RESTART_ATTEMPTS;
    this.#backoffMs = policy.restartBackoffMs ?? DEFAULT_RESTART_BACKOFF_MS;
    this.#runTimeoutMs = policy.runTimeoutMs ?? DEFAULT_RUN_TIMEOUT_MS;
  }

  /** Opens the first session with `open`; its failure is thrown as it is (no retry). */
  static async open<S extends OrtSession>(
    open: () => Promise<S>,
    policy: HealingPolicy = {},
  ): Promise<HealingSession<S>> {
    return new HealingSession(open, await open(), policy);
  }

  /** `"ready"` while runs are taken, `"restarting"` while a session reopens, `"failed"` for good. */
  get state(): HealthState {
    return this.#state;
  }

  /** Sessions opened after failures since the first one. */
  get restarts(): number {
    return this.#restarts;
  }

  /** The current session's output names (empty once it has given up). */
  get outputNames(): readonly string[] {
    return this.#session?.outputNames ?? [];
  }

  /** Calls `listener` with every {@link HealthEvent}; returns a function that stops it. */
  onHealth(listener: (event: HealthEvent) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /**
   * Runs `task` on the current session; rejects with `model_unavailable` when it is not ready,
   * or when `task` fails or outlasts the run time-out (then it starts reopening).
   */
  async run<T>(task: (session: S) => Promise<T>): Promise<T> {
    const session = this.#session;
    if (this.#state !== "ready" || session === undefined) throw this.#unavailable();
    const { promise: overdue, reject: fail } = deferred<never>();
    const current = { started: performance.now(), fail };
    this.#current = current;
    this.#armWatchdog();
    try {
      const result = await Promise.race([task(session), overdue]);
      if (this.#consecutive > 0 && this.#session === session) {
        const failures = this.#consecutive;
        this.#consecutive = 0;
        this.#emit({ kind: "healthy", failures });
      }
      return result;
    } catch (error) {
      // A session already replaced (a run that outlived its session) fails only its caller.
      if (this.#session === session && !this.#released) this.#fail(error, session);
      throw new ModelBusyError(
        "model_unavailable",
        `The model run failed (${messageOf(error)}); the model session is being recreated`,
        { cause: error },
      );
    } finally {
      if (this.#current === current) this.#current = undefined;
    }
  }

  /** Arms the one timer that fails a run outliving `runTimeoutMs` (a timer per run cost more). */
  #armWatchdog(): void {
    const current = this.#current;
    if (this.#watchdog !== undefined || current === undefined) return;
    const wait = current.started + this.#runTimeoutMs - performance.now();
    this.#watchdog = setTimeout(() => {
      this.#watchdog = undefined;
      const running = this.#current;
      if (running === undefined) return;
      if (performance.now() - running.started >= this.#runTimeoutMs) {
        running.fail(new Error(`The run did not end within ${this.#runTimeoutMs} ms`));
      } else {
        this.#armWatchdog();
      }
    }, Math.max(0, wait));
    // Left armed after the last run: it must not keep the process alive by itself.
    (this.#watchdog as { unref?: () => void }).unref?.();
  }

  /** Stops reopening and releases the current session. */
  async release(): Promise<void> {
    if (this.#released) return;
    this.#released = true;
    this.#wake?.();
    clearTimeout(this.#watchdog);
    this.#watchdog = undefined;
    await this.#restarting;
    const session = this.#session;
    this.#session = undefined;
    await session?.release();
  }

  /** The error a run gets now: `undefined` while the session is ready. */
  refusal(): ModelBusyError | undefined {
    return this.#state === "ready" && this.#session !== undefined ? undefined : this.#unavailable();
  }

  #unavailable(): ModelBusyError {
    const message = this.#state === "failed"
      ? `The model session could not be recreated (${messageOf(this.#lastError)})`
      : "The model session is being recreated after a failed run";
    return new ModelBusyError("model_unavailable", message, { cause: this.#lastError });
  }

  /** Counts a failure of `session`, then reopens (or gives up). */
  #fail(error: unknown, session: S): void {
    this.#session = undefined;
    this.#lastError = error;
    this.#consecutive++;
    this.#emit({ kind: "failed", error, consecutive: this.#consecutive });
    this.#state = "restarting";
    this.#restarting = this.#reopen(session);
  }

  async #reopen(broken: S): Promise<void> {
    await releaseWithin(broken, RELEASE_TIMEOUT_MS);
    while (!this.#released) {
      if (this.#consecutive >= this.#maxAttempts) {
        this.#state = "failed";
        this.#emit({ kind: "gave_up", error: this.#lastError, failures: this.#consecutive });
        return;
      }
      await this.#pause(
        Math.min(MAX_BACKOFF_MS, this.#backoffMs * 2 ** Math.max(0, this.#consecutive - 1)),
      );
      if (this.#released) return;
      try {
        const session = await this.#open();
        if (this.#released) {
          await session.release();
          return;
        }
        this.#session = session;
        this.#restarts++;
        this.#state = "ready";
        this.#emit({ kind: "restarted", restarts: this.#restarts });
        return;
      } catch (error) {
        this.#lastError = error;
        this.#consecutive++;
        this.#emit({ kind: "failed", error, consecutive: this.#consecutive });
      }
    }
  }

  async #pause(ms: number): Promise<void> {
    const { promise, resolve } = deferred<void>();
    const timer = setTimeout(resolve, ms);
    this.#wake = resolve;
    await promise;
    clearTimeout(timer);
    this.#wake = undefined;
  }

  #emit(event: HealthEvent): void {
    for (const listener of this.#listeners) listener(event);
  }
}

/** Releases `session`, giving up after `ms` (a broken session may never answer). */
async function releaseWithin(session: OrtSession, ms: number): Promise<void> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  await Promise.race([
    session.release().catch(() => {}),
    new Promise<void>((resolve) => (timer = setTimeout(resolve, ms))),
  ]);
  clearTimeout(timer);
}
