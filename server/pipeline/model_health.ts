/**
 * Follows the model session's health for the server: readiness is 503 while the session is
 * recreated, a burst of failures is logged as two lines (when it begins and ends) whatever it
 * refused, and `onGaveUp` is called when the session cannot be recreated.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { watchModelHealth } from "./model_health.ts";
 * import { Readiness } from "./readiness.ts";
 * import type { HealthEvent } from "../../core/runtime/mod.ts";
 * const listeners: ((event: HealthEvent) => void)[] = [];
 * const emit = (event: HealthEvent) => listeners.forEach((listener) => listener(event));
 * const session = {
 *   restarts: 0,
 *   onHealth: (listener: (event: HealthEvent) => void) => (listeners.push(listener), () => {}),
 * };
 * const readiness = new Readiness();
 * const lines: string[] = [];
 * const health = watchModelHealth(session, { readiness, log: (line) => lines.push(line) });
 * emit({ kind: "failed", error: new Error("out of memory"), consecutive: 1 });
 * health.refused();
 * health.refused();
 * assert.equal(readiness.ready, false);
 * session.restarts = 1;
 * emit({ kind: "restarted", restarts: 1 });
 * emit({ kind: "healthy", failures: 1 });
 * assert.equal(readiness.ready, true);
 * assert.deepEqual(lines, [
 *   "petri-serve: a model run failed (out of memory); answering 503 and recreating the model session",
 *   "petri-serve: the model recovered after 1 failure and 1 restart; 2 requests were answered 503 meanwhile",
 * ]);
 * ```
 *
 * @module
 */

import type { ModelSession } from "../../core/runtime/mod.ts";
import type { Readiness } from "./readiness.ts";

/** What {@link watchModelHealth} acts on. */
export interface ModelHealthOptions {
  /** Turned not ready while the session is being recreated. */
  readonly readiness: Readiness;
  /** Where the burst's lines go (e.g. `console.error`). */
  readonly log: (line: string) => void;
  /** Called once when the session cannot be recreated. */
  readonly onGaveUp?: (() => void) | undefined;
}

/** The part of `core/runtime/`'s `ModelSession` that is watched. */
export type HealthSource = Pick<ModelSession, "restarts" | "onHealth">;

/** The watcher's counter of requests refused during a burst. */
export interface ModelHealth {
  /** Counts one request answered 503 because the model was unavailable. */
  refused(): void;
}

/** Watches a model session's health (see the module doc). */
export function watchModelHealth(source: HealthSource, options: ModelHealthOptions): ModelHealth {
  const { readiness, log } = options;
  let inBurst = false;
  let refused = 0;
  let restartsBefore = 0;
  source.onHealth((event) => {
    switch (event.kind) {
      case "failed":
        readiness.modelAvailable(false);
        if (inBurst) return;
        inBurst = true;
        refused = 0;
        restartsBefore = source.restarts;
        log(
          `petri-serve: a model run failed (${summary(event.error)}); answering 503 and ` +
            `recreating the model session`,
        );
        return;
      case "restarted":
        readiness.modelAvailable(true);
        return;
      case "healthy":
        inBurst = false;
        log(
          `petri-serve: the model recovered after ${count(event.failures, "failure")} and ` +
            `${count(source.restarts - restartsBefore, "restart")}; ` +
            `${count(refused, "request")} ${refused === 1 ? "was" : "were"} answered 503 meanwhile`,
        );
        return;
      case "gave_up":
        readiness.modelAvailable(false);
        log(
          `petri-serve: the model session could not be recreated after ` +
            `${count(event.failures, "failure")} in a row (${summary(event.error)}); ` +
            `${count(refused, "request")} ${refused === 1 ? "was" : "were"} answered 503; stopping`,
        );
        options.onGaveUp?.();
        return;
    }
  });
  return {
    refused() {
      if (inBurst) refused++;
    },
  };
}

/** The first line of an error's message, at most 300 characters: never a stack trace. */
function summary(error: unknown): string {
  const text = error instanceof Error ? error.message : String(error);
  const line = text.split("\n", 1)[0]!;
  return line.length > 300 ? `${line.slice(0, 300)}…` : line;
}

function count(n: number, noun: string): string {
  return `${n} ${noun}${n === 1 ? "" : "s"}`;
}
