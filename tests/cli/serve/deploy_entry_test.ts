/**
 * What can be checked here of the Deno Deploy recipe in `docs/deployment.md`:
 *
 * - `deno.json`'s `deploy` section uploads every file `adapter/deno/main.ts` loads (its module graph
 *   and the example bundle it reads), and neither the tests, the benchmarks nor the CLI;
 * - the entry serves from a directory holding only those files, with every permission (as the
 *   platform runs it) and a deployment's environment, and with Deno's built-in OpenTelemetry on
 *   (as the platform has it) each request reaches a collector as a span;
 * - each `deno deploy` flag the page names is one `deno deploy … --help` lists. That needs the
 *   `@deno/deploy` package, which `deno deploy` fetches from JSR on first use: where JSR cannot
 *   be reached, that test is ignored (and says why).
 *
 * @module
 */

import assert from "node:assert/strict";
import { ROOT, startServerProcess } from "./server_process.ts";
import { moduleGraph, trackedFiles } from "../../module_graph.ts";

interface DeployConfig {
  readonly include: readonly string[];
  readonly exclude?: readonly string[];
}

const { deploy } = JSON.parse(await Deno.readTextFile(new URL("deno.json", ROOT))) as {
  deploy: DeployConfig;
};

/** Whether the repository-relative `path` is uploaded by `config`. */
function uploaded(config: DeployConfig, path: string): boolean {
  const matches = (pattern: string) =>
    pattern.endsWith("/") ? path.startsWith(pattern) : path === pattern;
  return config.include.some(matches) && !(config.exclude ?? []).some(matches);
}

/** Files read at run time rather than imported: the example bundle the entry serves. */
const READ_AT_RUN_TIME = [
  "examples/credit_approval_coloured/credit_approval_coloured.onnx",
  "examples/credit_approval_coloured/credit_approval_coloured.onnx.meta.json",
];

Deno.test("deno.json's deploy section uploads every file adapter/deno/main.ts loads, and no test, benchmark or CLI file", async () => {
  const needed = [...await moduleGraph(["adapter/deno/main.ts"]), ...READ_AT_RUN_TIME];
  assert.ok(needed.length > 50, `the entry's graph: ${needed.length} files`);
  for (const path of needed) assert.ok(uploaded(deploy, path), `${path} is not uploaded`);
  for (const path of ["tests/run_deno.ts", "bench/README.md", "cli.ts", "cli/serve.ts"]) {
    assert.ok(!uploaded(deploy, path), `${path} is uploaded`);
  }
});

Deno.test("adapter/deno/main.ts serves from the uploaded files alone, with all permissions, and its requests reach OpenTelemetry as spans", async () => {
  const dir = await Deno.makeTempDir({ prefix: "petri_serve_deploy_" });
  const spans: string[] = [];
  const collector = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, async (req) => {
    const body = new TextDecoder().decode(await req.arrayBuffer());
    if (new URL(req.url).pathname === "/v1/traces") spans.push(body);
    return new Response(null, { status: 200 });
  });
  try {
    const files = (await trackedFiles()).filter((path) => uploaded(deploy, path));
    for (const path of files) {
      await Deno.mkdir(`${dir}/${path.slice(0, path.lastIndexOf("/") + 1)}`, { recursive: true });
      await Deno.copyFile(new URL(path, ROOT), `${dir}/${path}`);
    }
    await using server = await startServerProcess(["serve", "-A", "adapter/deno/main.ts"], {
      cwd: dir,
      stdout: true,
      env: {
        DENO_SERVE_ADDRESS: "tcp:127.0.0.1:0",
        DENO_DEPLOYMENT_ID: "test-deployment",
        OTEL_DENO: "true",
        OTEL_SERVICE_NAME: "petri-serve",
        OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${collector.addr.port}`,
      },
    });
    for (const path of ["/healthz", "/playground/", "/schema"]) {
      const response = await fetch(`${server.origin}${path}`);
      assert.equal(response.status, 200, path);
      await response.body?.cancel();
    }
    server.kill("SIGTERM");
    const exit = await server.finished();
    assert.equal(exit.code, 0, exit.stderr);
    // Spans are exported in batches, and the last one at exit.
    assert.ok(spans.some((body) => body.includes("/healthz")), "a span for GET /healthz");
    assert.match(exit.stdout, / GET \/healthz 200 /, "the access log on stdout");
  } finally {
    await collector.shutdown();
    await Deno.remove(dir, { recursive: true });
  }
});

/** `deno deploy ARGS --help`'s text, or undefined when the CLI cannot be fetched here. */
async function deployHelp(args: readonly string[]): Promise<string | undefined> {
  const output = await new Deno.Command(Deno.execPath(), {
    args: ["deploy", ...args, "--help"],
    env: { NO_COLOR: "1" },
    stdout: "piped",
    stderr: "piped",
    stdin: "null",
  }).output();
  if (output.code !== 0) return undefined;
  return new TextDecoder().decode(output.stdout) + new TextDecoder().decode(output.stderr);
}

const ROOT_HELP = await deployHelp([]);

/** Each `deno deploy …` command in the page's shell blocks: its subcommands and its flags. */
function deployCommands(markdown: string): { subcommands: string[]; flags: string[] }[] {
  const blocks = [...markdown.matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1]!);
  const commands = blocks.join("\n").replace(/\\\n\s*/g, " ").split("\n")
    .map((line) => line.trim()).filter((line) => line.startsWith("deno deploy"));
  return commands.map((command) => {
    const words = command.replace(/#.*$/, "").split(/\s+/).slice(2);
    const subcommands: string[] = [];
    for (const word of words) {
      if (word.startsWith("-") || /[^a-z-]/.test(word) || subcommands.length === 2) break;
      subcommands.push(word);
    }
    return { subcommands, flags: words.filter((word) => word.startsWith("--")) };
  });
}

Deno.test({
  name: "docs/deployment.md names only deno deploy flags that the CLI lists",
  ignore: ROOT_HELP === undefined,
  async fn() {
    const markdown = await Deno.readTextFile(new URL("docs/deployment.md", ROOT));
    const commands = deployCommands(markdown);
    assert.ok(commands.length >= 3, JSON.stringify(commands));
    for (const { subcommands, flags } of commands) {
      // "env add" is a subcommand, "create" too; a positional (a URL, a name) is not.
      let help = await deployHelp(subcommands);
      while (help === undefined && subcommands.length > 0) {
        subcommands.pop();
        help = await deployHelp(subcommands);
      }
      for (const flag of flags) {
        const name = flag.split("=")[0]!;
        assert.ok(help?.includes(name), `deno deploy ${subcommands.join(" ")} has no ${name}`);
      }
    }
  },
});

if (ROOT_HELP === undefined) {
  console.warn(
    "deno deploy --help could not run (its @deno/deploy package comes from JSR): " +
      "the flags named in docs/deployment.md were not checked",
  );
}
