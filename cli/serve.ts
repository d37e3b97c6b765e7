/**
 * `cli.ts serve [BUNDLE] [--host 127.0.0.1] [--port 8000] [--max-body-bytes N]
 * [--max-batch-rows N] [--max-queue-delay-ms MS] [--drain-ms MS] [--lame-duck-ms MS]
 * [--max-body-memory-bytes N]
 * [--max-queue-rows N] [--queue-timeout-ms MS] [--runtime wasm|native] [--threads N] …`:
 * serves one bundle (default: the embedded example) over HTTP with the six endpoints, `/docs`,
 * `/openapi.json` and the playground at `/playground`. The model runs in a worker (on
 * onnxruntime-web's WASM, or onnxruntime-node with `--runtime native`), so requests that arrive
 * during a run share the next one. Prints one line with the URL, and on SIGINT or SIGTERM
 * finishes in-flight requests and exits 0; exits 1 when the model's session cannot be recreated
 * after failed runs.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { serveCommand } from "./serve.ts";
 * assert.equal(serveCommand.name, "serve");
 * ```
 *
 * @module
 */

import { terminalText } from "./terminal_text.ts";
import { PACKAGE_VERSION } from "../core/bundle/mod.ts";
import {
  bundleLocation,
  EXAMPLE_BUNDLE_URL,
  readBundleFiles,
  resolveBundlePath,
} from "../adapter/deno/bundle_files.ts";
import { openBundle } from "../core/pt/mod.ts";
import { DEFAULT_DRAIN_MS, listen } from "../adapter/deno/listen.ts";
import { openFileLimitWarning, readOpenFileLimit } from "../adapter/deno/open_file_limit.ts";
import { PLAYGROUND_PREFIX, playgroundHandler } from "../adapter/deno/serve_static.ts";
import { createApp, DEFAULT_BODY_TIMEOUT_MS, DEFAULT_MAX_BODY_BYTES } from "../server/mod.ts";
import {
  DEFAULT_MAX_BODY_MEMORY_BYTES,
  DEFAULT_QUEUE_TIMEOUT_MS,
  defaultMaxQueueRows,
} from "../server/pipeline/mod.ts";
import { Readiness } from "../server/pipeline/mod.ts";
import {
  DEFAULT_LOG_READ_AHEAD_BYTES,
  DEFAULT_MAX_CONCURRENT_LOGS,
} from "../server/log_scoring/mod.ts";
import { checkOrigins } from "../server/http/mod.ts";
import { processMetrics } from "../adapter/deno/process_metrics.ts";
import { loadPackages } from "../server/pipeline/mod.ts";
import { AccessLog } from "../server/metrics/mod.ts";
import { parseArgs, UsageError } from "./args.ts";
import { type CliIo, type Command, InputError } from "./command.ts";
import { readRuntime, RUNTIME_OPTIONS, runtimeHelp, runtimeLoaders } from "./runtime_flags.ts";
import { DEFAULT_MAX_BATCH_ROWS, type OrtModule } from "../core/runtime/mod.ts";
import { MAX_SEARCH_ROWS } from "../core/ops/mod.ts";
import {
  DEFAULT_MAX_REQUEST_ROWS,
  DEFAULT_MAX_TRACE_EVENTS,
  MIN_DEFAULT_MAX_RESPONSE_BYTES,
} from "../server/pipeline/mod.ts";

const OPTIONS = {
  host: { type: "string" },
  port: { type: "string", short: "p" },
  "max-body-bytes": { type: "string" },
  "access-log": { type: "string" },
  "max-batch-rows": { type: "string" },
  "max-queue-delay-ms": { type: "string" },
  "ort-in-process": { type: "boolean" },
  "drain-ms": { type: "string" },
  "lame-duck-ms": { type: "string" },
  "body-timeout-ms": { type: "string" },
  "max-trace-events": { type: "string" },
  "max-request-rows": { type: "string" },
  "max-response-bytes": { type: "string" },
  "cors-origin": { type: "string", multiple: true },
  "allowed-host": { type: "string", multiple: true },
  "max-body-memory-bytes": { type: "string" },
  "max-queue-rows": { type: "string" },
  "queue-timeout-ms": { type: "string" },
  "max-concurrent-logs": { type: "string" },
  "max-log-read-ahead-bytes": { type: "string" },
  ...RUNTIME_OPTIONS,
} as const;

