/**
 * Hostile models and logs in the playground, in headless Chromium (issue 27): PETRA's
 * `paint_shop/model.pt` patched past a model limit is refused with an inline error naming the
 * limit, and the page keeps the model it had.
 *
 * @module
 */

// Callbacks passed to page.evaluate run in the page: type them with the DOM's names.
/// <reference lib="dom" />

import assert from "node:assert/strict";
import { Buffer } from "node:buffer";
import { fixtureEntries, fixtureSidecar, Pickle, replaceValueOf, torchZip } from "../pt/pickles.ts";
import { hasChromium, launchChromium } from "./browser.ts";
import { waitReady } from "./page.ts";
import { startSite } from "./site.ts";

function file(name: string, bytes: Uint8Array | string) {
  const buffer = Buffer.from(typeof bytes === "string" ? new TextEncoder().encode(bytes) : bytes);
  return { name, mimeType: "application/octet-stream", buffer };
}

/** paint_shop's `.pt` with the value under `key` in its pickle replaced. */
async function patchedPt(key: string, value: Uint8Array): Promise<Uint8Array> {
  const entries = await fixtureEntries("paint_shop");
  return torchZip("paint_shop", {
    ...entries,
    "data.pkl": replaceValueOf(entries["data.pkl"]!, key, value),
  });
}

Deno.test({
  name: "the playground refuses hostile models inline",
  ignore: !hasChromium() && !Deno.env.get("CI"),
  async fn(t) {
    await using site = await startSite();
    await using browser = await launchChromium("wasm");
    const page = await browser.newPage();
    const errors: string[] = [];
    page.on("pageerror", (e) => errors.push(e.message));
    await page.goto(site.pageUrl("wasm"));
    await waitReady(page);
    const sidecar = await fixtureSidecar("paint_shop");

    const cases = [
      [
        "num_steps 10,000,000",
        "num_steps",
        new Pickle().int(10_000_000).bytes(),
        /module\.num_steps: expected an integer from 0 to 1000, got 10000000/,
      ],
      [
        "num_steps 1000",
        "num_steps",
        new Pickle().int(1000).bytes(),
        /over a model limit: the compiled graph needs more than 10000 ONNX nodes/,
      ],
      [
        "sharpness 1e39",
        "sharpness",
        new Pickle().float(1e39).bytes(),
        /module\.sharpness: expected a finite float32 number, got 1e\+39/,
      ],
    ] as const;
    for (const [name, key, value, reason] of cases) {
      await t.step(`a .pt with ${name}`, async () => {
        await page.locator("#bundle-files").setInputFiles([
          file("shop.pt", await patchedPt(key, value)),
          file("shop.pt.meta.json", sidecar),
        ]);
        const source = reason.source;
        // A bound that proves the page answers, not a measure of speed.
        await page.waitForFunction(
          (pattern) =>
            new RegExp(pattern).test(document.getElementById("bundle-error")!.textContent!),
          source,
          { timeout: 60_000 },
        );
        assert.match(
          await page.locator("#bundle-error").textContent() ?? "",
          /^Cannot load bundle: shop\.pt/,
        );
        // The example model stays loaded.
        assert.equal(await page.locator("#net-svg .node.place").count(), 3);
      });
    }
    assert.deepEqual(errors, []);
  },
});
