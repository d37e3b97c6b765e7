/**
 * Tests of {@link readXesTraces}: typed attributes, what is ignored, namespaces, gzip,
 * encodings, chunk boundaries and malformed input.
 *
 * @module
 */

import assert from "node:assert/strict";
import { readXesTraces } from "../../../core/event_log/xes/read.ts";
import { TraceReadError } from "../../../core/event_log/errors.ts";
import { collect, gzip, random, rejection, streamOf } from "./helpers.ts";

const LOG = `<?xml version="1.0" encoding="UTF-8" ?>
<log xes.version="1.0" xmlns="http://www.xes-standard.org/">
  <extension name="Concept" prefix="concept" uri="http://www.xes-standard.org/concept.xesext"/>
  <global scope="trace"><string key="concept:name" value="__INVALID__"/></global>
  <classifier name="Activity" keys="concept:name"/>
  <string key="log-level" value="ignored"/>
  <trace>
    <string key="concept:name" value="case-1"/>
    <int key="amount" value="5000"/>
    <float key="risk" value="0.9"/>
    <boolean key="vip" value="true"/>
    <date key="time:timestamp" value="2024-01-01T00:00:00.000+00:00"/>
    <id key="uid" value="6f1c"/>
    <string key="no-value"/>
    <string value="no key"/>
    <list key="tags"><values><string key="t" value="nested"/></values></list>
    <container key="box"><string key="inner" value="nested"/></container>
    <string key="parent" value="p"><string key="child" value="nested"/></string>
    <event>
      <string key="concept:name" value="approve loan"/>
      <string key="org:resource" value="Ann"/>
      <int key="cost" value="12"><string key="currency" value="EUR"/></int>
    </event>
    <event>
      <string key="org:resource" value="Bob"/>
    </event>
    <event>
      <string key="concept:name" value="no such activity"/>
    </event>
  </trace>
  <trace/>
  <trace>
    <string key="__proto__" value="x"/>
    <string key="amount" value="1"/>
    <string key="amount" value="2"/>
  </trace>
</log>
`;

const EXPECTED = [
  {
    attributes: [
      ["concept:name", "case-1"],
      ["amount", "5000"],
      ["risk", "0.9"],
      ["vip", "true"],
      ["time:timestamp", "2024-01-01T00:00:00.000+00:00"],
      ["uid", "6f1c"],
      ["no-value", ""],
      ["parent", "p"],
    ],
    events: [
      {
        name: "approve loan",
        attributes: [["concept:name", "approve loan"], ["org:resource", "Ann"], ["cost", "12"]],
      },
      { name: "", attributes: [["org:resource", "Bob"]] },
      { name: "no such activity", attributes: [["concept:name", "no such activity"]] },
    ],
  },
  { attributes: [], events: [] },
  { attributes: [["__proto__", "x"], ["amount", "2"]], events: [] },
];

Deno.test("readXesTraces() reads typed trace and event attributes and ignores the rest", async () => {
  assert.deepEqual(await collect(readXesTraces(streamOf(LOG), { name: "traces.xes" })), EXPECTED);
});

Deno.test("readXesTraces() gives the same traces however the bytes are chunked", async (t) => {
  for (const size of [1, 2, 3, 7, 64]) {
    await t.step(`chunks of ${size} bytes`, async () => {
      assert.deepEqual(await collect(readXesTraces(streamOf(LOG, size))), EXPECTED);
    });
  }
  await t.step("random chunks", async () => {
    const next = random(7);
    const traces = await collect(readXesTraces(streamOf(LOG, () => Math.floor(next() * 40))));
    assert.deepEqual(traces, EXPECTED);
  });
});

Deno.test("readXesTraces() reads a gzipped log", async () => {
  const bytes = await gzip(LOG);
  const traces = await collect(readXesTraces(streamOf(bytes, 100), { gzip: true }));
  assert.deepEqual(traces, EXPECTED);
});

Deno.test("readXesTraces() accepts any namespace or none, and unicode ids", async (t) => {
  const cases: [string, string][] = [
    ["no namespace", `<log><trace><string key="k" value="v"/></trace></log>`],
    [
      "prefixed",
      `<x:log xmlns:x="http://www.xes-standard.org/"><x:trace><x:string key="k" value="v"/>` +
      `</x:trace></x:log>`,
    ],
  ];
  for (const [label, xml] of cases) {
    await t.step(label, async () => {
      assert.deepEqual(await collect(readXesTraces(streamOf(xml))), [
        { attributes: [["k", "v"]], events: [] },
      ]);
    });
  }
  await t.step("unicode", async () => {
    const xml = `<log><trace><string key="Fall-Nr. \u00fc" value="\u{1f600} &amp; &#233;"/>` +
      `<event><string key="concept:name" value="\u53d7\u7406"/></event></trace></log>`;
    assert.deepEqual(await collect(readXesTraces(streamOf(xml, 1))), [
      {
        attributes: [["Fall-Nr. \u00fc", "\u{1f600} & \u00e9"]],
        events: [{ name: "\u53d7\u7406", attributes: [["concept:name", "\u53d7\u7406"]] }],
      },
    ]);
  });
});

Deno.test("readXesTraces() honours a declared ISO-8859-1 encoding", async () => {
  const head = `<?xml version="1.0" encoding="ISO-8859-1"?><log><trace><string key="k" value="`;
  const bytes = Uint8Array.from(
    [...head, "\xe9", `"/></trace></log>`].join(""),
    (c) => c.charCodeAt(0),
  );
  assert.deepEqual(await collect(readXesTraces(streamOf(bytes))), [
    { attributes: [["k", "\u00e9"]], events: [] },
  ]);
});