const EXAMPLE_QUEUE_ROWS = defaultMaxQueueRows(3, 2);

const HELP = `Usage: cli.ts serve [BUNDLE] [--host 127.0.0.1] [--port 8000] [--max-body-bytes N]
                    [--max-batch-rows N] [--max-queue-delay-ms MS] [--ort-in-process]
                    [--access-log on|off] [--drain-ms MS] [--lame-duck-ms MS]
                    [--body-timeout-ms MS]
                    [--max-trace-events N] [--max-request-rows N] [--max-response-bytes N]
                    [--max-body-memory-bytes N] [--max-queue-rows N] [--queue-timeout-ms MS]
                    [--cors-origin ORIGIN]... [--allowed-host HOST]...
                    [--max-concurrent-logs N] [--max-log-read-ahead-bytes N]
                    [--runtime wasm|native] [--threads N]

Serves one model over HTTP: GET /healthz, GET /schema, POST /forward, /anomaly,
/counterfactual and /sensitivity, POST /batch (a whole event log, scored as batch does and
streamed back), the API explorer at /docs and /redoc (OpenAPI at /openapi.json), the
playground at /playground (it opens this model), GET /readyz, GET /metrics (Prometheus) and
the Open Inference Protocol v2 under /v2. On SIGINT or SIGTERM it drains: /readyz answers
503, the listening socket closes (new connections are refused, which a proxy in front retries
on another replica), requests on open connections are answered with Connection: close, logs
being scored stream on to their end, and it exits 0 once no connection is left (at most
--drain-ms, which ends the logs still streaming with their final record).

Arguments:
  BUNDLE                a .onnx file with its .onnx.meta.json beside it, a PETRA .pt file with
                        its .pt.meta.json beside it, a directory holding one bundle of either
                        kind, a model description MODEL.json (compiled in memory), or an
                        http(s) URL of a bundle file (the sidecar's URL adds .meta.json)
                        (default: the embedded credit_approval_coloured example)

Options:
  --host HOST           address to bind (default 127.0.0.1; 0.0.0.0 for every interface)
  -p, --port PORT       port (default 8000; 0 picks a free one)
  --max-body-bytes N    largest request body accepted, larger ones get 413 (default ${DEFAULT_MAX_BODY_BYTES})
  --body-timeout-ms MS  time a request body may take to arrive once the server starts reading
                        it; a slower one is answered 408 and its connection is closed
                        (default ${DEFAULT_BODY_TIMEOUT_MS})
  --max-batch-rows N    most rows one model run takes from the queue (default ${DEFAULT_MAX_BATCH_ROWS}); a
                        larger request still runs whole
  --max-queue-delay-ms MS
                        how long a queued request may wait for more rows before a run starts
                        (default 0: run as soon as the model is free)
  --ort-in-process      run the model on the thread that serves HTTP instead of in a worker:
                        lower latency for lone requests on a small or busy machine, but runs
                        block the server, so concurrent requests rarely share one
  --access-log on|off   one line per request on stdout: time, method, path, status, duration,
                        rows (default on; buffered, flushed every 250 ms and at shutdown)
  --lame-duck-ms MS     how long new connections are still served after SIGINT or SIGTERM
                        before the listening socket closes (default 0: at once, for a proxy in
                        front; Kubernetes without a preStop pause: 5000, see
                        docs/deployment.md)
  --drain-ms MS         the drain's deadline after SIGINT or SIGTERM: then what is still in
                        flight is answered 503 and the connections close (default ${DEFAULT_DRAIN_MS}; keep it
                        under the orchestrator's grace period, e.g. Kubernetes' 30 s)
  --max-trace-events N  most events in one /anomaly trace, more get 413 (default
                        ${DEFAULT_MAX_TRACE_EVENTS}: more than a 1 MiB body can hold)
  --max-request-rows N  most model rows one request runs, more get 413: the rows of a /v2 infer
                        (default ${DEFAULT_MAX_REQUEST_ROWS}, as many as a 1 MiB body can hold; at least
                        ${MAX_SEARCH_ROWS}, the most a /counterfactual search runs)
  --max-response-bytes N
                        largest /v2 infer answer, estimated before the run at 26 bytes per number;
                        larger ones get 413 (default ${MIN_DEFAULT_MAX_RESPONSE_BYTES} bytes, more on a net with
                        many more transitions than places: enough for any infer within 1 MiB)
  --cors-origin ORIGIN  let pages from ORIGIN (scheme://host[:port]) call the API from the
                        browser (CORS); repeat it for more origins, or give * for any
                        (default: none, no CORS headers)
  --allowed-host HOST   a host name the server answers for (the Host header without its port);
                        other Host headers get 421; repeat it for more, or give * for any
                        (default: localhost, 127.0.0.1 and [::1] when --host is a loopback
                        address, so that no other site reaches it by DNS rebinding; any host
                        otherwise)
  --max-body-memory-bytes N
                        bytes of request bodies and large answers the model routes hold at once;
                        a request that would pass it waits, its body unread, for room until its
                        deadline (--queue-timeout-ms), then gets 503 with Retry-After (default
                        ${DEFAULT_MAX_BODY_MEMORY_BYTES}, 16 MiB; one request is always admitted)
  --max-queue-rows N    most rows waiting for the model; while it is full, new requests wait as
                        above (default: as many as fit in 128 MiB for the net, ${EXAMPLE_QUEUE_ROWS}
                        for 3 places and 2 transitions; an empty queue takes any request)
  --queue-timeout-ms MS how long a request may wait for room, and then its rows for the model
                        (a deadline for all its runs, from its body's arrival), before it gets
                        503 with Retry-After (default ${DEFAULT_QUEUE_TIMEOUT_MS})
  --max-concurrent-logs N
                        logs POST /batch scores at once; more get 503 with Retry-After
                        (default ${DEFAULT_MAX_CONCURRENT_LOGS}); a log's body may take any time, but no more
                        than --body-timeout-ms between two of its chunks
  --max-log-read-ahead-bytes N
                        bytes of a log's body read ahead while its answer waits for a client
                        that sends the whole log before it reads (Python's requests, most
                        HTTP libraries, nginx); past it the log is cut with a final record
                        (default ${DEFAULT_LOG_READ_AHEAD_BYTES}, 64 MiB)
${runtimeHelp(24)}
  -h, --help            show this help

If a model run fails, its requests get 503, the model session is recreated (/readyz answers
503 meanwhile) and one line is logged per burst of failures; if it cannot be recreated after 5
tries in a row, serve stops and exits 1 so that a supervisor can replace the process.
`;

