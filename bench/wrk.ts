/**
 * Drives `wrk` (Debian's package, `/usr/bin/wrk`) with a generated Lua script that POSTs a list
 * of JSON bodies in turn and prints one JSON line of results, so the load generator is a native
 * client rather than a JavaScript one (Deno's `fetch` measured the client, not the server).
 *
 * @example
 * ```ts
 * import { runWrk } from "./wrk.ts";
 * const result = await runWrk("http://127.0.0.1:8000/forward", ['{"input_marking":{}}'], {
 *   connections: 16,
 *   seconds: 3,
 * });
 * result.requestsPerSecond;
 * ```
 *
 * @module
 */

/** What one `wrk` run measured. */
export interface WrkResult {
  /** Completed requests. */
  readonly requests: number;
  /** Requests per second over the run. */
  readonly requestsPerSecond: number;
  /** Median latency, ms. */
  readonly p50Ms: number;
  /** 99th-percentile latency, ms. */
  readonly p99Ms: number;
  /** Socket errors (connect, read, write, timeout). */
  readonly socketErrors: number;
  /** Answers with a status other than 2xx or 3xx. */
  readonly statusErrors: number;
}

/** Options of one run. */
export interface WrkOptions {
  /** Open connections (one `wrk` thread drives them all). */
  readonly connections: number;
  /** Duration in seconds. */
  readonly seconds: number;
  /** Extra request headers (e.g. `Accept-Encoding`). */
  readonly headers?: Readonly<Record<string, string>>;
  /**
   * A pause before each request of a connection, in ms (wrk's `delay()`): a steady rate of
   * about `connections × 1000 / (delayMs + latency)` requests a second instead of a flood.
   */
  readonly delayMs?: number;
}

/** The Lua script: `bodies` in turn as POST bodies; `done` prints the results as JSON. */
export function wrkScript(
  bodies: readonly string[],
  headers: Readonly<Record<string, string>> = {},
  delayMs?: number,
): string {
  const quoted = bodies.map((body) => {
    let level = 0;
    while (body.includes(`]${"=".repeat(level)}]`)) level++;
    const eq = "=".repeat(level);
    return `[${eq}[${body}]${eq}]`;
  });
  return `local bodies = { ${quoted.join(",\n")} }
local i = 0
wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"
${
    Object.entries(headers).map(([name, value]) =>
      `wrk.headers[${JSON.stringify(name)}] = ${JSON.stringify(value)}\n`
    ).join("")
  }${
    delayMs === undefined ? "" : `delay = function()\n  return ${delayMs}\nend\n`
  }request = function()
  i = i % #bodies + 1
  return wrk.format(nil, nil, nil, bodies[i])
end
done = function(summary, latency, requests)
  local e = summary.errors
  io.write(string.format(
    '{"requests":%d,"micros":%d,"socketErrors":%d,"statusErrors":%d,"p50":%d,"p99":%d}\\n',
    summary.requests, summary.duration, e.connect + e.read + e.write + e.timeout, e.status,
    latency:percentile(50), latency:percentile(99)))
end
`;
}

/**
 * Runs `wrk -t1 -cN -dS` against `url` with `bodies` and returns its figures.
 *
 * @throws {Error} when `wrk` fails or prints no result line.
 */
export async function runWrk(
  url: string,
  bodies: readonly string[],
  options: WrkOptions,
): Promise<WrkResult> {
  const script = await Deno.makeTempFile({ prefix: "petri_wrk_", suffix: ".lua" });
  try {
    await Deno.writeTextFile(script, wrkScript(bodies, options.headers, options.delayMs));
    const output = await new Deno.Command("wrk", {
      args: [
        "-t1",
        `-c${options.connections}`,
        `-d${options.seconds}s`,
        "--timeout",
        "10s",
        "-s",
        script,
        url,
      ],
      stdin: "null",
    }).output();
    const stdout = new TextDecoder().decode(output.stdout);
    const line = stdout.split("\n").find((l) => l.startsWith('{"requests"'));
    if (output.code !== 0 || line === undefined) {
      throw new Error(
        `wrk failed (exit ${output.code}): ${stdout}${new TextDecoder().decode(output.stderr)}`,
      );
    }
    const raw = JSON.parse(line);
    return {
      requests: raw.requests,
      requestsPerSecond: raw.requests / (raw.micros / 1e6),
      p50Ms: raw.p50 / 1000,
      p99Ms: raw.p99 / 1000,
      socketErrors: raw.socketErrors,
      statusErrors: raw.statusErrors,
    };
  } finally {
    await Deno.remove(script);
  }
}
