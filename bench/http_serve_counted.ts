/**
 * For `http_load.ts`: a bundle served exactly as `cli.ts serve` serves it (worker ORT, same
 * `createApp` settings and `listen`), plus `GET /__runs`, which answers the ORT runs, rows and
 * seconds (ORT call to answer) so far (from `ModelSession.observe`), so the benchmark can report rows per run. Prints
 * `serving NAME on URL` on stderr; stops on SIGINT or SIGTERM.
 *
 * ```sh
 * deno run -A bench/http_serve_counted.ts [BUNDLE]
 * ```
 *
 * @module
 */

import { loadWorkerOrt } from "../adapter/deno/ort.ts";
import { PACKAGE_VERSION } from "../core/bundle/mod.ts";
import { EXAMPLE_BUNDLE_URL, readBundle } from "../adapter/deno/bundle_files.ts";
import { listen } from "../adapter/deno/listen.ts";
import { createApp } from "../server/mod.ts";

await using model = await readBundle(await loadWorkerOrt(), Deno.args[0] ?? EXAMPLE_BUNDLE_URL);
const description = model.sidecar.scenario_description;
const app = await createApp(model, {
  title: model.name,
  version: PACKAGE_VERSION,
  ...(description ? { description } : {}),
});
let runs = 0;
let rows = 0;
let seconds = 0;
model.session.observe((run) => {
  runs++;
  rows += run.rows;
  seconds += run.seconds;
});
const counted = {
  fetch: (request: Request) =>
    new URL(request.url).pathname === "/__runs"
      ? Promise.resolve(Response.json({ runs, rows, seconds }))
      : app.fetch(request),
};
const running = listen(counted, { hostname: "127.0.0.1", port: 0 });
console.error(`serving ${name} on ${running.url} (ORT runs at ${running.url}/__runs)`);
await running.finished;
