import { fixtureEntries } from "../tests/pt/pickles.ts";
const e = await fixtureEntries("paint_shop");
const p = e["data.pkl"]!;
const needle = new TextEncoder().encode("num_steps");
for (let i = 0; i < p.length; i++) {
  if (needle.every((b, j) => p[i + j] === b)) console.log(i, [...p.subarray(i - 5, i + 20)].map((b) => b.toString(16)).join(" "));
}
const n2 = new TextEncoder().encode("sharpness");
for (let i = 0; i < p.length; i++) {
  if (n2.every((b, j) => p[i + j] === b)) console.log("sh", i, [...p.subarray(i - 5, i + 25)].map((b) => b.toString(16)).join(" "));
}
