/**
 * The playground under test: {@link startSite} serves the packaged playground (the committed
 * bundle, as `cli.ts serve` serves it with no build step) at `/playground/` next to the HTTP
 * service of the same example model, on 127.0.0.1 and a free port. Every request the page makes
 * is to this one origin.
 *
 * @example
 * ```ts
 * import { startSite } from "./site.ts";
 * await using site = await startSite();
 * site.pageUrl("wasm"); // "http://127.0.0.1:PORT/playground/?backend=wasm"
 * ```
 *
 * @module
 */

import "../ort.ts";
import * as ort from "onnxruntime-web";
import { loadBundle, type Model } from "../../core/bundle/mod.ts";
import { createApp } from "../../server/mod.ts";
import { playgroundHandler } from "../../adapter/deno/serve_static.ts";

/** The example bundle the page loads by default. */
export const EXAMPLE_ONNX = new URL(
  "../../examples/credit_approval_coloured/credit_approval_coloured.onnx",
  import.meta.url,
);

/** A running server: the playground at `/playground/` and the HTTP service beside it. */
export interface Site extends AsyncDisposable {
  /** `http://127.0.0.1:PORT` */
  readonly origin: string;
  /** The page's address, with `?backend=`. */
  pageUrl(backend: "wasm" | "webgpu"): string;
  /** POSTs a JSON body to the HTTP service and returns the decoded answer. */
  post(path: string, body: unknown): Promise<{ status: number; body: unknown }>;
}

/**
 * Starts the server for the example model (WASM in Deno, as `serve` runs it).
 *
 * @example
 * ```ts
 * import { startSite } from "./site.ts";
 * await using site = await startSite();
 * (await site.post("/forward", { input_marking: {} })).status; // 200
 * ```
 */
export async function startSite(): Promise<Site> {
  const model: Model = await loadBundle(ort, {
    onnx: await Deno.readFile(EXAMPLE_ONNX),
    sidecar: await Deno.readTextFile(new URL(EXAMPLE_ONNX.href + ".meta.json")),
    onnxName: "credit_approval_coloured.onnx",
    sidecarName: "credit_approval_coloured.onnx.meta.json",
  });
  const app = await createApp(model).catch(async (error) => {
    await model[Symbol.asyncDispose]();
    throw error;
  });
  const playground = playgroundHandler();
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen() {} },
    async (request) => (await playground(request)) ?? app.fetch(request),
  );
  const origin = `http://127.0.0.1:${server.addr.port}`;
  return {
    origin,
    pageUrl: (backend) => `${origin}/playground/?backend=${backend}`,
    async post(path, body) {
      const response = await fetch(`${origin}${path}`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(body),
      });
      return { status: response.status, body: await response.json() };
    },
    async [Symbol.asyncDispose]() {
      await server.shutdown();
      await model[Symbol.asyncDispose]();
    },
  };
}
