// Transitions: attributes at time t, and Web Animations keyframes, from synthetic segments and
// from the daemon's own (a flow delete, and collapsible's two-phase preStack collapse).
import { test } from "node:test";
import assert from "node:assert/strict";
import { attributesAt, elementAt, frameAt, webAnimations, Mirror, elementKey, CURVES, cubicBezier } from "../src/index.js";
import { Daemon } from "../testing/daemon.js";

const attrs = (x, y, alpha = 1, extra = {}) => ({ id: "a", kind: "cell", section: 0, item: 0, frame: { x, y, width: 100, height: 100 }, zIndex: 0, alpha, hidden: false, ...extra });

test("attributesAt: before, inside, between and after segments", () => {
  const transition = { duration: 1, segments: [
    { kind: "cell", id: "a", from: attrs(0, 0), to: attrs(100, 0), delay: 0.2, duration: 0.4 },
    { kind: "cell", id: "a", from: attrs(100, 0), to: attrs(100, 50, 0.5, { transform: { a: 2, b: 0, c: 0, d: 2, tx: 0, ty: 0 } }), delay: 0.6, duration: 0.4 },
    { kind: "cell", id: "b", from: { ...attrs(0, 0, 0), id: "b", effects: { coverAlpha: 0 } }, to: { ...attrs(0, 0, 1), id: "b", effects: { coverAlpha: 1 } }, delay: 0, duration: 0 },
  ] };
  const at = (t) => attributesAt(transition, t).get("cell\u0000a");
  assert.deepEqual(at(0).frame, { x: 0, y: 0, width: 100, height: 100 });
  assert.deepEqual(at(0.4).frame, { x: 50, y: 0, width: 100, height: 100 });
  assert.deepEqual(at(0.6).frame, { x: 100, y: 0, width: 100, height: 100 });
  const late = at(0.8);
  assert.ok(Math.abs(late.frame.y - 25) < 1e-9 && Math.abs(late.alpha - 0.75) < 1e-9 && Math.abs(late.transform.a - 1.5) < 1e-9);
  assert.deepEqual(at(5), transition.segments[1].to);
  assert.equal(attributesAt(transition, 0).get("cell\u0000b").alpha, 1, "a zero-length segment is at its end at once");
  // easing
  const eased = elementAt(transition.segments.slice(0, 1), 0.4, { easing: (p) => p * p });
  assert.equal(eased.frame.x, 25);
  // frameAt keeps unanimated elements and shows elements that left until their segments end
  const drawn = frameAt([attrs(100, 50), { ...attrs(0, 300), id: "c" }], transition, 0.4);
  assert.deepEqual(drawn.map((e) => e.id), ["a", "c", "b"]);
});

// The curves against values solved independently (bisection on the same control points), the
// table protocol/mutations.md prints and Tests/LayoutGeometryTests/AnimationCurveTests.swift checks.
const CURVE_VECTORS = {
  linear: [[0.25, 0.25], [0.5, 0.5], [0.9, 0.9]],
  easeIn: [[0.1, 0.017026609652], [0.25, 0.093464650719], [0.5, 0.315356812573], [0.75, 0.621861869175]],
  easeOut: [[0.1, 0.160572154238], [0.25, 0.378138130825], [0.5, 0.684643187427], [0.75, 0.906535349281]],
  easeInOut: [[0.1, 0.019722453548], [0.25, 0.129161931047], [0.5, 0.5], [0.75, 0.870838068953]],
};

test("curves: the protocol's four, against known values, with their CSS names", () => {
  assert.deepEqual(Object.keys(CURVES).sort(), Object.keys(CURVE_VECTORS).sort());
  for (const [name, points] of Object.entries(CURVE_VECTORS)) {
    for (const [x, y] of points) assert.ok(Math.abs(CURVES[name].ease(x) - y) < 1e-9, `${name}(${x}) = ${CURVES[name].ease(x)}, want ${y}`);
    assert.equal(CURVES[name].ease(0), 0);
    assert.equal(CURVES[name].ease(1), 1);
  }
  assert.deepEqual(Object.values(CURVES).map((c) => c.css), ["linear", "ease-in", "ease-out", "ease-in-out"]);
  assert.ok(Math.abs(cubicBezier(0.25, 0.1, 0.25, 1)(0.5) - 0.8024033877399112) < 1e-6, "CSS ease at 0.5");
});

test("a segment plays on its own curve; an easing overrides it; webAnimations names it", () => {
  const segment = { kind: "cell", id: "a", from: attrs(0, 0), to: attrs(100, 0), delay: 0, duration: 1, curve: "easeInOut" };
  assert.ok(Math.abs(elementAt([segment], 0.25).frame.x - 12.9161931047) < 1e-6, "eased in and out");
  assert.equal(elementAt([{ ...segment, curve: "linear" }], 0.25).frame.x, 25);
  assert.equal(elementAt([segment], 0.25, { easing: "linear" }).frame.x, 25, "the caller's easing wins");
  assert.throws(() => elementAt([{ ...segment, curve: "wobbly" }], 0.5), /unknown curve/);
  const [a] = webAnimations({ duration: 1, segments: [segment] });
  assert.equal(a.keyframes[0].easing, "ease-in-out");
  assert.equal(webAnimations({ duration: 1, segments: [segment] }, { easing: "ease-out" })[0].keyframes[0].easing, "ease-out");
});

