/**
 * The process's open-file limit (`RLIMIT_NOFILE`), which bounds how many connections a server
 * holds at once (each takes one descriptor), and the start-up warning when it is low.
 *
 * Deno raises its soft limit to the hard limit when it starts (checked on 2.9.6: started with
 * `prlimit --nofile=256:20000`, it reports 20000 for both), so the hard limit is the one that
 * counts. It is read from `/proc/self/limits` (Linux) and only when read permission for that
 * file is already granted: no prompt, no new permission; elsewhere it is unknown.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { openFileLimitWarning } from "./open_file_limit.ts";
 * assert.equal(openFileLimitWarning({ soft: 1_048_576, hard: 1_048_576 }), undefined);
 * assert.match(openFileLimitWarning({ soft: 1024, hard: 1024 })!, /limit is 1024/);
 * ```
 *
 * @module
 */

/** Soft and hard limits on open files; `Infinity` for unlimited. */
export interface OpenFileLimit {
  readonly soft: number;
  readonly hard: number;
}

/**
 * Below this many open files the server warns at start-up: fewer than about 4,000 connections
 * at once (the process itself holds about 30 descriptors).
 */
export const LOW_OPEN_FILE_LIMIT = 4096;

const LIMITS_FILE = "/proc/self/limits";

/**
 * The `Max open files` line of a `/proc/<pid>/limits` text, or `undefined` when it has none.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { parseOpenFileLimit } from "./open_file_limit.ts";
 * const text = "Limit                     Soft Limit           Hard Limit           Units\n" +
 *   "Max open files            1024                 524288               files\n";
 * assert.deepEqual(parseOpenFileLimit(text), { soft: 1024, hard: 524288 });
 * ```
 */
export function parseOpenFileLimit(text: string): OpenFileLimit | undefined {
  const match = /^Max open files\s+(\S+)\s+(\S+)/m.exec(text);
  if (match === null) return undefined;
  const soft = limitValue(match[1]!);
  const hard = limitValue(match[2]!);
  return soft === undefined || hard === undefined ? undefined : { soft, hard };
}

function limitValue(text: string): number | undefined {
  if (text === "unlimited") return Infinity;
  return /^\d+$/.test(text) ? Number(text) : undefined;
}

/**
 * This process's open-file limit, or `undefined` when it cannot be read without asking for a
 * permission (not Linux, or no read permission for `/proc/self/limits`).
 *
 * @example
 * ```ts
 * import { readOpenFileLimit } from "./open_file_limit.ts";
 * const limit = await readOpenFileLimit();
 * if (limit !== undefined) console.log(`up to ${limit.soft} open files`);
 * ```
 */
export async function readOpenFileLimit(): Promise<OpenFileLimit | undefined> {
  if (Deno.build.os !== "linux") return undefined;
  const permission = await Deno.permissions.query({ name: "read", path: LIMITS_FILE });
  if (permission.state !== "granted") return undefined;
  try {
    return parseOpenFileLimit(await Deno.readTextFile(LIMITS_FILE));
  } catch {
    return undefined;
  }
}

/**
 * One line warning that `limit` is low (below `low`, default {@link LOW_OPEN_FILE_LIMIT}) and
 * saying how to raise it, or `undefined` when it is not low.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { openFileLimitWarning } from "./open_file_limit.ts";
 * const line = openFileLimitWarning({ soft: 1024, hard: 1024 })!;
 * assert.match(line, /ulimit -n/);
 * assert.match(line, /LimitNOFILE/);
 * assert.match(line, /--ulimit nofile=/);
 * ```
 */
export function openFileLimitWarning(
  limit: OpenFileLimit,
  low: number = LOW_OPEN_FILE_LIMIT,
): string | undefined {
  // Deno has raised the soft limit to the hard one, unless something lowered it since.
  const effective = Math.min(limit.soft, limit.hard);
  if (effective >= low) return undefined;
  return `warning: the open-file limit is ${effective}, so at most about ${
    Math.max(0, effective - 30)
  } connections at once; beyond that new connections wait until some close. ` +
    `Raise the hard limit (Deno raises the soft one to it): ulimit -n 65536 in the shell that ` +
    `starts the server, LimitNOFILE=65536 in a systemd unit, docker run --ulimit ` +
    `nofile=65536:65536, or the container runtime's limit on Kubernetes ` +
    `(see Open files in docs/deployment.md)`;
}
