/**
 * Debian's Chromium driven by `playwright-core` (which never downloads a browser of its own),
 * headless, with the flags of each backend: WASM runs with `--disable-gpu`; WebGPU drops it and
 * adds `--enable-unsafe-webgpu`, which gives pages on `http://127.0.0.1` a software WebGPU
 * adapter (SwiftShader) on machines without a GPU.
 *
 * @example
 * ```ts
 * import { launchChromium } from "./browser.ts";
 * await using browser = await launchChromium("wasm");
 * const page = await browser.newPage();
 * ```
 *
 * @module
 */

import { type Browser, chromium } from "playwright-core";

/** Where Debian's `chromium` package puts the browser; `CHROMIUM` overrides it. */
export const CHROMIUM_PATH = Deno.env.get("CHROMIUM") ?? "/usr/bin/chromium";

/** The backends the page can run on. */
export type BackendName = "wasm" | "webgpu";

const COMMON_FLAGS = [
  "--headless",
  "--no-sandbox",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];

/** A launched browser that closes itself with `await using`. */
export type DisposableBrowser = Browser & AsyncDisposable;

/**
 * Launches Chromium with the flags of `backend`, plus `extraFlags`.
 *
 * @example
 * ```ts
 * import { launchChromium } from "./browser.ts";
 * await using browser = await launchChromium("webgpu");
 * await using mapped = await launchChromium("wasm", ["--host-resolver-rules=MAP x.test 127.0.0.1"]);
 * ```
 */
export async function launchChromium(
  backend: BackendName,
  extraFlags: readonly string[] = [],
): Promise<DisposableBrowser> {
  const flags = backend === "webgpu"
    ? [...COMMON_FLAGS, "--enable-unsafe-webgpu", ...extraFlags]
    : [...COMMON_FLAGS, "--disable-gpu", ...extraFlags];
  const browser = await chromium.launch({
    executablePath: CHROMIUM_PATH,
    headless: true,
    args: flags,
  });
  return Object.assign(browser, {
    [Symbol.asyncDispose]: () => browser.close(),
  });
}

/**
 * Whether Chromium is installed where {@link CHROMIUM_PATH} says.
 *
 * @example
 * ```ts
 * import { hasChromium } from "./browser.ts";
 * if (!hasChromium()) console.log("install chromium first");
 * ```
 */
export function hasChromium(): boolean {
  try {
    return Deno.statSync(CHROMIUM_PATH).isFile;
  } catch {
    return false;
  }
}
