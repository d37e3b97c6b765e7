/**
 * The CLI given the wrong thing, as a new user gives it (`deno run cli.ts ...` in a
 * subprocess): each wrong input ends in exactly one `error:` line on stderr naming the file
 * (or address) and what it is, exit 2, nothing on stdout; and the inputs that only look wrong
 * are read: a model description (`model.json`) given to `serve`, `inspect` or `batch` is
 * compiled in memory, a gzipped log named `.xes` and a UTF-16 XES log are scored like the
 * plain one. Also: what `batch`'s summary says, `--fail-on-errors`, and the one name a bundle
 * without `scenario_name` goes by.
 *
 * @module
 */

import assert from "node:assert/strict";
import { runDeno, type RunResult } from "../run_deno.ts";
import { startServerProcess, tempDir } from "./serve/server_process.ts";

const REST = "examples/rest_serving";
const REST_DESCRIPTION = `${REST}/rest_serving.model.json`;
const REST_BUNDLE = `${REST}/rest_serving.onnx`;
const REST_XES = `${REST}/applications.xes`;
const CREDIT_BUNDLE = "examples/credit_approval_coloured/credit_approval_coloured.onnx";
const PT_BUNDLE = "tests/fixtures/conformance/rest_serving/model.pt";

function cli(args: readonly string[], permissions: readonly string[] = ["-A"]): Promise<RunResult> {
  return runDeno(["run", ...permissions, "cli.ts", ...args]);
}

/** Exit 2, nothing on stdout, one `error:` line holding every text of `texts`. */
function assertOneLine(result: RunResult, ...texts: string[]): void {
  assert.equal(result.code, 2, `exit code; stderr: ${result.stderr}`);
  assert.equal(result.stdout, "");
  assert.match(
    result.stderr,
    /^error: [^\n]+\n$/,
    `one error line: ${JSON.stringify(result.stderr)}`,
  );
  for (const text of texts) {
    assert.ok(result.stderr.includes(text), `${JSON.stringify(result.stderr)} lacks ${text}`);
  }
}

/** Exit 0; the last stderr line (the summary) and stdout. */
function succeeded(result: RunResult): { stdout: string; summary: string } {
  assert.equal(result.code, 0, result.stderr);
  return { stdout: result.stdout, summary: result.stderr.trimEnd().split("\n").at(-1)! };
}

async function copy(from: string, to: string): Promise<void> {
  await Deno.copyFile(new URL(`../../${from}`, import.meta.url), to);
}

async function gzip(bytes: Uint8Array): Promise<Uint8Array> {
  const stream = new Blob([bytes as Uint8Array<ArrayBuffer>]).stream()
    .pipeThrough(new CompressionStream("gzip"));
  return new Uint8Array(await new Response(stream).arrayBuffer());
}

/** `text` as UTF-16, little- or big-endian, with or without a byte-order mark. */
function utf16(text: string, endian: "le" | "be", bom: boolean): Uint8Array {
  const units = (bom ? "\uFEFF" : "") + text;
  const bytes = new Uint8Array(units.length * 2);
  for (let i = 0; i < units.length; i++) {
    const unit = units.charCodeAt(i);
    bytes[2 * i + (endian === "le" ? 0 : 1)] = unit & 0xff;
    bytes[2 * i + (endian === "le" ? 1 : 0)] = unit >> 8;
  }
  return bytes;
}

