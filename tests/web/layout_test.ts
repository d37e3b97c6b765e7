import assert from "node:assert/strict";
import { parseModelDescription } from "../../core/net/parse.ts";
import { BAR_SIZE, LABEL_LINE, type LaidNode, layoutNet, PLACE_RADIUS } from "../../web/layout.ts";

const TRIAGE = new URL(
  "../fixtures/conformance/triage_softmax_ste/model.json",
  import.meta.url,
);
const { net } = parseModelDescription(JSON.parse(await Deno.readTextFile(TRIAGE)));

Deno.test("layoutNet() lays out every place, transition, arc and inhibitor arc", () => {
  const drawing = layoutNet(net, (t) => net.labels.get(t) ?? t);
  assert.equal(drawing.nodes.filter((n) => n.kind === "place").length, net.places.length);
  assert.equal(drawing.nodes.filter((n) => n.kind === "transition").length, net.transitions.length);
  assert.equal(drawing.edges.filter((e) => e.kind === "arc").length, net.arcs.length);
  assert.equal(drawing.edges.filter((e) => e.kind === "inhibitor").length, 1);
  const inhibitor = drawing.edges.find((e) => e.kind === "inhibitor")!;
  assert.deepEqual([inhibitor.from, inhibitor.to], ["p_escalated", "t_fast"]);
  const log = drawing.nodes.find((n) => n.id === "t_log")!;
  assert.equal(log.silent, true);
  assert.equal(log.label, "audit log");
  for (const node of drawing.nodes) {
    assert.ok(node.x > 0 && node.x < drawing.width, `${node.id} lies inside the drawing`);
    assert.ok(node.y > 0 && node.y < drawing.height, `${node.id} lies inside the drawing`);
  }
});

Deno.test("layoutNet() ends arcs on the shapes' outlines and flows left to right", () => {
  const drawing = layoutNet(net, (t) => t);
  const byId = new Map(drawing.nodes.map((n) => [`${n.kind}:${n.id}`, n]));
  const node = (id: string): LaidNode => byId.get(`place:${id}`) ?? byId.get(`transition:${id}`)!;
  const onOutline = (n: LaidNode, p: { x: number; y: number }) => {
    if (n.kind === "place") return Math.abs(Math.hypot(p.x - n.x, p.y - n.y) - PLACE_RADIUS) < 1e-6;
    const dx = Math.abs(p.x - n.x) - BAR_SIZE.width / 2;
    const dy = Math.abs(p.y - n.y) - BAR_SIZE.height / 2;
    return Math.max(dx, dy) > -1e-6 && Math.max(dx, dy) < 1e-6;
  };
  for (const edge of drawing.edges) {
    const from = node(edge.from);
    const to = node(edge.to);
    assert.ok(onOutline(from, edge.points[0]!), `${edge.from} -> ${edge.to} starts on its source`);
    assert.ok(onOutline(to, edge.points.at(-1)!), `${edge.from} -> ${edge.to} ends on its target`);
  }
  assert.ok(node("p_ticket").x < node("t_intake").x);
  assert.ok(node("t_intake").x < node("p_intake").x);
});

Deno.test("layoutNet() shortens long labels for the drawing only", () => {
  const long = "a transition label far longer than the drawing should show";
  const drawing = layoutNet(net, (t) => t === "t_close" ? long : t);
  const close = drawing.nodes.find((n) => n.id === "t_close")!;
  assert.equal(close.label, long);
  assert.equal(close.shortLabel.length, 26);
  assert.ok(close.shortLabel.endsWith("…"));
});

Deno.test("layoutNet() top to bottom: arcs heading down leave under their source's label", () => {
  const drawing = layoutNet(net, (t) => net.labels.get(t) ?? t, "TB");
  const byId = new Map(drawing.nodes.map((n) => [`${n.kind}:${n.id}`, n]));
  let down = 0;
  for (const edge of drawing.edges) {
    const from = byId.get(`place:${edge.from}`) ?? byId.get(`transition:${edge.from}`)!;
    const [start, next] = [edge.points[0]!, edge.points[1]!];
    // The label hangs under the shape, one line tall and centred on it.
    const labelBottom = from.y + from.height / 2 + LABEL_LINE;
    if (next.y > labelBottom + 6) {
      assert.deepEqual(start, { x: from.x, y: labelBottom + 2 }, `${edge.from} -> ${edge.to}`);
      down++;
    }
  }
  assert.ok(down >= net.arcs.length / 2, `${down} arcs head down`);
});
