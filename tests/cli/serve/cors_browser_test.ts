/**
 * CORS in Debian's Chromium: a page served from one origin (`http://127.0.0.1:PAGE`, a bare
 * `Deno.serve`) calls a `cli.ts serve --cors-origin http://127.0.0.1:PAGE` process on another
 * port (another origin). A POST with a JSON body and an `X-Request-Id` needs a preflight: the
 * browser sends it, the server allows it, the POST's answer is readable and so is its exposed
 * `X-Request-Id`. The same page from `http://localhost:PAGE`, an origin not allowed, is refused
 * by the browser. The server's access log shows the preflights.
 *
 * @module
 */

// Callbacks passed to page.evaluate run in the page: type them with the DOM's names.
/// <reference lib="dom" />

import assert from "node:assert/strict";
import { hasChromium, launchChromium } from "../../web/browser.ts";
import { startServerProcess } from "./server_process.ts";

/** What the page's script reports about one cross-origin call. */
interface Call {
  readonly ok: boolean;
  readonly status?: number;
  readonly requestId?: string | null;
  readonly places?: number;
  readonly error?: string;
}

Deno.test({
  name:
    "a page on another origin calls the API through CORS in Chromium; other origins are refused",
  // Without Chromium the test is skipped on a developer's machine; CI installs it (.ci/run).
  ignore: !hasChromium() && !Deno.env.get("CI"),
  async fn() {
    const page = Deno.serve(
      { hostname: "127.0.0.1", port: 0, onListen() {} },
      () =>
        new Response("<!doctype html><title>app</title>", {
          headers: { "content-type": "text/html" },
        }),
    );
    try {
      const pagePort = page.addr.port;
      const allowed = `http://127.0.0.1:${pagePort}`;
      await using server = await startServerProcess(
        ["run", "-A", "cli.ts", "serve", "--port", "0", "--cors-origin", allowed],
        { stdout: true },
      );
      await using browser = await launchChromium("wasm");
      const tab = await browser.newPage();
      const call = (api: string) =>
        tab.evaluate(async (api: string): Promise<Call> => {
          try {
            const response = await fetch(`${api}/forward`, {
              method: "POST",
              headers: { "content-type": "application/json", "x-request-id": "browser-1" },
              body: JSON.stringify({ input_marking: { p_submitted: 1 } }),
            });
            const body = await response.json();
            return {
              ok: true,
              status: response.status,
              requestId: response.headers.get("x-request-id"),
              places: Object.keys(body.place_activations).length,
            };
          } catch (error) {
            return { ok: false, error: String(error) };
          }
        }, api);

      await tab.goto(`${allowed}/`);
      assert.deepEqual(await call(server.origin), {
        ok: true,
        status: 200,
        requestId: "browser-1",
        places: 3,
      });
      // A simple GET needs no preflight; its answer is readable too.
      const health = await tab.evaluate(
        async (api: string) => (await (await fetch(`${api}/healthz`)).json()).status,
        server.origin,
      );
      assert.equal(health, "ok");

      await tab.goto(`http://localhost:${pagePort}/`);
      const refused = await call(server.origin);
      assert.equal(refused.ok, false);
      assert.match(refused.error ?? "", /TypeError: Failed to fetch/);

      server.kill("SIGTERM");
      const exit = await server.finished();
      assert.equal(exit.code, 0);
      const lines = exit.stdout.split("\n");
      assert.ok(lines.some((line) => / OPTIONS \/forward 204 /.test(line)), exit.stdout);
      assert.ok(lines.some((line) => / OPTIONS \/forward 403 /.test(line)), exit.stdout);
      assert.ok(
        lines.some((line) => / POST \/forward 200 .* id=browser-1$/.test(line)),
        exit.stdout,
      );
    } finally {
      await page.shutdown();
    }
  },
});