Deno.test("serve, inspect and batch refuse a file that is not a bundle in one line", async (t) => {
  await using dir = await tempDir();
  const at = (name: string) => `${dir.path}/${name}`;
  await copy(`${REST}/applications.csv`, at("loans.csv"));
  await copy(REST_XES, at("log.xes"));
  await copy(PT_BUNDLE, at("zip.onnx"));
  await Deno.mkdir(at("logs"));
  await copy(`${REST}/applications.csv`, at("logs/loans.csv"));
  await copy(`${REST}/applications.json`, at("logs/loans.json"));
  await copy(CREDIT_BUNDLE, at("other.onnx"));
  await copy(`${REST_BUNDLE}.meta.json`, at("other.onnx.meta.json"));
  await Deno.writeFile(at("log.xes.gz"), await gzip(await Deno.readFile(at("log.xes"))));

  const cases: [string, string[], string[]][] = [
    [
      "a CSV log given as the bundle",
      ["inspect", at("loans.csv")],
      [
        `${at("loans.csv")} is CSV text (an event log?), not an ONNX model`,
        "batch BUNDLE --traces",
      ],
    ],
    [
      "an XES log given as the bundle",
      ["serve", at("log.xes"), "--port", "0"],
      [`${at("log.xes")} is XML (an XES event log?), not an ONNX model`],
    ],
    [
      "a gzipped log given as the bundle",
      ["batch", at("log.xes.gz"), "--traces", at("log.xes")],
      [`${at("log.xes.gz")} is gzip-compressed, not an ONNX model`],
    ],
    [
      "a PETRA zip named .onnx",
      ["inspect", at("zip.onnx")],
      ["is a zip archive (a PETRA .pt file is one), not an ONNX model", "name it MODEL.pt"],
    ],
    [
      "a directory of event logs",
      ["inspect", at("logs")],
      [`directory ${at("logs")} holds no bundle`, "it holds loans.csv, loans.json"],
    ],
    [
      "a bundle whose sidecar is another net's",
      ["inspect", at("other.onnx")],
      [`${at("other.onnx")} does not match`, "the sidecar was written for another .onnx file"],
    ],
    [
      "a sidecar given as the bundle",
      ["inspect", `${REST_BUNDLE}.meta.json`],
      ["is a sidecar; pass the .onnx file beside it"],
    ],
    [
      "compile given an .onnx",
      ["compile", REST_BUNDLE, "-o", at("x.onnx")],
      [`${REST_BUNDLE} is an ONNX model, not a model description (JSON)`, "compiled already"],
    ],
    [
      "compile given a CSV log",
      ["compile", at("loans.csv"), "-o", at("x.onnx")],
      ["is CSV text (an event log?), not a model description"],
    ],
    [
      "compile given a directory",
      ["compile", at("logs"), "-o", at("x.onnx")],
      [`cannot read ${at("logs")}: it is a directory`],
    ],
  ];
  for (const [name, args, texts] of cases) {
    await t.step(name, async () => assertOneLine(await cli(args), ...texts));
  }
  await t.step("compile's message holds no raw bytes of the binary file", async () => {
    const { stderr } = await cli(["compile", REST_BUNDLE, "-o", at("x.onnx")]);
    assert.doesNotMatch(stderr.trimEnd(), /\p{Cc}/u);
  });
});

Deno.test("a model description is compiled in memory by inspect, batch and serve", async (t) => {
  await t.step("inspect", async () => {
    const { stdout } = succeeded(await cli(["inspect", REST_DESCRIPTION]));
    assert.match(
      stdout,
      /^kind +model description petri-net-model\/1 \(compiled to ONNX in memory\)$/m,
    );
    assert.match(stdout, /^scenario +rest_serving$/m);
  });
  await t.step("batch scores as the compiled bundle does", async () => {
    const fromJson = succeeded(await cli(["batch", REST_DESCRIPTION, "--traces", REST_XES, "-q"]));
    const fromOnnx = succeeded(await cli(["batch", REST_BUNDLE, "--traces", REST_XES, "-q"]));
    assert.equal(fromJson.stdout, fromOnnx.stdout);
  });
  await t.step("serve answers /forward as the compiled bundle does", async () => {
    const body = JSON.stringify({ input_marking: { p_application: 1 } });
    const answers: unknown[] = [];
    for (const bundle of [REST_DESCRIPTION, REST_BUNDLE]) {
      await using server = await startServerProcess(
        ["run", "-A", "cli.ts", "serve", bundle, "--port", "0", "--access-log", "off"],
      );
      assert.match(server.firstLine, /^serving rest_serving on /);
      const response = await fetch(`${server.origin}/forward`, { method: "POST", body });
      answers.push(await response.json());
      server.kill("SIGTERM");
      assert.equal((await server.finished()).code, 0);
    }
    assert.deepEqual(answers[0], answers[1]);
  });
});

