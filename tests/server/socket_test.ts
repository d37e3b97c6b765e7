/**
 * `createApp` under a real `Deno.serve` listener on port 0: answers, the streamed 413 and the
 * 408 for a stalled body arrive over the socket.
 *
 * @module
 */

import { deepEqual, equal, match } from "node:assert/strict";
import { createApp } from "../../server/app.ts";
import { openModel, xorDescription } from "./models.ts";

Deno.test("createApp() serves over Deno.serve, with 413 and 408 on the wire", async () => {
  await using model = await openModel(xorDescription());
  const app = await createApp(model, { bodyTimeoutMs: 200, maxBodyBytes: 1000 });
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, app.fetch);
  try {
    const { port } = server.addr;
    const origin = `http://127.0.0.1:${port}`;

    const ok = await fetch(`${origin}/forward`, {
      method: "POST",
      body: '{"input_marking": {"p_in": 0.5}}',
    });
    equal(ok.status, 200);
    equal((await ok.json()).transition_activations.t_a, 0.8320183753967285);

    const declared = await fetch(`${origin}/forward`, { method: "POST", body: "x".repeat(5000) });
    equal(declared.status, 413);
    match((await declared.json()).detail, /larger than the limit of 1000 bytes/);

    // No Content-Length: 3000 bytes in chunks. (A client that never stops uploading would keep
    // the connection, and so server.shutdown(), waiting: Deno.serve drains the body.)
    let chunks = 0;
    const stream = new ReadableStream<Uint8Array>({
      pull: (controller) =>
        ++chunks > 10 ? controller.close() : controller.enqueue(new Uint8Array(300).fill(32)),
    });
    const streamed = await fetch(`${origin}/forward`, { method: "POST", body: stream });
    equal(streamed.status, 413);
    await streamed.text();

    // A client that announces 100 bytes and sends 7.
    using conn = await Deno.connect({ hostname: "127.0.0.1", port });
    await conn.write(
      new TextEncoder().encode(
        'POST /forward HTTP/1.1\r\nhost: x\r\ncontent-length: 100\r\n\r\n{"input',
      ),
    );
    const buffer = new Uint8Array(4096);
    const n = await conn.read(buffer);
    const head = new TextDecoder().decode(buffer.subarray(0, n ?? 0));
    match(head, /^HTTP\/1\.1 408 /);
    match(head, /connection: close/i);
    deepEqual(JSON.parse(head.slice(head.indexOf("\r\n\r\n") + 4)), {
      detail: "The request body did not arrive within 200 ms",
    });

    const health = await fetch(`${origin}/healthz`);
    equal((await health.json()).status, "ok");
  } finally {
    await server.shutdown();
  }
});