/**
 * The `serve` subcommand.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { serveCommand } from "./serve.ts";
 * assert.match(serveCommand.help, /--port/);
 * ```
 */
/** How {@link serveCommandWith} gets its ORT module: in this thread, or in a worker. */
export interface OrtLoaders {
  /** For `--ort-in-process`. */
  readonly loadOrt: () => Promise<OrtModule>;
  /** The default: sessions in a worker. */
  readonly loadWorkerOrt: () => Promise<OrtModule>;
}

/** The `serve` command, whose `run` also takes where its ORT module comes from. */
export interface ServeCommand extends Command {
  /** Runs `serve` with `args`; `loaders` default to those of `--runtime` and `--threads`. */
  run(args: readonly string[], io: CliIo, loaders?: OrtLoaders): Promise<number>;
}

/**
 * The `serve` subcommand.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { serveCommand } from "./serve.ts";
 * assert.match(serveCommand.help, /--port/);
 * ```
 */
export const serveCommand: ServeCommand = {
  name: "serve",
  summary: "serve a bundle over HTTP (six endpoints, /docs, /playground)",
  help: HELP,
  async run(args, io, given) {
    const { flags, positionals } = parseArgs(args, OPTIONS);
    const runtime = readRuntime(flags);
    const loaders = given ?? runtimeLoaders("serve", runtime);
    if (positionals.length > 1) {
      throw new UsageError(`serve takes at most one BUNDLE argument, got ${positionals.length}`);
    }
    const port = integerFlag("--port", flags.port ?? "8000", 0, 65535);
    const maxBodyBytes = integerFlag(
      "--max-body-bytes",
      flags["max-body-bytes"] ?? String(DEFAULT_MAX_BODY_BYTES),
      1,
      Number.MAX_SAFE_INTEGER,
    );
    const maxBatchRows = integerFlag(
      "--max-batch-rows",
      flags["max-batch-rows"] ?? String(DEFAULT_MAX_BATCH_ROWS),
      1,
      1 << 20,
    );
    const maxQueueDelayMs = integerFlag(
      "--max-queue-delay-ms",
      flags["max-queue-delay-ms"] ?? "0",
      0,
      60_000,
    );
    const drainMs = integerFlag(
      "--drain-ms",
      flags["drain-ms"] ?? String(DEFAULT_DRAIN_MS),
      0,
      3_600_000,
    );
    const lameDuckMs = integerFlag(
      "--lame-duck-ms",
      flags["lame-duck-ms"] ?? "0",
      0,
      3_600_000,
    );
    const bodyTimeoutMs = integerFlag(
      "--body-timeout-ms",
      flags["body-timeout-ms"] ?? String(DEFAULT_BODY_TIMEOUT_MS),
      1,
      3_600_000,
    );
    const limitFlag = (name: keyof typeof OPTIONS, min: number) => {
      const text = flags[name];
      return typeof text === "string"
        ? integerFlag(`--${name}`, text, min, Number.MAX_SAFE_INTEGER)
        : undefined;
    };
    const maxTraceEvents = limitFlag("max-trace-events", 1);
    const maxRequestRows = limitFlag("max-request-rows", MAX_SEARCH_ROWS);
    const maxResponseBytes = limitFlag("max-response-bytes", 1);
    const accessLogFlag = flags["access-log"] ?? "on";
    if (accessLogFlag !== "on" && accessLogFlag !== "off") {
      throw new UsageError(`--access-log must be on or off, got '${accessLogFlag}'`);
    }
    const corsOrigins = flags["cors-origin"] ?? [];
    try {
      checkOrigins(corsOrigins);
    } catch (error) {
      throw new UsageError(`--cors-origin: ${(error as Error).message}`);
    }
    const allowedHosts = allowedHostsFor(flags.host ?? "127.0.0.1", flags["allowed-host"]);
    const location = positionals[0] === undefined
      ? EXAMPLE_BUNDLE_URL
      : bundleLocation(positionals[0]);
    const path = typeof location === "string" ? await resolveBundlePath(location) : location;
    const maxBodyMemoryBytes = integerFlag(
      "--max-body-memory-bytes",
      flags["max-body-memory-bytes"] ?? String(DEFAULT_MAX_BODY_MEMORY_BYTES),
      1,
      Number.MAX_SAFE_INTEGER,
    );
    const maxQueueRows = flags["max-queue-rows"] === undefined
      ? undefined
      : integerFlag("--max-queue-rows", flags["max-queue-rows"], 1, Number.MAX_SAFE_INTEGER);
    const queueTimeoutMs = integerFlag(
      "--queue-timeout-ms",
      flags["queue-timeout-ms"] ?? String(DEFAULT_QUEUE_TIMEOUT_MS),
      1,
      3_600_000,
    );
    const maxConcurrentLogs = integerFlag(
      "--max-concurrent-logs",
      flags["max-concurrent-logs"] ?? String(DEFAULT_MAX_CONCURRENT_LOGS),
      1,
      1024,
    );
    const logReadAheadBytes = integerFlag(
      "--max-log-read-ahead-bytes",
      flags["max-log-read-ahead-bytes"] ?? String(DEFAULT_LOG_READ_AHEAD_BYTES),
      1,
      Number.MAX_SAFE_INTEGER,
    );
    const inProcess = flags["ort-in-process"] === true;
    const ort = inProcess ? await loaders.loadOrt() : await loaders.loadWorkerOrt();
    // Beside the worker, a session on this thread takes small runs of a lone client (no hop).
    const inPlace = inProcess ? undefined : await loaders.loadOrt();
    // The HTTP face's packages load while the model compiles (in the worker, on another core);
    // createApp awaits them (the import is cached) and reports a missing package itself.
    loadPackages().catch(() => {});
    // The files stay for the playground, which opens the model being served.
    const files = await readBundleFiles(path);
    const model = await openBundle(ort, files, { maxBatchRows, maxQueueDelayMs, inPlace });
    // At exit, a run cut off by the drain's deadline is not waited for beyond a moment.
    await using _model = releasedWithin(model, RELEASE_WAIT_MS);
    const readiness = new Readiness();
    let modelFailed = false;
    const accessLog = accessLogFlag === "on" ? new AccessLog((text) => io.out(text)) : undefined;
    const { name } = model;
    const description = model.sidecar.scenario_description;
    const app = await createApp(model, {
      title: name,
      version: PACKAGE_VERSION,
      ...(description ? { description } : {}),
      maxBodyBytes,
      maxTraceEvents,
      maxRequestRows,
      maxResponseBytes,
      bodyTimeoutMs,
      maxBodyMemoryBytes,
      maxQueueRows,
      queueTimeoutMs,
      maxConcurrentLogs,
      logReadAheadBytes,
      readiness,
      log: (line) => io.err(line),
      onModelFailed() {
        modelFailed = true;
        running.stop();
      },
      mount: [PLAYGROUND_PREFIX, playgroundHandler(undefined, { model: files })],
      corsOrigins,
      allowedHosts,
      extraMetrics: processMetrics,
      ...(accessLog ? { onRequest: (record) => accessLog.record(record) } : {}),
    });
    const hostname = flags.host ?? "127.0.0.1";
    const running = listenOn(hostname, port, () =>
      listen(app, {
        hostname,
        port,
        drainMs,
        lameDuckMs,
        // deno.json turns no-legacy-abort on: a hang-up withdraws its rows.
        hangUpSignal: true,
        onDrain: () => {
          readiness.drain();
          io.err(
            `draining (at most ${drainMs} ms): /readyz answers 503, ` +
              (lameDuckMs > 0
                ? `new connections are served for ${lameDuckMs} ms more, `
                : "new connections are refused, ") +
              "requests on open connections finish",
          );
        },
        onDeadline: () => readiness.cutOff(),
        log: (line) => io.err(line),
      }));
    io.err(`serving ${terminalText(name)} on ${running.url} (docs: ${running.url}/docs)`);
    const openFiles = await readOpenFileLimit();
    const lowOpenFiles = openFiles && openFileLimitWarning(openFiles);
    if (lowOpenFiles) io.err(lowOpenFiles);
    await running.finished;
    accessLog?.close();
    io.err("stopped");
    return modelFailed ? 1 : 0;
  },
};

