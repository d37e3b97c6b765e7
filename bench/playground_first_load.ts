/**
 * The playground's first load in Debian's Chromium, over a real socket: bytes on the wire
 * (Chrome's `encodedDataLength`: headers and the body as sent, compressed or not) and the
 * number of requests, from opening `/playground/` on a fresh `cli.ts serve` to the first
 * forward result; then a reload of the same page in the same browser (the repeat visit, where
 * `ETag`s and immutable URLs count). `/docs` is measured the same way. The time to ready is
 * printed too, but on 127.0.0.1 bytes cost almost nothing, while a fresh server compresses each
 * static file on its first request (the 14 MB `.wasm`: about a second). `--root DIR` measures
 * another checkout (e.g. an older commit) in the same run, for a before/after comparison.
 *
 * ```sh
 * deno run -A bench/playground_first_load.ts [--root /tmp/base]
 * ```
 *
 * @module
 */

// Callbacks passed to page.evaluate run in the page: type them with the DOM's names.
/// <reference lib="dom" />

import { parseArgs } from "node:util";
import { startServerProcess } from "../tests/cli/serve/server_process.ts";
import { chromium } from "playwright-core";
import { CHROMIUM_PATH } from "../tests/web/browser.ts";
import { waitReady } from "../tests/web/page.ts";

const { values } = parseArgs({ args: Deno.args, options: { root: { type: "string" } } });

interface Load {
  readonly requests: number;
  readonly bytes: number;
  readonly biggest: string;
  /** From navigation to ready, ms (on 127.0.0.1: bytes cost almost nothing here). */
  readonly ms: number;
}

/** Loads `url` (twice: first visit, then a reload) and sums what crossed the wire. */
async function measure(ready: (page: import("playwright-core").Page) => Promise<void>) {
  // A persistent profile has a disk cache, as a real browser does (an incognito context keeps
  // a small memory cache that never holds the 14 MB .wasm).
  const profile = await Deno.makeTempDir({ prefix: "petri_serve_profile_" });
  await using context = Object.assign(
    await chromium.launchPersistentContext(profile, {
      executablePath: CHROMIUM_PATH,
      headless: true,
      args: [
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
      ],
    }),
    {
      async [Symbol.asyncDispose]() {
        await context.close();
        await Deno.remove(profile, { recursive: true });
      },
    },
  );
  const page = await context.newPage();
  const cdp = await context.newCDPSession(page);
  await cdp.send("Network.enable");
  const urls = new Map<string, string>();
  let loads: { url: string; bytes: number }[] = [];
  cdp.on("Network.requestWillBeSent", (event) => urls.set(event.requestId, event.request.url));
  cdp.on("Network.loadingFinished", (event) => {
    loads.push({ url: urls.get(event.requestId) ?? "?", bytes: event.encodedDataLength });
  });
  const visit = async (): Promise<Load> => {
    loads = [];
    const started = performance.now();
    await ready(page);
    const ms = performance.now() - started;
    await new Promise((resolve) => setTimeout(resolve, 500)); // late requests (favicon)
    const biggest = loads.reduce((a, b) => (b.bytes > a.bytes ? b : a), { url: "-", bytes: 0 });
    return {
      requests: loads.length,
      bytes: loads.reduce((n, l) => n + l.bytes, 0),
      biggest: `${new URL(biggest.url).pathname} ${biggest.bytes}`,
      ms,
    };
  };
  const first = await visit();
  const again = await visit();
  return { first, again };
}

async function run(label: string, cwd?: string) {
  await using server = await startServerProcess(
    ["run", "-A", "cli.ts", "serve", "--port", "0", "--access-log", "off"],
    cwd ? { cwd } : {},
  );
  const playground = await measure(async (page) => {
    if (page.url().includes("/playground/")) await page.reload();
    else await page.goto(`${server.origin}/playground/`);
    await waitReady(page);
  });
  const docs = await measure(async (page) => {
    if (page.url().endsWith("/docs")) await page.reload();
    else await page.goto(`${server.origin}/docs`);
    await page.locator(".opblock").first().waitFor({ timeout: 60_000 });
  });
  server.kill("SIGTERM");
  await server.finished();
  const row = (what: string, load: Load) =>
    console.log(
      `${label.padEnd(28)} ${what.padEnd(18)} ${String(load.requests).padStart(3)} requests ` +
        `${(load.bytes / 1e6).toFixed(3).padStart(8)} MB ${load.ms.toFixed(0).padStart(6)} ms ` +
        `(largest: ${load.biggest})`,
    );
  row("playground first", playground.first);
  row("playground reload", playground.again);
  row("docs first", docs.first);
  row("docs reload", docs.again);
}

await run("this checkout");
if (values.root) await run(values.root, values.root);
