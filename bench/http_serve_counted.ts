/**
 * For `http_load.ts`: the example served exactly as `cli.ts serve` serves it (same loading,
 * `createApp` settings and `listen`), plus `GET /__runs`, which answers the number of ORT runs
 * so far (`ModelSession.runCount`), so the benchmark can show how many requests each run answered.
 * Prints `serving NAME on URL` on stderr; stops on SIGINT or SIGTERM.
 *
 * ```sh
 * deno run -A bench/http_serve_counted.ts
 * ```
 *
 * @module
 */

import { loadOrt } from "../adapter/deno/ort.ts";
import { PACKAGE_VERSION } from "../core/version.ts";
import { EXAMPLE_BUNDLE_URL, readBundle } from "../adapter/deno/bundle_files.ts";
import { listen } from "../adapter/deno/listen.ts";
import { createApp } from "../server/mod.ts";

await using model = await readBundle(await loadOrt(), EXAMPLE_BUNDLE_URL);
const { scenario_name: name, scenario_description: description } = model.sidecar;
const app = await createApp(model, {
  ...(name ? { title: name } : {}),
  version: PACKAGE_VERSION,
  ...(description ? { description } : {}),
});
const counted = {
  fetch: (request: Request) =>
    new URL(request.url).pathname === "/__runs"
      ? Promise.resolve(Response.json({ runs: model.session.runCount }))
      : app.fetch(request),
};
const running = listen(counted, { hostname: "127.0.0.1", port: 0, playground: false });
console.error(`serving ${name} on ${running.url} (ORT runs at ${running.url}/__runs)`);
await running.finished;