/**
 * The `serve` subcommand with its ORT module taken from `loaders`: the seam through which tests
 * run a real server on an ORT that fails on demand.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { serveCommandWith } from "./serve.ts";
 * import { loadOrt } from "../adapter/deno/ort.ts";
 * const command = serveCommandWith({ loadOrt, loadWorkerOrt: loadOrt });
 * assert.equal(command.name, "serve");
 * ```
 */
export function serveCommandWith(loaders: OrtLoaders): Command {
  return { ...serveCommand, run: (args, io) => serveCommand.run(args, io, loaders) };
}

/** How long exiting waits for the model's last run and its release, in ms. */
const RELEASE_WAIT_MS = 1_000;

/** Disposes of `resource` when disposed itself, waiting `ms` at most. */
function releasedWithin(resource: AsyncDisposable, ms: number): AsyncDisposable {
  return {
    async [Symbol.asyncDispose]() {
      let timer: ReturnType<typeof setTimeout> | undefined;
      await Promise.race([
        resource[Symbol.asyncDispose](),
        new Promise((resolve) => (timer = setTimeout(resolve, ms))),
      ]);
      clearTimeout(timer);
    },
  };
}

/**
 * `open()`'s listener; the errors of opening it, which name no address, become one line that
 * does (exit 2).
 */
