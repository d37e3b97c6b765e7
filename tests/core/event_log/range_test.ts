/**
 * Range shards ({@link openTraceRange}): the traces of N shards, in order, are the traces of
 * the whole file, and shard I+1 starts where shard I ended, for every conformance log (XES,
 * JSON and JSONL) and N = 1, 2, 3, 7, 64; and on adversarial logs cut at every byte (N = the
 * file's size): range edges inside attribute values, comments, CDATA sections, processing
 * instructions, strings with escaped quotes and brackets, multi-byte UTF-8 characters, blank
 * lines. With a look-behind too short to see where a comment began, a shard may start wrong;
 * then the chain of boundaries breaks, which `merge` refuses, and never silently.
 *
 * @module
 */

import assert from "node:assert/strict";
import {
  type ByteSource,
  openTraceRange,
  type SplittableFormat,
  UnsplittableLog,
} from "../../../core/event_log/range.ts";
import { readTraces } from "../../../core/event_log/read.ts";
import { TraceReadError } from "../../../core/event_log/errors.ts";
import { CONFORMANCE, RECORDED_MODELS } from "../../conformance/fixtures.ts";
import { bytesOf, plain, type PlainTrace, random, streamOf } from "./helpers.ts";

/** A source over `bytes` that hands out chunks of pseudo-random sizes (1 to 64 bytes or more). */
function chunkedSource(bytes: Uint8Array, seed = 1, big = false): ByteSource {
  const next = random(seed);
  return {
    size: bytes.length,
    read: (start) =>
      streamOf(bytes.subarray(start), () => 1 + Math.floor(next() * (big ? 9000 : 64))),
  };
}

async function whole(bytes: Uint8Array, format: SplittableFormat): Promise<PlainTrace[]> {
  const traces = readTraces(() => streamOf(bytes), { name: `log.${format}`, format });
  return (await Array.fromAsync(traces)).map(plain);
}

interface Shards {
  readonly traces: PlainTrace[];
  /** Whether every shard started where the one before ended, the first at the first trace. */
  readonly chained: boolean;
}

async function shards(
  source: ByteSource,
  format: SplittableFormat,
  count: number,
  lookBehind?: number,
): Promise<Shards> {
  const traces: PlainTrace[] = [];
  let previousEnd: number | undefined;
  let chained = true;
  for (let index = 0; index < count; index++) {
    const range = await openTraceRange(source, { format, index, count, lookBehind });
    if (previousEnd !== undefined && range.start !== previousEnd) chained = false;
    try {
      for await (const trace of range.traces()) traces.push(plain(trace));
    } catch (error) {
      // A shard misled into starting inside a trace fails, saying so; the run fails.
      if (!(error instanceof TraceReadError)) throw error;
      assert.match(error.message, /was found by scanning from byte \d+; if the log is valid/);
      return { traces, chained: false };
    }
    assert.ok(range.end !== undefined && range.end >= range.to || range.end === range.start);
    previousEnd = range.end;
  }
  if (previousEnd !== source.size) chained = false;
  return { traces, chained };
}

/** Every shard cut, N = S: each byte is a range edge. */
async function assertEveryCut(
  text: string | Uint8Array,
  format: SplittableFormat,
  lookBehinds: readonly (number | undefined)[] = [undefined],
): Promise<{ broken: number }> {
  const bytes = typeof text === "string" ? bytesOf(text) : text;
  const expected = await whole(bytes, format);
  assert.ok(expected.length >= 3, `${expected.length} traces`);
  let broken = 0;
  for (const lookBehind of lookBehinds) {
    const result = await shards(chunkedSource(bytes, 7), format, bytes.length, lookBehind);
    if (result.chained) {
      assert.deepEqual(result.traces, expected, `${format}, look-behind ${lookBehind}`);
    } else broken++;
    // Also some N below S, so ranges span several traces.
    for (const count of [2, 3, 5, 11, 29]) {
      const some = await shards(chunkedSource(bytes, count), format, count, lookBehind);
      if (some.chained) assert.deepEqual(some.traces, expected, `N = ${count}`);
      else broken++;
    }
  }
  return { broken };
}

/** A conformance log as JSONL: each entry of its JSON list on a line. */
async function jsonlOf(model: string): Promise<Uint8Array> {
  const entries = JSON.parse(
    await Deno.readTextFile(new URL(`${model}/traces.json`, CONFORMANCE)),
  ) as unknown[];
  return bytesOf(entries.map((e) => JSON.stringify(e)).join("\n") + "\n");
}

Deno.test("range shards of every conformance log hold its traces, in order, once", async () => {
  for (const model of RECORDED_MODELS) {
    for (const format of ["xes", "json", "jsonl"] as const) {
      const bytes = format === "jsonl"
        ? await jsonlOf(model)
        : await Deno.readFile(new URL(`${model}/traces.${format}`, CONFORMANCE));
      const expected = await whole(bytes, format);
      for (const count of [1, 2, 3, 7, 64]) {
        for (const lookBehind of [undefined, 200]) {
          const result = await shards(chunkedSource(bytes, count, true), format, count, lookBehind);
          assert.ok(result.chained, `${model}/${format} N = ${count}: the chain holds`);
          assert.deepEqual(result.traces, expected, `${model}/${format}, N = ${count}`);
        }
      }
    }
  }
});

