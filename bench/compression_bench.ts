/**
 * What compressing an API answer costs, by size: gzip and brotli through `CompressionStream`
 * (what `server/compression.ts` uses) against sending the same bytes as they are (the
 * baseline in the same group), on answers shaped like the server's (`/forward`'s maps of
 * activations with full-precision floats, which compress worse than repetitive text). The
 * per-size ratios and the bytes saved decide the threshold above which the server compresses
 * API answers (`COMPRESS_MIN_BYTES`); `deno run -A bench/compression_bench.ts --sizes` prints
 * the compressed sizes.
 *
 * ```sh
 * deno bench -A bench/compression_bench.ts
 * ```
 *
 * @module
 */

import { mulberry32 } from "../tests/random.ts";

const SIZES = [512, 2048, 8192, 32768, 131072, 524288];

/** A JSON answer of about `bytes` bytes: `{"transition_activations": {"t_0": 0.73…, …}}`. */
function answer(bytes: number): Uint8Array<ArrayBuffer> {
  const next = mulberry32(bytes);
  const entries: string[] = [];
  let length = 30;
  for (let i = 0; length < bytes; i++) {
    const entry = `"t_${i}":${next()}`;
    entries.push(entry);
    length += entry.length + 1;
  }
  return new TextEncoder().encode(`{"transition_activations":{${entries.join(",")}}}`);
}

async function send(bytes: Uint8Array<ArrayBuffer>, format?: string): Promise<number> {
  const response = format === undefined
    ? new Response(bytes)
    : new Response(new Response(bytes).body!.pipeThrough(new CompressionStream(format as never)));
  return (await response.arrayBuffer()).byteLength;
}

for (const size of SIZES) {
  const bytes = answer(size);
  const group = `${size} B`;
  Deno.bench({ name: `identity ${size}`, group, baseline: true }, async () => {
    await send(bytes);
  });
  Deno.bench({ name: `gzip ${size}`, group }, async () => {
    await send(bytes, "gzip");
  });
  Deno.bench({ name: `brotli ${size}`, group }, async () => {
    await send(bytes, "brotli");
  });
}

if (import.meta.main && Deno.args.includes("--sizes")) {
  for (const size of SIZES) {
    const bytes = answer(size);
    const [gzip, brotli] = [await send(bytes, "gzip"), await send(bytes, "brotli")];
    console.log(`${bytes.length} B: gzip ${gzip} B, brotli ${brotli} B`);
  }
}
