/**
 * A test-only server entry: `cli.ts serve` exactly (its flags, its drain, its exit codes;
 * `cli/serve.ts`'s `serveCommandWith`), with its ORT module wrapped by `../../failing_ort.ts`, so
 * that a test can make model runs fail, make recreating sessions fail, or slow runs down while
 * a real process serves on a real port. Not part of the product; nothing imports it.
 *
 * ```sh
 * deno run -A tests/cli/serve/failing_serve.ts CONTROL_FILE [serve flags...]
 * ```
 *
 * @module
 */

import { serveCommandWith } from "../../../cli/serve.ts";
import { loadOrt, loadWorkerOrt } from "../../../adapter/deno/ort.ts";
import { failingOrt } from "../../failing_ort.ts";

const [controlPath, ...args] = Deno.args;
if (controlPath === undefined) {
  console.error("usage: failing_serve.ts CONTROL_FILE [serve flags...]");
  Deno.exit(2);
}
const command = serveCommandWith({
  loadOrt: async () => failingOrt(await loadOrt(), controlPath),
  loadWorkerOrt: async () => failingOrt(await loadWorkerOrt(), controlPath),
});
const encoder = new TextEncoder();
const code = await command.run(args, {
  out(text) {
    let bytes = encoder.encode(text);
    while (bytes.length > 0) bytes = bytes.subarray(Deno.stdout.writeSync(bytes));
  },
  err: (line) => console.error(line),
});
Deno.exit(code);
