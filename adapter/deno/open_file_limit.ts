/**
 * The open-file limit (`RLIMIT_NOFILE`), which bounds the connections a server holds at once,
 * and the start-up warning when it is low. Deno raises its soft limit to the hard one at start,
 * so the hard one counts. Read from `/proc/self/limits` only when read permission for it is
 * already granted (no prompt); unknown elsewhere.
 *
 * @module
 */

/** Soft and hard limits on open files; `Infinity` for unlimited. */
export interface OpenFileLimit {
  readonly soft: number;
  readonly hard: number;
}

/** Below this many open files the server warns at start-up (it holds about 30 itself). */
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

/** This process's open-file limit, or `undefined` when it cannot be read without a prompt. */
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
 * One line warning that `limit` is below `low` and how to raise it, or `undefined`.
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
