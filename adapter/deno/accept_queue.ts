/**
 * How many connections the kernel has queued on a listening socket, not yet accepted: Linux
 * shows it as the `rx_queue` of the socket's line in `/proc/net/tcp` (or `tcp6`). Closing a
 * listening socket resets those connections, requests and all, so `connection_server.ts` closes
 * its socket at a moment this is 0. Undefined where it cannot be read (another system, or no
 * read permission for the file): the caller then does without.
 *
 * @example
 * ```ts
 * import { acceptQueueLength } from "./accept_queue.ts";
 * const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
 * acceptQueueLength(listener.addr); // 0 on Linux, undefined elsewhere
 * listener.close();
 * ```
 *
 * @module
 */

/** The state column's value for a listening socket. */
const LISTEN = "0A";

/** Connections queued on the listening socket at `addr`; see the module doc. */
export function acceptQueueLength(addr: Deno.NetAddr): number | undefined {
  if (Deno.build.os !== "linux") return undefined;
  const ipv6 = addr.hostname.includes(":");
  const path = ipv6 ? "/proc/net/tcp6" : "/proc/net/tcp";
  // Asking first: a read without the permission would prompt on a terminal.
  if (Deno.permissions.querySync({ name: "read", path }).state !== "granted") return undefined;
  const local = `${addressHex(addr.hostname, ipv6)}:${hex(addr.port, 4)}`;
  let table: string;
  try {
    table = Deno.readTextFileSync(path);
  } catch {
    return undefined;
  }
  for (const line of table.split("\n")) {
    const [, address, , state, queues] = line.trim().split(/\s+/);
    if (address !== local || state !== LISTEN || queues === undefined) continue;
    // "tx_queue:rx_queue"; for a listening socket rx_queue is its accept queue's length.
    return parseInt(queues.slice(queues.indexOf(":") + 1), 16);
  }
  return undefined;
}

/** An address as the file writes it: each 32-bit word in the kernel's (little-endian) order. */
function addressHex(hostname: string, ipv6: boolean): string {
  const bytes = ipv6 ? ipv6Bytes(hostname) : hostname.split(".").map(Number);
  let text = "";
  for (let word = 0; word < bytes.length; word += 4) {
    for (let i = 3; i >= 0; i--) text += hex(bytes[word + i]!, 2);
  }
  return text;
}

function ipv6Bytes(hostname: string): number[] {
  const bare = hostname.replace(/^\[|\]$/g, "");
  const [head = "", tail] = bare.split("::");
  const groups = (part: string) => part === "" ? [] : part.split(":");
  const left = groups(head);
  const right = tail === undefined ? [] : groups(tail);
  const all = [...left, ...Array(8 - left.length - right.length).fill("0"), ...right];
  return all.flatMap((group) => {
    const value = parseInt(group, 16);
    return [value >> 8, value & 0xff];
  });
}

function hex(value: number, digits: number): string {
  return value.toString(16).toUpperCase().padStart(digits, "0");
}