const ADVERSARIAL_XES = `<?xml version="1.0" encoding="UTF-8"?>
<!DOCTYPE log [
  <!ENTITY fake "<trace><event/></trace>">
  <!-- a comment in the subset: it's "quoted" <trace> -->
]>
<?note <trace> in a processing instruction ?>
<log xes.version="1.0" xmlns:x="http://example.org/x">
  <!-- a commented-out trace: <trace><string key="amount" value="1"/></trace> -->
  <global scope="trace"><string key="amount" value="0"/></global>
  <trace>
    <string key="amount" value="5000"/>
    <string key="note" value="a &quot;quoted&quot; value with > and &lt;trace&gt; and 'single'"/>
    <string key="single" value='double " inside single, and > too'/>
    <string key="unicode" value="été 日本 🚀 — ok"/>
    <event><string key="concept:name" value="approve loan"/></event>
  </trace>
  <trace><string key="amount" value="12000"/><![CDATA[ <trace> in CDATA ]]]]><![CDATA[> ]]>
    <event><string key="concept:name" value="decline loan"/>
      <container key="box"><trace><string key="nested" value="not a trace"/></trace></container>
    </event>
    <?pi <trace> ?>
  </trace>
  <!-- between traces: </trace><trace> -- no, "--" is not allowed; this is -->
  <x:trace><string key="amount" value="7"/><event><string key="concept:name" value="é"/></event></x:trace>
  <trace/>
  <trace
     ><string key="amount" value="9"/></trace>
  <trace><string key="multi&#10;line" value="line&#10;break"/></trace>
</log>
`.replace('-- no, "--" is not allowed; this is', "not allowed to hold two dashes; this is");

Deno.test("XES range shards cut at every byte of an adversarial log", async () => {
  await assertEveryCut(ADVERSARIAL_XES, "xes");
});

Deno.test("XES: a short look-behind may start a shard inside a comment, and the chain shows it", async () => {
  // A comment longer than the look-behind, holding trace markup: shards whose range starts
  // inside it may mistake the markup for traces; the chain of boundaries then breaks.
  const log =
    `<log>\n<trace><string key="amount" value="1"/></trace>\n<!-- ${
      '<trace><string key="amount" value="666"/></trace> '.repeat(6)
    }-->\n<trace><string key="amount" value="2"/></trace>\n` +
    `<trace><string key="amount" value="3"/></trace>\n</log>\n`;
  const { broken } = await assertEveryCut(log, "xes", [undefined, 8]);
  assert.ok(broken > 0, "some cut inside the comment was detected");
  // With the default look-behind (64 KiB, more than the log) every cut is right.
  assert.equal((await assertEveryCut(log, "xes")).broken, 0);
});

function adversarialJson(pretty: boolean): string {
  const entries = [
    { attributes: { amount: "5000", note: 'braces } { ] [ , and "quotes" \\" and \\\\' } },
    {
      attributes: { amount: 12000, flag: true, none: null, nested: { a: [1, { b: "}, {" }] } },
      events: [{ name: "approve loan", attributes: { who: "Ann", list: [{ x: 1 }, { y: 2 }] } }],
    },
    { attributes: { unicode: "été 日本 🚀", escaped: "\u0001\n\t/" }, events: ["decline loan"] },
    { events: [] },
    { attributes: { events: "a key named events" }, events: ["a", "b", { name: "c" }] },
    {
      attributes: { amount: "7" },
      events: [{ name: "x", attributes: { events: [{ name: "y" }] } }],
    },
  ].map((e) => ("events" in e ? e : { ...e, events: ["approve loan"] }));
  return pretty ? JSON.stringify(entries, null, 2) + "\n" : JSON.stringify(entries);
}

Deno.test("JSON range shards cut at every byte of adversarial lists, pretty and on one line", async () => {
  for (const pretty of [true, false]) {
    const { broken } = await assertEveryCut(adversarialJson(pretty), "json", [undefined, 16]);
    // Only the short look-behind may start a shard inside an entry's nested objects.
    assert.ok(broken >= 0);
    assert.equal((await assertEveryCut(adversarialJson(pretty), "json")).broken, 0);
  }
});

Deno.test("JSONL range shards cut at every byte: blank lines, CRLF, escapes, UTF-8", async () => {
  const lines = JSON.parse(adversarialJson(false)) as unknown[];
  const text = "\n  \n" + lines.map((l, i) => JSON.stringify(l) + (i % 2 ? "\r\n" : "\n\n \t\n"))
    .join("");
  assert.equal((await assertEveryCut(text, "jsonl", [undefined, 1])).broken, 0);
});

Deno.test("a range shard names its part of the log in messages", async () => {
  // Traces start at bytes 6, 15, 24 and 33; shard 1 of 2 holds bytes 32 to 63.
  const log = bytesOf(`<log>\n<trace/>\n<trace/>\n<trace/>\n<trace>\n\n<oops></trace>\n</log>\n`);
  const range = await openTraceRange(chunkedSource(log), {
    format: "xes",
    index: 1,
    count: 2,
    name: "log.xes",
  });
  assert.equal(range.start, 33);
  await assert.rejects(Array.fromAsync(range.traces()), (error: Error) => {
    // Lines count from the shard's first line (the one holding byte 33).
    assert.match(error.message, /^log\.xes \(shard 1\/2, from byte 33\): malformed XML at line 3,/);
    return true;
  });
});

Deno.test("an XES log in UTF-16 cannot be split", async () => {
  const log = bytesOf(`<?xml version="1.0" encoding="UTF-16"?><log><trace/></log>`);
  await assert.rejects(
    openTraceRange(chunkedSource(log), { format: "xes", index: 0, count: 2, name: "u.xes" }),
    (error: Error) => error instanceof UnsplittableLog && /UTF-16/.test(error.message),
  );
});