Deno.test("batch reads a gzipped log whatever its name, and UTF-16 XES", async (t) => {
  await using dir = await tempDir();
  const at = (name: string) => `${dir.path}/${name}`;
  const xes = await Deno.readTextFile(new URL(`../../${REST_XES}`, import.meta.url));
  const expected = succeeded(await cli(["batch", REST_BUNDLE, "--traces", REST_XES, "-q"])).stdout;
  const logs: [string, string, Uint8Array][] = [
    ["gzipped, named .xes", "gzipped.xes", await gzip(new TextEncoder().encode(xes))],
    ["plain, named .xes.gz", "plain.xes.gz", new TextEncoder().encode(xes)],
    ["UTF-16LE with a byte-order mark", "le.xes", utf16(xes, "le", true)],
    ["UTF-16BE with a byte-order mark", "be.xes", utf16(xes, "be", true)],
    [
      "UTF-16BE without a byte-order mark, declared",
      "be_declared.xes",
      utf16(xes.replace('encoding="UTF-8"', 'encoding="UTF-16"'), "be", false),
    ],
    ["UTF-16LE without a byte-order mark", "le_bare.xes", utf16(xes, "le", false)],
  ];
  for (const [name, file, bytes] of logs) {
    await t.step(name, async () => {
      await Deno.writeFile(at(file), bytes);
      const run = succeeded(await cli(["batch", REST_BUNDLE, "--traces", at(file), "-q"]));
      assert.equal(run.stdout, expected);
    });
  }
  await t.step("a UTF-16 or gzipped log shards modulo, with a note saying why", async () => {
    for (const [file, why] of [["le.xes", "it is UTF-16"], ["gzipped.xes", "it is gzipped"]]) {
      const run = await cli(["batch", REST_BUNDLE, "--traces", at(file!), "--shard", "0/2", "-q"]);
      assert.equal(run.code, 0, run.stderr);
      assert.match(
        run.stderr,
        new RegExp(`^note: ${at(file!)}: ${why}.*\\(modulo sharding\\)$`, "m"),
      );
    }
  });
  await t.step("UTF-16 JSON, and a false UTF-16 declaration, in one line", async () => {
    const json = await Deno.readTextFile(
      new URL(`../../${REST}/applications.json`, import.meta.url),
    );
    await Deno.writeFile(at("u16.json"), utf16(json, "le", true));
    assertOneLine(
      await cli(["batch", REST_BUNDLE, "--traces", at("u16.json")]),
      `${at("u16.json")}: the text is UTF-16, not UTF-8`,
    );
    await Deno.writeTextFile(at("liar.xes"), xes.replace('encoding="UTF-8"', 'encoding="UTF-16"'));
    assertOneLine(
      await cli(["batch", REST_BUNDLE, "--traces", at("liar.xes")]),
      `${at("liar.xes")}: its XML declaration says encoding="UTF-16" but its bytes are not UTF-16`,
    );
  });
});

Deno.test("batch's summary says what its rate and bytes are; --fail-on-errors exits 3", async (t) => {
  await t.step("the rate leaves the start-up out, and says so", async () => {
    const { summary } = succeeded(await cli(["batch", REST_BUNDLE, "--traces", REST_XES, "-q"]));
    const match =
      /^batch: 6 traces in (\d+\.\d\d) s \(start-up (\d+\.\d\d) s, then \d+ traces\/s\), 6 scored, 0 errors$/
        .exec(summary);
    assert.ok(match, summary);
    assert.ok(Number(match[2]) <= Number(match[1]), summary);
  });
  await t.step(
    "a range shard's byte count says it holds the head and the edges' scans",
    async () => {
      const run = await cli(["batch", REST_BUNDLE, "--traces", REST_XES, "--shard", "0/2", "-q"]);
      const { summary } = succeeded(run);
      const size = (await Deno.stat(new URL(`../../${REST_XES}`, import.meta.url))).size;
      assert.match(
        summary,
        new RegExp(
          `\\(shard 0/2: bytes 0-\\d+ of ${size}; \\d+ bytes read with the head and the edges' scans\\)`,
        ),
      );
    },
  );
  await t.step("a log for another net: every trace fails, a note, exit 0 or 3", async () => {
    const args = ["batch", CREDIT_BUNDLE, "--traces", REST_XES, "-q"];
    const plain = await cli(args);
    assert.equal(plain.code, 0, plain.stderr);
    assert.match(
      plain.stderr,
      /^note: every trace failed \(trace 0: .*amount.*\); is the bundle the one for this log\?/m,
    );
    assert.match(plain.stderr, /0 scored, 6 errors/);
    const failing = await cli([...args, "--fail-on-errors"]);
    assert.equal(failing.code, 3, failing.stderr);
    assert.equal(failing.stdout, plain.stdout, "the output is written all the same");
  });
  await t.step("--fail-on-errors with no failed trace exits 0", async () => {
    succeeded(await cli(["batch", REST_BUNDLE, "--traces", REST_XES, "-q", "--fail-on-errors"]));
  });
});

