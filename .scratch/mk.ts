import { fixtureEntries, Pickle, replaceValueOf, torchZip } from "../tests/pt/pickles.ts";
const e = await fixtureEntries("paint_shop");
for (const [n, v] of [["steps1e7", new Pickle().int(10_000_000).bytes()], ["steps1000", new Pickle().int(1000).bytes()], ["sharp", new Pickle().float(1e39).bytes()]] as const) {
  const key = n === "sharp" ? "sharpness" : "num_steps";
  const pt = torchZip("paint_shop", { ...e, "data.pkl": replaceValueOf(e["data.pkl"]!, key, v) });
  await Deno.mkdir(`/tmp/i27/${n}`, { recursive: true });
  await Deno.writeFile(`/tmp/i27/${n}/model.pt`, pt);
  await Deno.copyFile("tests/fixtures/conformance/paint_shop/model.pt.meta.json", `/tmp/i27/${n}/model.pt.meta.json`);
}
