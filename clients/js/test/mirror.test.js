// The shared mirror scenario (clients/conformance/mirror-scenario.jsonl, see its README): after
// every event the mirror equals the daemon's window (view.get's elements) and its epoch is the view's.
// Then a subscriber that falls behind gets a view.resync, which the mirror takes in. Throughout, every
// onChange's {entered, changed, left} is exact: applied to a copy of the elements before, it gives
// the elements after (also for random deltas, resets and deletes without a daemon).
import { test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { isDeepStrictEqual } from "node:util";
import { Mirror, elementKey } from "../src/index.js";
import { Daemon, ROOT, waitFor } from "../testing/daemon.js";
import { apiRequest } from "../testing/transcripts.js";

const SCENARIO = path.join(ROOT, "clients", "conformance", "mirror-scenario.jsonl");

/**
 * Holds every onChange of `mirror` to its promise, from the elements it has now: entered keys were
 * not there, changed and left ones were, and the change applied to a copy of the elements before
 * gives the elements after. Problems are collected (a listener that throws would stop follow()).
 */
function checkChanges(mirror) {
  let before = new Map(mirror.map);
  const report = { problems: [], changes: 0, entered: 0, changed: 0, left: 0 };
  mirror.onChange((message, m, outcome, change) => {
    const copy = new Map(before);
    for (const k of change.left) {
      if (!copy.has(elementKey(k))) report.problems.push(`${outcome}: ${elementKey(k)} left but was not there`);
      copy.delete(elementKey(k));
    }
    for (const e of change.entered) {
      if (before.has(elementKey(e))) report.problems.push(`${outcome}: ${elementKey(e)} entered but was there`);
      copy.set(elementKey(e), e);
    }
    for (const e of change.changed) {
      if (!before.has(elementKey(e))) report.problems.push(`${outcome}: ${elementKey(e)} changed but was not there`);
      // After a reset the mirror compares: changed means new attributes (an invalidation's are the daemon's word).
      else if (outcome === "reset" && isDeepStrictEqual(before.get(elementKey(e)), e)) report.problems.push(`reset: ${elementKey(e)} changed but is the same`);
      copy.set(elementKey(e), e);
    }
    try {
      assert.deepEqual(copy, m.map);
    } catch (error) {
      report.problems.push(`${outcome} at epoch ${m.epoch}: the change applied to the elements before is not the elements after\n${error.message}`);
    }
    before = new Map(m.map);
    report.changes++;
    report.entered += change.entered.length;
    report.changed += change.changed.length;
    report.left += change.left.length;
  });
  return report;
}

for (const [label, flags] of [["", []], [" (windows cut to 7 elements: windowTruncated)", ["--set", "max-window-elements=7"]]]) test("mirror scenario: the mirror equals view.get after every event" + label, async (t) => {
  const daemon = await new Daemon(flags).start();
  try {
    const driver = await daemon.client();
    const subscriber = await daemon.client();
    const lines = fs.readFileSync(SCENARIO, "utf8").split("\n").filter((l) => l.trim());
    const requests = lines.map((line) => apiRequest(Buffer.from(line)));
    assert.ok(requests.every(Boolean), "every scenario line is a request the client writes as it is");
    await driver.call(requests[0].method, requests[0].params, { id: requests[0].id });
    const view = requests[0].params.view;

    const mirror = new Mirror();
    let events = 0, truncated = 0;
    mirror.onChange(() => events++);
    const subscription = await subscriber.subscribe(view);
    const following = mirror.follow(subscription);
    const changes = checkChanges(mirror);
    const compare = async (where) => {
      const snapshot = await driver.view.get({ view });
      await subscriber.daemon.sync();
      await waitFor(() => subscription.queue.length === 0 && mirror.epoch === snapshot.epoch, { what: "the mirror at epoch " + snapshot.epoch + " " + where });
      assert.deepEqual(mirror.elements(), snapshot.elements, where);
      assert.deepEqual(mirror.window, snapshot.window, where);
      assert.deepEqual(mirror.contentSize, snapshot.contentSize, where);
      assert.equal(mirror.windowTruncated, snapshot.windowTruncated === true, where);
      assert.deepEqual(changes.problems, [], where);
      if (mirror.windowTruncated) truncated++;
    };
    await compare("after subscribing");
    let applied = 0, refused = 0;
    for (let i = 1; i < requests.length; i++) {
      const { method, params, id } = requests[i];
      try {
        const result = await driver.call(method, params, { id });
        if (!result.dryRun) applied++;
      } catch (error) {
        assert.equal(typeof error.name, "string");
        refused++;
      }
      await compare(`after line ${i + 1} (${method})`);
    }
    assert.equal(events, applied, "one event per applied mutation");
    if (flags.length) assert.ok(truncated > 0, "some windows were cut");
    assert.ok(changes.entered > 0 && changes.changed > 0 && changes.left > 0, "the scenario enters, changes and removes elements");
    t.diagnostic(`${requests.length - 1} requests: ${applied} applied (${events} events, mirror checked after each, ${truncated} cut windows), ${refused} refused; ` +
      `changes: ${changes.entered} entered, ${changes.changed} changed, ${changes.left} left`);
    await subscription.unsubscribe();
    await following;
    await driver.close();
    await subscriber.close();
  } finally {
    await daemon.dispose();
  }
});

test("a subscriber that falls behind gets view.resync and the mirror converges", async (t) => {
  const daemon = await new Daemon(["--set", "output-cap=4096"]).start();
  try {
    const driver = await daemon.client();
    const subscriber = await daemon.client();
    const items = Array.from({ length: 40 }, (_, i) => ({ id: "i" + i }));
    await driver.view.create({ view: "photos", strategy: "flow", params: { itemSize: { width: 100, height: 100 } },
      viewport: { width: 320, height: 200 }, sections: [{ id: "s", items }] });
    const mirror = new Mirror();
    const outcomes = [];
    mirror.onChange((message, m, outcome) => outcomes.push(outcome));
    const subscription = await subscriber.subscribe("photos");
    const following = mirror.follow(subscription);
    const changes = checkChanges(mirror);
    subscriber.transport.socket.pause();
    for (let i = 0; i < 2000; i++) driver.notify("view.scroll", { view: "photos", offset: { x: 0, y: (i * 37) % 1000 } });
    const last = await driver.view.scroll({ view: "photos", offset: { x: 0, y: 555 } });
    subscriber.transport.socket.resume();
    await subscriber.daemon.sync();
    await waitFor(() => mirror.epoch === last.epoch && subscription.queue.length === 0, { what: "the mirror to catch up" });
    assert.ok(outcomes.includes("reset"), "a view.resync arrived and reset the mirror");
    const snapshot = await driver.view.get({ view: "photos" });
    assert.deepEqual(mirror.elements(), snapshot.elements);
    assert.deepEqual(changes.problems, []);
    t.diagnostic(`${outcomes.filter((o) => o === "applied").length} events applied, ${outcomes.filter((o) => o === "reset").length} resync`);
    await subscription.unsubscribe();
    await following;
    await driver.close();
    await subscriber.close();
  } finally {
    await daemon.dispose();
  }
});

test("onChange's entered, changed and left are exact for random deltas, resets and deletes", () => {
  // A small pool of keys, so deltas overlap: an element that leaves and enters in one delta, a
  // delta entering what is there, leaving what is not, changing what is not there.
  let seed = 37; // mulberry32: the same sequence on every run
  const random = () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let x = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    x = (x + Math.imul(x ^ (x >>> 7), 61 | x)) ^ x;
    return ((x ^ (x >>> 14)) >>> 0) / 4294967296;
  };
  const pick = (n) => Math.floor(random() * n);
  const keys = [...Array.from({ length: 8 }, (_, i) => ["cell", "c" + i]), ["header", "s0"], ["footer", "s0"], ["header", "s1"]];
  const element = ([kind, id]) => ({ kind, id, section: 0, item: 0, frame: { x: pick(3), y: pick(3), width: 1, height: 1 }, zIndex: 0, alpha: 1, hidden: false });
  const some = () => keys.filter(() => random() < 0.3);
  const snapshot = (epoch) => ({ view: "v", epoch, window: { x: 0, y: 0, width: 9, height: 9 }, contentSize: { width: 9, height: 9 },
    viewport: { width: 9, height: 9, offset: { x: 0, y: 0 } }, elements: some().map(element) });
  const mirror = new Mirror().reset(snapshot(0));
  const report = checkChanges(mirror);
  const outcomes = { applied: 0, reset: 0, deleted: 0 };
  for (let step = 0; step < 3000; step++) {
    const roll = random();
    let message;
    if (roll < 0.85) {
      message = { event: "view.invalidated", params: { view: "v", epoch: mirror.epoch + 1, window: mirror.window, contentSize: mirror.contentSize,
        contentOffset: { x: 0, y: 0 }, left: some().map(([kind, id]) => ({ kind, id })), entered: some().map(element), changed: some().map(element) } };
    } else if (roll < 0.97) {
      message = { event: "view.resync", params: { view: "v", skipped: 3, snapshot: snapshot(mirror.epoch + 5) } };
    } else {
      message = { event: "view.deleted", params: { view: "v" } };
    }
    const outcome = mirror.handle(message);
    outcomes[outcome]++;
    if (outcome === "deleted") outcomes[mirror.handle({ event: "view.resync", params: { view: "v", skipped: 0, snapshot: snapshot(0) } })]++;
  }
  assert.deepEqual(report.problems.slice(0, 3), []);
  assert.equal(report.changes, outcomes.applied + outcomes.reset + outcomes.deleted);
  assert.ok(outcomes.applied > 2000 && outcomes.reset > 100 && outcomes.deleted > 20, JSON.stringify(outcomes));
  assert.ok(report.entered && report.changed && report.left);
});