test("webAnimations: keyframes at offsets of the element's span, delays and fill", () => {
  const transition = { duration: 1, segments: [
    { kind: "cell", id: "a", from: attrs(0, 0), to: attrs(100, 0), delay: 0.2, duration: 0.4 },
    { kind: "cell", id: "a", from: attrs(100, 0), to: attrs(100, 50, 0, { effects: { titleScale: 0.5 } }), delay: 0.6, duration: 0.2 },
  ] };
  const [a] = webAnimations(transition, { origin: { x: 0, y: 10 }, effects: true });
  assert.equal(a.key, "cell\u0000a");
  assert.deepEqual(a.options, { duration: 600, delay: 200, endDelay: 200, fill: "both", easing: "linear" });
  const offsets = a.keyframes.map((k) => k.offset);
  [0, 4 / 6, 4 / 6, 1].forEach((want, i) => assert.ok(Math.abs(offsets[i] - want) < 1e-12, "offset " + i));
  assert.ok(offsets.every((o, i) => i === 0 || o >= offsets[i - 1]), "offsets never decrease");
  assert.deepEqual(a.keyframes[0], { left: "0px", top: "-10px", width: "100px", height: "100px", opacity: 1,
    transform: "matrix(1, 0, 0, 1, 0, 0)", zIndex: "0", offset: 0, easing: "linear" });
  assert.equal(a.keyframes[3].opacity, 0);
  assert.equal(a.keyframes[3]["--titleScale"], "0.5");
  assert.deepEqual(webAnimations({ duration: 0, segments: [] }), []);
});

test("the daemon's transitions: a flow delete and collapsible's preStack collapse", async () => {
  const daemon = await new Daemon().start();
  try {
    const client = await daemon.client();
    await client.view.create({ view: "f", strategy: "flow", params: { itemSize: { width: 100, height: 100 } }, viewport: { width: 320, height: 400 },
      sections: [{ id: "s", items: ["a", "b", "c", "d", "e"].map((id) => ({ id })) }] });
    const mirror = new Mirror().reset(await client.view.get({ view: "f" }));
    const before = new Map(mirror.elements().map((e) => [elementKey(e), e]));
    const result = await client.view.update({ view: "f", animated: true, updates: [{ op: "deleteItems", ids: ["a"] }] });
    assert.ok(mirror.apply(result));
    const { transition } = result;
    assert.ok(transition.segments.length > 0);
    const start = attributesAt(transition, 0), end = attributesAt(transition, transition.duration);
    for (const s of transition.segments) {
      const key = elementKey(s);
      if (before.has(key) && mirror.map.has(key)) assert.deepEqual(start.get(key).frame, before.get(key).frame, "starts where it was");
      if (mirror.map.has(key)) assert.deepEqual(end.get(key), mirror.map.get(key), "ends where the mirror has it");
      else assert.equal(end.get(key).alpha, 0, "a deleted element fades out");
    }
    const animations = webAnimations(transition);
    assert.equal(animations.length, new Set(transition.segments.map(elementKey)).size);
    for (const a of animations) assert.equal(a.options.delay + a.options.duration + a.options.endDelay, transition.duration * 1000);

    const items = ["p", "q", "r", "s", "t", "u"].map((id) => ({ id }));
    await client.view.create({ view: "c", strategy: "collapsible", params: { transition: "preStack" }, viewport: { width: 320, height: 400 },
      sections: [{ id: "s", items }] });
    await client.view.select({ view: "c", ids: ["q", "r", "s"] });
    const collapse = (await client.view.configure({ view: "c", animated: true, params: { collapsed: true } })).transition;
    const delayed = collapse.segments.filter((s) => s.delay > 0);
    assert.ok(delayed.length > 0, "preStack plays in phases");
    // Phase 1 (onto the stack) runs linear, as the seed's keyframes do; the settling phase eases.
    const stackingTime = Math.min(...collapse.segments.filter((s) => s.curve === "easeInOut").map((s) => s.delay));
    assert.ok(collapse.segments.some((s) => s.curve === "linear"), "phase 1 is linear");
    for (const s of collapse.segments) assert.equal(s.curve, s.delay < stackingTime ? "linear" : "easeInOut", JSON.stringify([s.id, s.delay]));
    for (const a of webAnimations(collapse)) {
      assert.ok(a.keyframes.every((k, i) => i === 0 || k.offset >= a.keyframes[i - 1].offset), "offsets never decrease");
      assert.ok(Math.abs(a.options.delay + a.options.duration + a.options.endDelay - collapse.duration * 1000) < 1e-6);
    }
    const mid = attributesAt(collapse, collapse.duration / 2);
    assert.equal(mid.size, new Set(collapse.segments.map(elementKey)).size);
    await client.close();
  } finally {
    await daemon.dispose();
  }
});
