/**
 * The `POST /batch` examples of `docs/http_api.md` run as written against a real `cli.ts serve`
 * (only the port differs): each `curl` command (every format, gzip included) writes what
 * `cli.ts batch` writes for its log, and the Python `requests` example prints one line per
 * trace (when Python and `requests` are installed).
 *
 * @module
 */

import assert from "node:assert/strict";
import { batch } from "../cli/batch/helpers.ts";
import { serveLogs } from "../cli/serve/batch_client.ts";

const ROOT = new URL("../../", import.meta.url);
const DOCUMENTED = "http://127.0.0.1:8000";

/** The code blocks of `lang` in the `POST /batch` section of docs/http_api.md. */
async function sectionBlocks(lang: string): Promise<string[]> {
  const text = await Deno.readTextFile(new URL("docs/http_api.md", ROOT));
  const start = text.indexOf("\n## Scoring a whole log: `POST /batch`");
  assert.ok(start >= 0, "docs/http_api.md has no POST /batch section");
  const section = text.slice(start, text.indexOf("\n## ", start + 1));
  return [...section.matchAll(new RegExp("```" + lang + "\\n([\\s\\S]*?)```", "g"))].map((m) =>
    m[1]!
  );
}

async function run(program: string, args: string[], env: Record<string, string> = {}) {
  const output = await new Deno.Command(program, { args, cwd: ROOT, stdin: "null", env }).output();
  const decode = (bytes: Uint8Array) => new TextDecoder().decode(bytes);
  return { code: output.code, stdout: decode(output.stdout), stderr: decode(output.stderr) };
}

const hasRequests = (await run("python3", ["-c", "import requests"]).catch(() => ({ code: 1 })))
  .code === 0;

Deno.test("docs/http_api.md: every curl example of POST /batch writes what cli.ts batch writes", async (t) => {
  const [block] = await sectionBlocks("sh");
  const commands = block!.trim().split("\n");
  assert.ok(commands.length >= 5, "one curl example per format, and gzip");
  await using server = await serveLogs();
  const dir = await Deno.makeTempDir({ prefix: "petri_batch_docs_" });
  try {
    for (const command of commands) {
      await t.step(command, async () => {
        assert.ok(command.includes(DOCUMENTED), "the documented address");
        const out = `${dir}/answer`;
        const line = command.replace(DOCUMENTED, server.origin).replace(/> \S+$/, `> ${out}`);
        const result = await run("bash", ["-c", `set -o pipefail; ${line}`]);
        assert.equal(result.code, 0, result.stderr);
        const log = /examples\/\S+/.exec(command)![0];
        const jsonl = command.includes("accept: application/x-ndjson");
        const cli = await batch([
          "examples/credit_approval_coloured",
          "--traces",
          log,
          "--output-format",
          jsonl ? "jsonl" : "json",
          "-q",
        ]);
        assert.equal(cli.code, 0, cli.stderr);
        assert.ok(await Deno.readTextFile(out) === cli.stdout, "the answer is batch's output");
      });
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test({
  name: "docs/http_api.md: the Python requests example of POST /batch prints one line per trace",
  ignore: !hasRequests,
  async fn() {
    const [code] = await sectionBlocks("python");
    await using server = await serveLogs();
    const result = await run("python3", ["-c", code!.replace(DOCUMENTED, server.origin)]);
    assert.equal(result.code, 0, result.stderr);
    const xes = await Deno.readTextFile(
      new URL("examples/credit_approval_coloured/loans.xes", ROOT),
    );
    const lines = result.stdout.trimEnd().split("\n");
    assert.equal(lines.length, xes.match(/<trace>/g)!.length);
    assert.deepEqual(lines.map((line) => Number(line.split(" ")[0])), [...lines.keys()]);
  },
});
