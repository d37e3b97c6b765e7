/**
 * The admission settings of both server entries: `cli.ts serve`'s flags (help text, refusal of
 * bad values with exit code 2) and `adapter/deno/main.ts`'s environment variables (a bad value stops
 * start-up with exit code 2; a good one is applied).
 *
 * @module
 */

import assert from "node:assert/strict";
import { runDeno } from "../../run_deno.ts";
import { startServerProcess } from "./server_process.ts";

Deno.test("cli.ts serve --help documents the admission flags", async () => {
  const { code, stdout } = await runDeno(["run", "-A", "cli.ts", "serve", "--help"]);
  assert.equal(code, 0);
  assert.match(stdout, /--max-body-memory-bytes N\s+bytes of request bodies and large answers/);
  assert.match(stdout, /--max-queue-rows N\s+most rows waiting for the model; while it is full/);
  assert.match(stdout, /--queue-timeout-ms MS how long a request may wait for room/);
  assert.match(stdout, /exits 1 so that a supervisor can replace the process/);
});

Deno.test("cli.ts serve refuses admission flags that are not positive whole numbers", async () => {
  for (
    const [flag, value, message] of [
      ["--max-body-memory-bytes", "0", /--max-body-memory-bytes must be an integer from 1 to/],
      ["--max-queue-rows", "many", /--max-queue-rows must be an integer from 1 to/],
      ["--queue-timeout-ms", "1.5", /--queue-timeout-ms must be an integer from 1 to 3600000/],
    ] as const
  ) {
    const { code, stderr } = await runDeno(["run", "-A", "cli.ts", "serve", flag, value]);
    assert.equal(code, 2, stderr);
    assert.match(stderr, message);
  }
});

const MAIN = ["serve", "--allow-read", "--allow-env", "--allow-net", "adapter/deno/main.ts"];
const ADDRESS = { DENO_SERVE_ADDRESS: "tcp:127.0.0.1:0" };

Deno.test("adapter/deno/main.ts stops with exit code 2 on an admission variable that is not a positive whole number", async () => {
  const { code, stderr } = await runDeno(MAIN, {
    env: { ...ADDRESS, PETRI_SERVE_QUEUE_TIMEOUT_MS: "soon" },
  });
  assert.equal(code, 2, stderr);
  assert.match(stderr, /PETRI_SERVE_QUEUE_TIMEOUT_MS must be an integer of at least 1, got 'soon'/);
});

Deno.test("adapter/deno/main.ts applies PETRI_SERVE_MAX_BODY_MEMORY_BYTES and PETRI_SERVE_QUEUE_TIMEOUT_MS", async () => {
  await using server = await startServerProcess(MAIN, {
    env: {
      ...ADDRESS,
      PETRI_SERVE_MAX_BODY_MEMORY_BYTES: "64",
      PETRI_SERVE_QUEUE_TIMEOUT_MS: "300",
    },
  });
  const port = Number(new URL(server.origin).port);
  // A request whose body never finishes holds its 100 bytes: the next is refused unread.
  const held = await Deno.connect({ hostname: "127.0.0.1", port });
  try {
    await held.write(
      new TextEncoder().encode(
        "POST /forward HTTP/1.1\r\nhost: x\r\ncontent-length: 100\r\n\r\n{",
      ),
    );
    await new Promise((resolve) => setTimeout(resolve, 200));
    const refused = await fetch(`${server.origin}/forward`, {
      method: "POST",
      body: JSON.stringify({ input_marking: { p_submitted: 1 } }),
    });
    assert.equal(refused.status, 503);
    assert.match(
      (await refused.json()).detail,
      /time-out is 300 ms\): the request bodies and answers held stayed at their limit of 64 bytes/,
    );
  } finally {
    held.close();
  }
  server.kill("SIGTERM");
  await server.finished();
});
