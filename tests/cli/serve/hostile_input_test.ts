/**
 * Hostile request bodies on a real `cli.ts serve` process (issue 27): counterfactual search
 * ranges up to the largest finite double find the crossing nearest the original input,
 * numbers that float32 cannot hold are refused with a 422 naming them, and a body sent a few
 * bytes a chunk is refused once its pieces are too small on average.
 *
 * @module
 */

import assert from "node:assert/strict";
import { readUntilClosed } from "./raw_http.ts";
import { startServerProcess } from "./server_process.ts";

const SERVE = ["run", "-A", "cli.ts", "serve", "--port", "0", "--access-log", "off"];
const MAX = Number.MAX_VALUE;

/** POSTs JSON within 30 s; the status and the decoded answer. */
async function post(origin: string, path: string, body: unknown) {
  const response = await fetch(`${origin}${path}`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
    signal: AbortSignal.timeout(30_000),
  });
  return { status: response.status, body: await response.json() };
}

Deno.test("counterfactual ranges up to the largest double find the nearest crossing", async () => {
  await using server = await startServerProcess([...SERVE, "examples/rest_serving"]);
  const search = (start: number, range: readonly [number, number]) =>
    post(server.origin, "/counterfactual", {
      input_marking: { p_application: start },
      flip_place: "p_application",
      target_transition: "t_approve",
      search_range: range,
    });
  // The example's one crossing, found on the plain range.
  const plain = await search(0, [0, 1]);
  assert.equal(plain.body.found, true);
  const crossing = plain.body.counterfactual_input as number;
  assert.ok(Math.abs(crossing - 0.49) < 0.01, `crossing at ${crossing}`);

  const ranges: [number, number][] = [
    [-1e307, 1e307],
    [-9e307, 9e307],
    [-MAX, MAX],
    [-MAX, 1],
    [-1, MAX],
    [0.25, MAX],
  ];
  for (const range of ranges) {
    // Closing width: the search reports the crossing to within this share of the range.
    const width = range[1] * 1e-6 - range[0] * 1e-6;
    for (const start of [0, 1]) {
      const { status, body } = await search(start, range);
      const what = `range [${range}] from ${start}: ${JSON.stringify(body)}`;
      assert.equal(status, 200, what);
      assert.equal(body.found, true, what);
      assert.ok(Math.abs(body.counterfactual_input - crossing) <= width + 0.01, what);
      const across = Math.sign(body.counterfactual_activation - 0.5) !==
        Math.sign(body.original_activation - 0.5);
      assert.ok(across || Math.abs(body.counterfactual_activation - 0.5) < 1e-3, what);
    }
  }
  // No crossing inside these: not found, at either extreme.
  for (const range of [[-MAX, -1e308], [1, MAX], [-MAX, -MAX / 2]] as const) {
    const { status, body } = await search(0, range);
    assert.deepEqual([status, body], [200, { found: false, target_transition: "t_approve" }]);
  }
});

Deno.test("numbers float32 cannot hold are refused with a 422 naming them", async () => {
  await using server = await startServerProcess([...SERVE, "examples/credit_approval_coloured"]);
  const marking = (x: number) => ({ input_marking: { p_submitted: x } });
  const values = (x: number) => ({
    input_marking: { p_submitted: 1 },
    input_values: { p_submitted: x },
  });
  const target = { target_transition: "t_approve" };
  const cases: [string, Record<string, unknown>, string, number][] = [
    ["/forward", marking(3.5e38), "input_marking", 3.5e38],
    ["/forward", values(-1e300), "input_values", -1e300],
    ["/anomaly", { ...marking(1e39), events: [] }, "input_marking", 1e39],
    ["/sensitivity", { ...marking(-4e38), ...target }, "input_marking", -4e38],
    [
      "/counterfactual",
      { ...values(3.5e38), ...target, flip_place: "p_submitted" },
      "input_values",
      3.5e38,
    ],
  ];
  for (const [path, body, field, x] of cases) {
    const { status, body: answer } = await post(server.origin, path, body);
    const what = `${path} ${JSON.stringify(body)}: ${JSON.stringify(answer)}`;
    assert.equal(status, 422, what);
    assert.deepEqual(answer.detail.map((issue: { loc: unknown }) => issue.loc), [
      ["body", field, "p_submitted"],
    ], what);
    const [issue] = answer.detail;
    assert.equal(issue.type, "value_error", what);
    assert.equal(
      issue.msg,
      `Value error, ${x} is beyond the float32 range of ±3.4028234663852886e+38`,
    );
    assert.equal(issue.input, x, what);
  }
  // The largest float32, and numbers that round to it, are answered.
  for (const x of [3.4028234663852886e38, 3.4028235e38]) {
    const { status } = await post(server.origin, "/forward", marking(x));
    assert.equal(status, 200, String(x));
  }
});

/**
 * POSTs `body` to `/forward` with `Transfer-Encoding: chunked`, `pieceBytes` bytes a chunk, all
 * written at once; the answer as it came, until the server closed the connection.
 */
async function postInPieces(origin: string, body: string, pieceBytes: number) {
  using connection = await Deno.connect({
    hostname: "127.0.0.1",
    port: Number(new URL(origin).port),
  });
  let chunked = "";
  for (let at = 0; at < body.length; at += pieceBytes) {
    const piece = body.slice(at, at + pieceBytes);
    chunked += `${piece.length.toString(16)}\r\n${piece}\r\n`;
  }
  const request = "POST /forward HTTP/1.1\r\nhost: 127.0.0.1\r\nconnection: close\r\n" +
    `content-type: application/json\r\ntransfer-encoding: chunked\r\n\r\n${chunked}0\r\n\r\n`;
  const bytes = new TextEncoder().encode(request);
  const writing = (async () => {
    for (let sent = 0; sent < bytes.length;) sent += await connection.write(bytes.subarray(sent));
  })().catch(() => {}); // the server may close before it has read everything
  const { text } = await readUntilClosed(connection, 30_000);
  await writing;
  const status = Number(text.split(" ")[1]);
  return { status, body: text.slice(text.indexOf("\r\n\r\n") + 4) };
}

Deno.test("a body sent a few bytes a chunk is refused; one in small chunks is read", async () => {
  await using server = await startServerProcess(SERVE);
  // 20,000 bytes of JSON: the answer is the same whatever the padding.
  const json = JSON.stringify({ input_marking: { p_submitted: 1 } });
  const body = json.slice(0, -1) + " ".repeat(20_000 - json.length) + "}";
  const whole = await post(server.origin, "/forward", JSON.parse(body));
  assert.equal(whole.status, 200);
  // A byte a chunk: each read costs the server far more than the byte, and Deno hands each in
  // a buffer of 64 KiB; refused once past the first 1,024 pieces.
  const bytewise = await postInPieces(server.origin, body, 1);
  assert.equal(bytewise.status, 400, bytewise.body);
  assert.match(
    bytewise.body,
    /came in \d+ pieces of 1 bytes on average; send it in pieces of at least 64 bytes/,
  );
  // 100 bytes a chunk: read, and answered as the whole body is.
  const small = await postInPieces(server.origin, body, 100);
  assert.equal(small.status, 200, small.body);
  const answer = small.body.slice(small.body.indexOf("{"), small.body.lastIndexOf("}") + 1);
  assert.deepEqual(JSON.parse(answer), whole.body);
});