function listenOn<T>(hostname: string, port: number, open: () => T): T {
  try {
    return open();
  } catch (error) {
    const address = `${hostname.includes(":") ? `[${hostname}]` : hostname}:${port}`;
    if (error instanceof Deno.errors.AddrInUse) {
      throw new InputError(
        `cannot listen on ${address}: the address is already in use (another server has it; ` +
          "pick another --port, or --port 0 for a free one)",
      );
    }
    if (error instanceof Deno.errors.AddrNotAvailable) {
      throw new InputError(`cannot listen on ${address}: --host is not an address of this machine`);
    }
    if (error instanceof Deno.errors.PermissionDenied) {
      throw new InputError(
        `cannot listen on ${address}: permission denied (ports below 1024 need privileges)`,
      );
    }
    if (error instanceof Deno.errors.NotCapable) {
      throw new InputError(
        `cannot listen on ${address}: no net permission (run deno with --allow-net)`,
      );
    }
    const message = error instanceof Error ? error.message : String(error);
    if (/lookup address/i.test(message)) {
      throw new InputError(`cannot listen on ${address}: --host '${hostname}' is not a known host`);
    }
    throw error;
  }
}

function integerFlag(flag: string, text: string, min: number, max: number): number {
  const value = Number(text);
  if (!/^\d+$/.test(text) || value < min || value > max) {
    throw new UsageError(`${flag} must be an integer from ${min} to ${max}, got '${text}'`);
  }
  return value;
}

/** Loopback addresses: a server bound to one answers only for local host names by default. */
const LOOPBACK = new Set(["127.0.0.1", "localhost", "::1", "[::1]"]);

/**
 * The host names `serve` answers for: `--allowed-host`'s, else the local names when bound to
 * loopback, else any (`undefined`).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { allowedHostsFor } from "./serve.ts";
 * assert.deepEqual(allowedHostsFor("127.0.0.1", undefined), ["localhost", "127.0.0.1", "[::1]"]);
 * assert.equal(allowedHostsFor("0.0.0.0", undefined), undefined);
 * assert.deepEqual(allowedHostsFor("0.0.0.0", ["api.example"]), ["api.example"]);
 * ```
 */
export function allowedHostsFor(
  host: string,
  given: readonly string[] | undefined,
): readonly string[] | undefined {
  if (given !== undefined && given.length > 0) {
    const bad = given.find((name) => name === "" || /[\s/?#@]/.test(name));
    if (bad !== undefined) {
      throw new UsageError(
        `--allowed-host takes a host name such as api.example, got ${JSON.stringify(bad)}`,
      );
    }
    return given;
  }
  return LOOPBACK.has(host) ? ["localhost", "127.0.0.1", "[::1]"] : undefined;
}