Deno.test("readXesTraces() rejects bad input with a message naming file, line and column", async (t) => {
  const cases: [string, string | Uint8Array, string][] = [
    [
      "mismatched tag",
      "<log>\n<trace>\n</event></log>",
      "t.xes: malformed XML at line 3, column 8: unexpected close tag",
    ],
    ["unclosed", "<log><trace>", "t.xes: malformed XML at line 1, column 12: unclosed tag: trace"],
    ["empty", "", "t.xes: malformed XML at line 1, column 1: document must contain a root element"],
    [
      "not xml",
      "case_id,activity\n",
      "t.xes: malformed XML at line 2, column 1: text data outside of root node",
    ],
    [
      "wrong root",
      "<?xml version='1.0'?>\n<events><trace/></events>",
      "t.xes: the root element is <events> (line 2), expected <log>",
    ],
    [
      "bad attribute",
      "<log>\n  <trace a=1/></log>",
      "t.xes: malformed XML at line 2, column 12: unquoted attribute value",
    ],
    [
      "invalid utf-8",
      Uint8Array.of(0x3c, 0x6c, 0x6f, 0x67, 0x3e, 0xff, 0x3c, 0x2f, 0x6c, 0x6f, 0x67, 0x3e),
      "t.xes: the text is not valid utf-8 in bytes 0-11",
    ],
    [
      "unknown encoding",
      '<?xml version="1.0" encoding="EBCDIC-XX"?><log/>',
      "t.xes: unsupported text encoding 'EBCDIC-XX'",
    ],
  ];
  for (const [label, input, message] of cases) {
    await t.step(label, async () => {
      const error = await rejection(() =>
        collect(readXesTraces(streamOf(input), { name: "t.xes" }))
      );
      assert.ok(error instanceof TraceReadError, String(error));
      assert.equal(error.message, message);
    });
  }
  await t.step("broken gzip", async () => {
    // Gzip's magic bytes, then a stream that ends before its data does.
    const broken = Uint8Array.of(0x1f, 0x8b, 0x08, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x03, 0xb3);
    const error = await rejection(() =>
      collect(readXesTraces(streamOf(broken), { name: "t.xes" }))
    );
    assert.ok(error instanceof TraceReadError);
    assert.match(error.message, /^t\.xes: cannot decompress the gzip data: /);
  });
});

Deno.test("readXesTraces() tells gzip by its magic bytes, not by the name or the option", async () => {
  const xml = '<log><trace><event><string key="concept:name" value="a"/></event></trace></log>';
  const gzipped = new Uint8Array(
    await new Response(new Blob([xml]).stream().pipeThrough(new CompressionStream("gzip")))
      .arrayBuffer(),
  );
  for (
    const [input, options] of [
      [gzipped, { name: "t.xes" }],
      [gzipped, { name: "t.xes", gzip: false }],
      [xml, { name: "t.xes.gz", gzip: true }],
    ] as const
  ) {
    const traces = await collect(readXesTraces(streamOf(input), options));
    assert.equal(traces[0]!.events[0]!.name, "a", options.name);
  }
});

Deno.test("readXesTraces() reads UTF-16, with a byte-order mark or without", async () => {
  const xml = '<?xml version="1.0" encoding="UTF-16"?><log><trace><event>' +
    '<string key="concept:name" value="été"/></event></trace></log>';
  const encode = (text: string, littleEndian: boolean) => {
    const bytes = new Uint8Array(text.length * 2);
    const view = new DataView(bytes.buffer);
    for (let i = 0; i < text.length; i++) view.setUint16(2 * i, text.charCodeAt(i), littleEndian);
    return bytes;
  };
  for (
    const [label, bytes] of [
      ["LE, BOM", encode("\uFEFF" + xml, true)],
      ["BE, BOM", encode("\uFEFF" + xml, false)],
      ["LE", encode(xml, true)],
      ["BE", encode(xml, false)],
    ] as const
  ) {
    const traces = await collect(readXesTraces(streamOf(bytes), { name: "t.xes" }));
    assert.equal(traces[0]!.events[0]!.name, "été", label);
  }
  const error = await rejection(() => collect(readXesTraces(streamOf(xml), { name: "t.xes" })));
  assert.match(error.message, /^t\.xes: its XML declaration says encoding="UTF-16" but its bytes/);
});

Deno.test("readXesTraces() yields traces before a later fault, then throws", async () => {
  const seen: number[] = [];
  const error = await rejection(async () => {
    for await (const trace of readXesTraces(streamOf("<log><trace/><trace/><oops></log>", 4))) {
      seen.push(trace.events.length);
    }
  });
  assert.deepEqual(seen, [0, 0]);
  assert.match(error.message, /^traces: malformed XML at line 1, column \d+: /);
});

Deno.test("readXesTraces() closes the file when the consumer stops early", async () => {
  const path = new URL("../../fixtures/conformance/rest_serving/traces.xes", import.meta.url);
  const file = await Deno.open(path);
  for await (const trace of readXesTraces(file.readable)) {
    assert.ok(trace.attributes.has("concept:name"));
    break;
  }
  // Closing again fails only if the reader already closed it.
  assert.throws(() => file.close(), Deno.errors.BadResource);
});