Deno.test("batch with --allow-read short of Deno's npm cache: one line naming the flag", async () => {
  await using dir = await tempDir();
  await copy(REST_BUNDLE, `${dir.path}/m.onnx`);
  await copy(`${REST_BUNDLE}.meta.json`, `${dir.path}/m.onnx.meta.json`);
  await copy(REST_XES, `${dir.path}/log.xes`);
  const repo = new URL("../../", import.meta.url).pathname;
  const run = await cli(
    ["batch", `${dir.path}/m.onnx`, "--traces", `${dir.path}/log.xes`],
    [`--allow-read=${dir.path},${repo}`],
  );
  assertOneLine(run, "no read permission for onnxruntime-web's WASM file", "--allow-read");
});

Deno.test("a URL that answers an HTML page is refused as one, bundle or log", async () => {
  await using dir = await tempDir();
  const page = "<!DOCTYPE html>\n<html><body>Please sign in</body></html>\n";
  await using server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen() {} },
    () => new Response(page, { headers: { "content-type": "text/html; charset=utf-8" } }),
  );
  const origin = `http://127.0.0.1:${server.addr.port}`;
  assertOneLine(
    await cli(["inspect", `${origin}/m.onnx`]),
    `${origin}/m.onnx answered an HTML page (HTTP 200), not a bundle file`,
  );
  assertOneLine(
    await cli(["batch", REST_BUNDLE, "--traces", `${origin}/log.xes`, "-o", `${dir.path}/o.json`]),
    `${origin}/log.xes: it answered an HTML page (HTTP 200), not an event log`,
  );
});

Deno.test("serve names the address it cannot listen on", async (t) => {
  await t.step("a port in use", async () => {
    using taken = Deno.listen({ hostname: "127.0.0.1", port: 0 });
    const { port } = taken.addr as Deno.NetAddr;
    assertOneLine(
      await cli(["serve", REST_BUNDLE, "--port", String(port)]),
      `cannot listen on 127.0.0.1:${port}: the address is already in use`,
      "--port 0",
    );
  });
  await t.step("a --host of another machine", async () => {
    assertOneLine(
      await cli(["serve", REST_BUNDLE, "--host", "192.0.2.1", "--port", "0"]),
      "cannot listen on 192.0.2.1:0: --host is not an address of this machine",
    );
  });
});

Deno.test("a bundle without scenario_name is called by its file's stem", async () => {
  await using dir = await tempDir();
  await copy(REST_BUNDLE, `${dir.path}/big.onnx`);
  const sidecar = JSON.parse(await Deno.readTextFile(`${REST_BUNDLE}.meta.json`));
  sidecar.scenario_name = null;
  await Deno.writeTextFile(`${dir.path}/big.onnx.meta.json`, JSON.stringify(sidecar));
  const inspected = succeeded(await cli(["inspect", `${dir.path}/big.onnx`]));
  assert.match(inspected.stdout, /^scenario +\(none\)$/m);
  await using server = await startServerProcess(
    ["run", "-A", "cli.ts", "serve", `${dir.path}/big.onnx`, "--port", "0", "--access-log", "off"],
  );
  assert.match(server.firstLine, /^serving big on http:/);
  const home = await (await fetch(`${server.origin}/`)).text();
  assert.match(home, /<title>big /);
  server.kill("SIGTERM");
  assert.equal((await server.finished()).code, 0);
});
