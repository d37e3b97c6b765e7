/**
 * The layered layout used for large nets: every node is placed, boxes of a rank never overlap,
 * arcs run left to right except where a cycle turns back (and those bend), nodes without arcs
 * fill the emptiest ranks, and a 300-place net stays a few thousand pixels on each side (dagre
 * drew it 13,500 px tall). `layoutNet` picks it above 60 nodes and turns it top to bottom.
 *
 * @module
 */

import assert from "node:assert/strict";
import { layeredLayout } from "../../web/layered_layout.ts";
import { DAGRE_MAX_NODES, LABEL_LINE, layoutNet } from "../../web/layout.ts";
import { layeredModel } from "../../bench/layered_net.ts";
import { wideModel } from "../../bench/wide_net.ts";

const SPACING = { nodesep: 16, ranksep: 56, margin: 12 };

Deno.test("layeredLayout() places every node without overlaps, arcs left to right", () => {
  const keys = Array.from({ length: 12 }, (_, i) => `n${i}`);
  const nodes = keys.map((key, i) => ({ key, width: 20 + i, height: 30 + (i % 3) * 10 }));
  const edges = [
    ["n0", "n1"],
    ["n0", "n2"],
    ["n1", "n3"],
    ["n2", "n3"],
    ["n3", "n4"],
    ["n4", "n5"],
    ["n5", "n6"],
    ["n2", "n6"],
    ["n6", "n3"], // n6 -> n3 closes a cycle
    ["n7", "n6"],
    ["n8", "n9"],
  ].map(([v, w]) => ({ v: v!, w: w! }));
  const drawing = layeredLayout(nodes, edges, SPACING);
  assert.equal(drawing.nodes.size, 12);
  const at = (key: string) => drawing.nodes.get(key)!;
  edges.forEach((e, i) => {
    if (drawing.bends[i]) return;
    assert.ok(at(e.w).x > at(e.v).x, `${e.v} -> ${e.w} runs left to right`);
  });
  assert.equal(drawing.bends.filter(Boolean).length, 1, "only the cycle's arc bends");
  assert.ok(drawing.bends[8], "n6 -> n3 bends");
  // n7 feeds n6 only: it sits in the rank just before n6.
  assert.ok(at("n7").x < at("n6").x);
  // Boxes of the same rank do not overlap.
  const byX = Map.groupBy(nodes, (n) => at(n.key).x);
  for (const rank of byX.values()) {
    const sorted = [...rank].sort((a, b) => at(a.key).y - at(b.key).y);
    for (let i = 1; i < sorted.length; i++) {
      const [a, b] = [sorted[i - 1]!, sorted[i]!];
      const gap = at(b.key).y - b.height / 2 - (at(a.key).y + a.height / 2);
      assert.ok(gap >= SPACING.nodesep - 1e-9, `${a.key} and ${b.key} are ${gap} apart`);
    }
  }
  for (const node of nodes) {
    const { x, y } = at(node.key);
    assert.ok(x - node.width / 2 >= 0 && x + node.width / 2 <= drawing.width);
    assert.ok(y - node.height / 2 >= 0 && y + node.height / 2 <= drawing.height);
  }
  // n10 and n11 have no arcs: they go to the emptiest ranks, not all to the first.
  const first = Math.min(...nodes.map((n) => at(n.key).x));
  assert.ok(at("n10").x !== first || at("n11").x !== first);
});

Deno.test("layoutNet() lays large nets out compactly, either way round", () => {
  const wide = wideModel().net;
  assert.ok(wide.places.length + wide.transitions.length > DAGRE_MAX_NODES);
  const net = layeredModel(300, { layers: 12 }).net;
  const across = layoutNet(net, (t) => t);
  assert.equal(across.nodes.length, 520);
  assert.ok(across.width < 4000 && across.height < 4000, `${across.width}×${across.height}`);
  const down = layoutNet(net, (t) => t, "TB");
  assert.ok(down.width < 4000 && down.height < 4000, `${down.width}×${down.height}`);
  const place = (d: typeof down, id: string) => d.nodes.find((n) => n.id === id)!;
  const arc = net.arcs[0]!;
  assert.ok(place(across, arc.to).x > place(across, arc.from).x, "left to right");
  assert.ok(place(down, arc.to).y > place(down, arc.from).y, "top to bottom");
  const bar = down.nodes.find((n) => n.kind === "transition")!;
  assert.ok(bar.width > bar.height, "top to bottom, bars lie across the flow");
  // Arcs start on their shapes (the first point lies on the source's outline); top to bottom,
  // an arc heading down starts under its source's label instead, so it never crosses it.
  for (const drawing of [across, down]) {
    const byId = new Map(drawing.nodes.map((n) => [`${n.kind}:${n.id}`, n]));
    let underLabels = 0;
    for (const edge of drawing.edges) {
      const from = byId.get(`place:${edge.from}`) ?? byId.get(`transition:${edge.from}`)!;
      const [p, next] = [edge.points[0]!, edge.points[1]!];
      const labelBottom = from.y + from.height / 2 + LABEL_LINE;
      if (drawing === down && p.x === from.x && p.y > labelBottom) {
        assert.ok(next.y > p.y, `${edge.from} -> ${edge.to} heads down from under the label`);
        underLabels++;
        continue;
      }
      const inside = from.kind === "place"
        ? Math.abs(Math.hypot(p.x - from.x, p.y - from.y) - from.width / 2) < 1e-6
        : Math.abs(p.x - from.x) <= from.width / 2 + 1e-6 &&
          Math.abs(p.y - from.y) <= from.height / 2 + 1e-6;
      assert.ok(inside, `${edge.from} -> ${edge.to} starts on ${edge.from}`);
      if (drawing === down) assert.ok(next.y <= labelBottom + 6, `${edge.from} -> ${edge.to}`);
    }
    if (drawing === down) assert.ok(underLabels > 0.9 * drawing.edges.length, `${underLabels}`);
  }
});
