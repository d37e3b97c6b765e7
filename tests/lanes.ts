/**
 * The test run of `deno task test`: the doc tests and the suites of `tests/` in lanes side by
 * side, so both cores work and no suite waits on one it does not need. The browser suites run
 * one at a time in a lane of their own (two Chromium-heavy suites at once time out); the doc
 * tests, then the suites driven by load (floods, drains, descriptor exhaustion, memory peaks)
 * one at a time, in another; the rest with `deno test --parallel`. The test modules are
 * type-checked once, beside the doc tests, and the suites run with `--no-check`. One JUnit
 * report is merged from the lanes' (`--junit-path=FILE`, which `.ci/run` appends); it holds the
 * suites of `tests/`, as one `deno test tests/` wrote it. Other arguments go to every
 * `deno test` of `tests/`.
 *
 * @example
 * ```ts
 * import { mergeJunit } from "./lanes.ts";
 * const one = '<testsuites name="deno test" tests="2" failures="0" errors="0" time="1.0">\n' +
 *   '<testsuite name="./a_test.ts"></testsuite>\n</testsuites>\n';
 * mergeJunit([one, one], 3).includes('tests="4"'); // true
 * ```
 *
 * @module
 */

/** The browser suites: Chromium driven by Playwright. */
export const BROWSER_SUITES: readonly string[] = [
  "tests/consumers/browser_consumer_test.ts",
  "tests/cli/serve/cors_browser_test.ts",
  "tests/cli/serve/docs_browser_test.ts",
  "tests/cli/serve/redoc_browser_test.ts",
  "tests/web/accessibility_test.ts",
  "tests/web/hostile_browser_test.ts",
  "tests/web/large_nets_test.ts",
  "tests/web/log_scoring_test.ts",
  "tests/web/net_view_test.ts",
  "tests/web/playground_test.ts",
];

/** The suites driven by load, or by deadlines that a starved process would miss. */
export const LOAD_SUITES: readonly string[] = [
  "tests/adapter/deno/reopening_server_test.ts",
  "tests/cli/batch/decompression_test.ts",
  "tests/cli/serve/descriptors_test.ts",
  "tests/cli/serve/drain_deadline_test.ts",
  "tests/cli/serve/drain_test.ts",
  "tests/cli/serve/flood_test.ts",
  "tests/cli/serve/restart_behind_nginx_test.ts",
  "tests/cli/serve/slow_body_test.ts",
];

/** The variables `deno task test` sets for the suites of `tests/`. */
const SANITIZERS = ["DENO_TEST_SANITIZE_OPS", "DENO_TEST_SANITIZE_RESOURCES"];

/** One `deno` command of a lane. */
export interface Step {
  readonly args: readonly string[];
  /** Whether it writes a JUnit report of `tests/` (the doc tests' is not part of it). */
  readonly junit: boolean;
  /** Environment variables it runs without. */
  readonly unset?: readonly string[];
}

/** Commands run one after another; lanes run side by side. */
export interface Lane {
  readonly name: string;
  readonly steps: readonly Step[];
}

/**
 * The lanes, given the arguments meant for `deno test` (already type-checked: `--no-check`).
 *
 * @example
 * ```ts
 * import { lanes } from "./lanes.ts";
 * lanes([]).map((lane) => lane.name); // ["main", "browser", "load"]
 * ```
 */
export function lanes(testArgs: readonly string[]): Lane[] {
  const test = ["test", "-A", "--no-check", ...testArgs];
  return [
    {
      name: "main",
      steps: [{
        args: [
          ...test,
          "--parallel",
          `--ignore=${[...BROWSER_SUITES, ...LOAD_SUITES].join(",")}`,
          "tests/",
        ],
        junit: true,
      }],
    },
    { name: "browser", steps: [{ args: [...test, ...BROWSER_SUITES], junit: true }] },
    {
      name: "load",
      steps: [
        // As `deno task test:doc` runs alone: without the sanitizer variables of `tests/`.
        { args: ["task", "test:doc", "--parallel"], junit: false, unset: SANITIZERS },
        { args: [...test, ...LOAD_SUITES], junit: true },
      ],
    },
  ];
}

const ROOT_TAG = /<testsuites\b([^>]*?)(\/?)>/;

/** The number of an attribute of the `<testsuites>` tag, 0 when it is absent. */
function attribute(tag: string, name: string): number {
  const match = new RegExp(`\\b${name}="([^"]*)"`).exec(tag);
  return match ? Number(match[1]) : 0;
}

/**
 * One JUnit report holding the suites of `reports` (as `deno test` writes them), their
 * counts summed; `seconds` is the run's time.
 *
 * @example
 * ```ts
 * import { mergeJunit } from "./lanes.ts";
 * mergeJunit([], 0); // a report with no suite, tests="0"
 * ```
 */
export function mergeJunit(reports: readonly string[], seconds: number): string {
  const totals = { tests: 0, failures: 0, errors: 0 };
  const bodies: string[] = [];
  for (const [i, report] of reports.entries()) {
    const match = ROOT_TAG.exec(report);
    if (match === null) throw new Error(`JUnit report ${i} has no <testsuites> element`);
    for (const name of ["tests", "failures", "errors"] as const) {
      totals[name] += attribute(match[1]!, name);
    }
    if (match[2] === "/") continue;
    const start = match.index + match[0].length;
    const end = report.lastIndexOf("</testsuites>");
    if (end < start) throw new Error(`JUnit report ${i} does not close <testsuites>`);
    bodies.push(report.slice(start, end).replace(/^\n+|\s+$/g, ""));
  }
  const { tests, failures, errors } = totals;
  return '<?xml version="1.0" encoding="UTF-8"?>\n' +
    `<testsuites name="deno test" tests="${tests}" failures="${failures}" errors="${errors}" ` +
    `time="${seconds.toFixed(3)}">\n${bodies.map((body) => `${body}\n`).join("")}</testsuites>\n`;
}

