import assert from "node:assert/strict";
import { playgroundHandler } from "../../../adapter/deno/serve_static.ts";
import { PLAYGROUND_WASM } from "../../../web/build/mod.ts";

async function withSite(fn: (dir: string) => Promise<void>): Promise<void> {
  const dir = await Deno.makeTempDir({ prefix: "petri-static-" });
  try {
    await Deno.writeTextFile(`${dir}/index.html`, "<!doctype html><title>x</title>");
    await Deno.writeTextFile(`${dir}/main.js`, "export {};");
    await Deno.mkdir(`${dir}/ort`);
    await Deno.writeFile(`${dir}/ort/a.wasm`, new Uint8Array([0, 97, 115, 109]));
    await fn(dir);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

const get = (path: string, method = "GET") => new Request(`http://127.0.0.1${path}`, { method });

Deno.test("playgroundHandler() declines paths outside its prefix", async () => {
  await withSite(async (dir) => {
    const handler = playgroundHandler(dir);
    assert.equal(await handler(get("/forward", "POST")), undefined);
    assert.equal(await handler(get("/playgrounds/x")), undefined);
    assert.equal(await handler(get("/")), undefined);
  });
});

Deno.test("playgroundHandler() redirects the bare prefix and serves index.html", async () => {
  await withSite(async (dir) => {
    const handler = playgroundHandler(dir);
    const redirect = (await handler(get("/playground?backend=wasm")))!;
    assert.equal(redirect.status, 308);
    assert.equal(redirect.headers.get("location"), "/playground/?backend=wasm");
    const page = (await handler(get("/playground/")))!;
    assert.equal(page.status, 200);
    assert.equal(page.headers.get("content-type"), "text/html; charset=utf-8");
    assert.match(await page.text(), /<title>x<\/title>/);
  });
});

Deno.test("playgroundHandler() serves scripts and wasm with their content types", async () => {
  await withSite(async (dir) => {
    const handler = playgroundHandler(dir, { prefix: "/p" });
    const script = (await handler(get("/p/main.js")))!;
    assert.equal(script.headers.get("content-type"), "text/javascript; charset=utf-8");
    assert.equal(await script.text(), "export {};");
    const wasm = (await handler(get("/p/ort/a.wasm")))!;
    assert.equal(wasm.headers.get("content-type"), "application/wasm");
    assert.equal(wasm.headers.get("content-length"), "4");
    assert.deepEqual([...new Uint8Array(await wasm.arrayBuffer())], [0, 97, 115, 109]);
    const head = (await handler(get("/p/main.js", "HEAD")))!;
    assert.equal(head.status, 200);
    assert.equal(head.body, null);
  });
});

Deno.test("playgroundHandler() answers 404 outside the site and 405 to other methods", async () => {
  await withSite(async (dir) => {
    const handler = playgroundHandler(dir);
    // URLs normalise "..", so only encoded slashes can smuggle one in.
    assert.equal(await handler(get("/playground/../deno.json")), undefined);
    const notPaths = [
      "/playground/nope.js",
      "/playground/ort%2f..%2f..%2fsecret",
      "/playground/main.js/x", // a file used as a directory
      `/playground/${"a".repeat(5000)}`, // a name the file system refuses
      "/playground/ort", // a directory without index.html
    ];
    for (const path of notPaths) {
      const response = (await handler(get(path)))!;
      assert.equal(response.status, 404, path);
      assert.deepEqual(await response.json(), { detail: "Not Found" });
    }
    const post = (await handler(get("/playground/main.js", "POST")))!;
    assert.equal(post.status, 405);
    assert.equal(post.headers.get("allow"), "GET, HEAD");
    await post.body?.cancel();
  });
});

Deno.test("playgroundHandler() without a directory serves the packaged playground", async () => {
  const handler = playgroundHandler();
  const page = (await handler(get("/playground/")))!;
  assert.equal(page.status, 200);
  assert.match(await page.text(), /<script type="module" src="\.\/main\.js">/);
  const script = (await handler(get("/playground/main.js")))!;
  assert.equal(script.headers.get("content-type"), "text/javascript; charset=utf-8");
  assert.ok((await script.text()).length > 100_000);
  const [hashed] = [...PLAYGROUND_WASM.keys()];
  const wasm = (await handler(get(`/playground/ort/${hashed}`, "HEAD")))!;
  assert.equal(wasm.status, 200);
  assert.equal(wasm.headers.get("content-type"), "application/wasm");
  assert.ok(Number(wasm.headers.get("content-length")) > 10_000_000, "the 14 MB .wasm");
  assert.equal(wasm.headers.get("cache-control"), "public, max-age=31536000, immutable");
  assert.equal(wasm.body, null);
  const example = (await handler(get("/playground/examples/credit_approval_coloured.onnx")))!;
  assert.equal(example.headers.get("content-type"), "application/octet-stream");
  assert.ok((await example.arrayBuffer()).byteLength > 1000);
  const missing = (await handler(get("/playground/nothing.js")))!;
  assert.equal(missing.status, 404);
  await missing.body?.cancel();
  const climb = (await handler(get("/playground/%2e%2e%2fdeno.json")))!;
  assert.equal(climb.status, 404);
  await climb.body?.cancel();
});

Deno.test("playgroundHandler() says how to build a site that is not there", async () => {
  for (const dir of ["file:///nonexistent/petri/dist/web/", "https://jsr.io/@petri/serve/dist/"]) {
    const handler = playgroundHandler(new URL(dir));
    const response = (await handler(get("/playground/")))!;
    assert.equal(response.status, 404);
    assert.deepEqual(await response.json(), {
      detail: "There is no playground site here: run `deno task build:web --site DIR`",
    });
  }
});

Deno.test("playgroundHandler() serves the served model's files and names them in the page", async () => {
  const onnx = await Deno.readFile("examples/rest_serving/rest_serving.onnx");
  const sidecar = await Deno.readTextFile("examples/rest_serving/rest_serving.onnx.meta.json");
  const model = {
    onnx,
    sidecar,
    onnxName: "examples/rest_serving/rest_serving.onnx",
    sidecarName: "examples/rest_serving/rest_serving.onnx.meta.json",
  };
  const meta = '<meta name="petri-serve-model" content="model/rest_serving.onnx">';
  const packaged = playgroundHandler(undefined, { model });
  const file = (await packaged(get("/playground/model/rest_serving.onnx")))!;
  assert.equal(file.status, 200);
  assert.deepEqual(new Uint8Array(await file.arrayBuffer()), onnx);
  const side = (await packaged(get("/playground/model/rest_serving.onnx.meta.json")))!;
  assert.equal(side.headers.get("content-type"), "application/json");
  assert.equal(await side.text(), sidecar);
  assert.ok((await (await packaged(get("/playground/")))!.text()).includes(meta));
  // The example stays where it was; without a model there is no model and no tag.
  const example = (await packaged(get("/playground/examples/credit_approval_coloured.onnx")))!;
  assert.equal(example.status, 200);
  await example.body?.cancel();
  const plain = playgroundHandler();
  assert.ok(!(await (await plain(get("/playground/")))!.text()).includes("petri-serve-model"));
  const none = (await plain(get("/playground/model/rest_serving.onnx")))!;
  assert.equal(none.status, 404);
  await none.body?.cancel();
  // A built site names the served model too.
  await withSite(async (dir) => {
    const site = playgroundHandler(dir, { model });
    const page = await (await site(get("/playground/index.html")))!.text();
    assert.equal(page, `<!doctype html>${meta}<title>x</title>`);
    const served = (await site(get("/playground/model/rest_serving.onnx")))!;
    assert.equal(served.headers.get("content-length"), String(onnx.length));
    await served.body?.cancel();
  });
});

Deno.test("playgroundHandler() with a directory serves no file through a link that leads out of it", async () => {
  await withSite(async (dir) => {
    const outside = await Deno.makeTempDir({ prefix: "petri-outside-" });
    try {
      await Deno.writeTextFile(`${outside}/secret.txt`, "secret");
      await Deno.symlink("/etc/passwd", `${dir}/passwd`);
      await Deno.symlink(`${outside}/secret.txt`, `${dir}/secret.txt`);
      await Deno.symlink(outside, `${dir}/elsewhere`);
      await Deno.symlink(`${dir}/main.js`, `${dir}/alias.js`);
      await Deno.symlink(`${dir}/ort`, `${dir}/ort2`);
      const handler = playgroundHandler(dir);
      for (
        const path of [
          "/playground/passwd",
          "/playground/secret.txt",
          "/playground/elsewhere/secret.txt",
        ]
      ) {
        const response = (await handler(get(path)))!;
        assert.equal(response.status, 404, path);
        assert.deepEqual(await response.json(), { detail: "Not Found" });
      }
      // A link that stays inside is followed.
      const alias = (await handler(get("/playground/alias.js")))!;
      assert.equal(alias.status, 200);
      assert.equal(await alias.text(), "export {};");
      const wasm = (await handler(get("/playground/ort2/a.wasm")))!;
      assert.equal(wasm.status, 200);
      await wasm.body?.cancel();
    } finally {
      await Deno.remove(outside, { recursive: true });
    }
  });
});

Deno.test("playgroundHandler() gives each packaged file its file's time as Last-Modified, the same in every instance", async () => {
  const [one, two] = [playgroundHandler(), playgroundHandler()];
  for (
    const [path, file] of [
      ["main.js", "../../../web/build/main.js.txt"],
      ["index.html", "../../../web/index.html"],
      [
        "examples/credit_approval_coloured.onnx.meta.json",
        "../../../examples/credit_approval_coloured/credit_approval_coloured.onnx.meta.json",
      ],
    ]
  ) {
    const mtime = (await Deno.stat(new URL(file!, import.meta.url))).mtime!;
    const expected = new Date(Math.floor(mtime.getTime() / 1000) * 1000).toUTCString();
    const first = (await one(get(`/playground/${path}`)))!;
    await first.body?.cancel();
    assert.equal(first.headers.get("last-modified"), expected, path);
    await new Promise((resolve) => setTimeout(resolve, 1100)); // a later instance, a later second
    const since = (await two(
      new Request(`http://127.0.0.1/playground/${path}`, {
        headers: { "if-modified-since": expected },
      }),
    ))!;
    assert.equal(since.status, 304, path);
    assert.equal(since.headers.get("last-modified"), expected, path);
  }
});
