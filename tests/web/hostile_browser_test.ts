/**
 * Hostile models and logs in headless Chromium (issue 27): PETRA's `paint_shop/model.pt`
 * patched past a model limit is refused by the playground with an inline error naming the
 * limit, and the page keeps the model it had; the playground's CSV download neutralises
 * formulas a log's attributes hold; and on a real `cli.ts serve` of a model whose description
 * holds a `javascript:` markdown link and markup, every page (`/`, `/docs`, `/redoc`,
 * `/playground/`) has a Content-Security-Policy, breaks none of it, asks nothing of another
 * host, and renders no `javascript:` link.
 *
 * @module
 */

// Callbacks passed to page.evaluate run in the page: type them with the DOM's names.
/// <reference lib="dom" />

import assert from "node:assert/strict";
import { Buffer } from "node:buffer";
import {
  fixtureEntries,
  fixtureSidecar,
  Pickle,
  replaceValueOf,
  torchZip,
} from "../core/pt/pickles.ts";
import { hasChromium, launchChromium } from "./browser.ts";
import { fillForm, readAnswer, runOperation, selectOperation, waitReady } from "./page.ts";
import { csvCells, downloadResult, scoreLogFile } from "./log_page.ts";
import { startSite } from "./site.ts";
import { compileTo } from "../cli/batch/helpers.ts";
import { startServerProcess, tempDir } from "../cli/serve/server_process.ts";

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

Deno.test({
  name: "the playground's CSV download neutralises formulas from a log",
  ignore: !hasChromium() && !Deno.env.get("CI"),
  async fn() {
    await using dir = await tempDir();
    await using site = await startSite();
    await using browser = await launchChromium("wasm");
    const page = await browser.newPage();
    await page.goto(site.pageUrl("wasm"));
    await waitReady(page);
    const hostile = {
      a_cmd: "=cmd|' /C calc'!A0",
      b_sum: "=1+2",
      c_link: '=HYPERLINK("http://example.invalid","x")',
      d_at: "@SUM(A1)",
      e_plus: "+1+1",
      f_tab: "\t=1",
      g_number: "-5",
      h_plain: "ok",
    };
    const log = `${dir.path}/log.json`;
    await Deno.writeTextFile(
      log,
      JSON.stringify([{ attributes: { amount: 5000, ...hostile }, events: ["approve loan"] }]),
    );
    assert.equal(await scoreLogFile(page, log), "done");
    const [header, row] = (await downloadResult(page, "csv")).split("\r\n");
    const names = header!.split(",");
    const cells = csvCells(row!);
    const cell = (key: string) => cells[names.indexOf(`attribute:${key}`)];
    assert.equal(cell("a_cmd"), "'=cmd|' /C calc'!A0");
    assert.equal(cell("b_sum"), "'=1+2");
    assert.equal(cell("c_link"), `'=HYPERLINK("http://example.invalid","x")`);
    assert.equal(cell("d_at"), "'@SUM(A1)");
    assert.equal(cell("e_plus"), "'+1+1");
    assert.equal(cell("f_tab"), "'\t=1");
    // Numbers stay numbers.
    assert.equal(cell("g_number"), "-5");
    assert.equal(cell("amount"), "5000");
    assert.equal(cell("h_plain"), "ok");
    // No cell a spreadsheet would read as a formula.
    for (const c of cells) assert.doesNotMatch(c, /^[=@]|^[+-](?![\d.])|^[\t\r]/, c);
  },
});

Deno.test({
  name: "every page has a Content-Security-Policy, asks no other host, renders no javascript: link",
  ignore: !hasChromium() && !Deno.env.get("CI"),
  async fn(t) {
    await using dir = await tempDir();
    const description = JSON.parse(
      await Deno.readTextFile(
        "examples/credit_approval_coloured/credit_approval_coloured.model.json",
      ),
    );
    description.scenario_name = "loans<script>alert(1)</script>";
    description.scenario_description = "Click [here](javascript:alert(document.domain)) or " +
      '<a href="javascript:alert(2)">there</a> <img src=x onerror="alert(3)">';
    const bundle = await compileTo(dir.path, "hostile", description);
    await using server = await startServerProcess(
      ["run", "-A", "cli.ts", "serve", bundle, "--port", "0", "--access-log", "off"],
    );
    await using browser = await launchChromium("wasm");
    const page = await browser.newPage();
    const foreign: string[] = [];
    const errors: string[] = [];
    page.on("request", (r) => {
      if (!r.url().startsWith(server.origin) && !/^(data|blob):/.test(r.url())) {
        foreign.push(r.url());
      }
    });
    page.on("pageerror", (e) => errors.push(e.message));
    page.on("dialog", (d) => {
      errors.push(`dialog: ${d.message()}`);
      void d.dismiss();
    });
    await page.addInitScript(() => {
      const seen: string[] = [];
      (globalThis as unknown as { violations: string[] }).violations = seen;
      document.addEventListener(
        "securitypolicyviolation",
        (e) =>
          seen.push(
            `${e.violatedDirective} ${e.blockedURI} at ${e.sourceFile}:${e.lineNumber} ${e.sample}`,
          ),
      );
    });
    const violations = () =>
      page.evaluate(() => (globalThis as unknown as { violations: string[] }).violations);

    for (const path of ["/", "/docs", "/redoc"]) {
      await t.step(path, async () => {
        const response = await page.goto(`${server.origin}${path}`);
        const policy = response!.headers()["content-security-policy"] ?? "";
        assert.match(policy, /^default-src 'none'; /, `${path}: ${policy}`);
        assert.match(policy, /frame-ancestors 'none'/);
        if (path !== "/") {
          // The description is rendered, and its links are not javascript: links.
          await page.getByText("Click", { exact: false }).first().waitFor({ timeout: 60_000 });
        }
        await page.waitForTimeout(500);
        assert.equal(await page.locator('a[href^="javascript:" i]').count(), 0, path);
        // The only thing the policy had to refuse: the description's inline event handler,
        // which the renderers' sanitizers parse (and then drop). The pages need nothing else.
        const refused = await violations();
        for (const v of refused) assert.match(v, /^script-src-attr inline /, `${path}: ${v}`);
        await page.evaluate(() =>
          (globalThis as unknown as { violations: string[] }).violations.splice(0)
        );
      });
    }

    await t.step("/playground/", async () => {
      await page.goto(`${server.origin}/playground/?backend=wasm`);
      await waitReady(page);
      const meta = await page.locator('meta[http-equiv="Content-Security-Policy"]')
        .getAttribute("content");
      assert.match(meta ?? "", /^default-src 'none'; script-src 'self' 'wasm-unsafe-eval'; /);
      await selectOperation(page, "forward");
      await fillForm(page, "forward", { input_marking: { p_submitted: 1 } });
      await runOperation(page, "forward");
      assert.ok(await readAnswer(page, "forward"));
      assert.deepEqual(await violations(), []);
    });

    assert.deepEqual(foreign, []);
    assert.deepEqual(errors, []);
  },
});