const ROOT = new URL("../", import.meta.url);
/**
 * V8 compiles WASM with its baseline compiler only, in the tests and every `deno` they start
 * (which inherit the variable): ONNX Runtime's WASM is compiled in each process, and the
 * optimising tier's background compiles cost more CPU than the tests' short runs gain.
 */
const V8_FLAGS = "--liftoff-only";
const encoder = new TextEncoder();

/** Copies `stream` to stdout line by line, each line led by `prefix`. */
async function copyLines(stream: ReadableStream<Uint8Array>, prefix: string): Promise<void> {
  const decoder = new TextDecoder();
  let rest = "";
  for await (const bytes of stream) {
    const lines = (rest + decoder.decode(bytes, { stream: true })).split("\n");
    rest = lines.pop()!;
    if (lines.length > 0) {
      await Deno.stdout.write(encoder.encode(lines.map((l) => `${prefix}${l}\n`).join("")));
    }
  }
  if (rest !== "") await Deno.stdout.write(encoder.encode(`${prefix}${rest}\n`));
}

/** Runs `deno ...args` in the repository root, its output prefixed; its exit code. */
async function run(
  args: readonly string[],
  prefix: string,
  unset: readonly string[] = [],
): Promise<number> {
  const env = Deno.env.toObject();
  for (const name of unset) delete env[name];
  env.DENO_V8_FLAGS = env.DENO_V8_FLAGS ? `${env.DENO_V8_FLAGS},${V8_FLAGS}` : V8_FLAGS;
  const child = new Deno.Command(Deno.execPath(), {
    args: [...args],
    cwd: ROOT,
    clearEnv: true,
    env: { ...env, NO_COLOR: "1" },
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  await Promise.all([copyLines(child.stdout, prefix), copyLines(child.stderr, prefix)]);
  return (await child.status).code;
}

/** What a lane did: its name, whether every step passed, and how long it took. */
interface LaneResult {
  readonly name: string;
  readonly ok: boolean;
  readonly seconds: number;
}

/** Runs the steps of `lane`; those of `tests/` once `checked` says the type check passed. */
async function runLane(
  lane: Lane,
  width: number,
  junitDir: string,
  checked: Promise<boolean>,
): Promise<LaneResult> {
  const started = performance.now();
  const prefix = `${lane.name.padEnd(width)} | `;
  let ok = true;
  for (const [i, step] of lane.steps.entries()) {
    if (step.junit && !await checked) return { name: lane.name, ok: false, seconds: 0 };
    const junit = step.junit ? [`--junit-path=${junitDir}/${lane.name}-${i}.xml`] : [];
    // A failed step does not stop the lane: every suite runs and reports.
    ok = (await run([...step.args, ...junit], prefix, step.unset)) === 0 && ok;
  }
  return { name: lane.name, ok, seconds: (performance.now() - started) / 1000 };
}

/** Splits `--junit-path=FILE` (or `--junit-path FILE`) from the other arguments. */
function parseArgs(args: readonly string[]): { junitPath?: string; rest: string[] } {
  const rest: string[] = [];
  let junitPath: string | undefined;
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (arg.startsWith("--junit-path=")) junitPath = arg.slice("--junit-path=".length);
    else if (arg === "--junit-path") junitPath = args[++i];
    else rest.push(arg);
  }
  return junitPath === undefined ? { rest } : { junitPath, rest };
}

async function main(args: readonly string[]): Promise<number> {
  const { junitPath, rest } = parseArgs(args);
  const started = performance.now();
  // One type check of every test module, beside the doc tests; the suites then run with
  // --no-check.
  const checked = run(["test", "-A", "--no-run", ...rest, "tests/"], "check | ")
    .then((code) => code === 0);
  const all = lanes(rest);
  const width = Math.max(...all.map((lane) => lane.name.length));
  const junitDir = await Deno.makeTempDir({ prefix: "petri_lanes_" });
  try {
    const results = await Promise.all(all.map((lane) => runLane(lane, width, junitDir, checked)));
    if (!await checked) console.log("the test modules failed type checking: no suite ran");
    const seconds = (performance.now() - started) / 1000;
    for (const { name, ok, seconds } of results) {
      console.log(`lane ${name.padEnd(width)} ${ok ? "ok    " : "FAILED"} ${seconds.toFixed(0)} s`);
    }
    if (junitPath !== undefined) {
      const reports: string[] = [];
      for (
        const entry of [...Deno.readDirSync(junitDir)].sort((a, b) => a.name < b.name ? -1 : 1)
      ) {
        reports.push(await Deno.readTextFile(`${junitDir}/${entry.name}`));
      }
      // No report at all (no lane got to its tests) leaves no file: the run failed before.
      if (reports.length > 0) await Deno.writeTextFile(junitPath, mergeJunit(reports, seconds));
    }
    return results.every((result) => result.ok) ? 0 : 1;
  } finally {
    await Deno.remove(junitDir, { recursive: true });
  }
}

if (import.meta.main) Deno.exit(await main(Deno.args));
