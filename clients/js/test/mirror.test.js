// The shared mirror scenario (clients/conformance/mirror-scenario.jsonl, see its README): after
// every event the mirror equals the daemon's window (view.get's elements) and its epoch is the view's.
// Then a subscriber that falls behind gets a view.resync, which the mirror takes in.
import { test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { Mirror } from "../src/index.js";
import { Daemon, ROOT, waitFor } from "../testing/daemon.js";
import { apiRequest } from "../testing/transcripts.js";

const SCENARIO = path.join(ROOT, "clients", "conformance", "mirror-scenario.jsonl");

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
    const compare = async (where) => {
      const snapshot = await driver.view.get({ view });
      await subscriber.daemon.sync();
      await waitFor(() => subscription.queue.length === 0 && mirror.epoch === snapshot.epoch, { what: "the mirror at epoch " + snapshot.epoch + " " + where });
      assert.deepEqual(mirror.elements(), snapshot.elements, where);
      assert.deepEqual(mirror.window, snapshot.window, where);
      assert.deepEqual(mirror.contentSize, snapshot.contentSize, where);
      assert.equal(mirror.windowTruncated, snapshot.windowTruncated === true, where);
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
    t.diagnostic(`${requests.length - 1} requests: ${applied} applied (${events} events, mirror checked after each, ${truncated} cut windows), ${refused} refused`);
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
    subscriber.transport.socket.pause();
    for (let i = 0; i < 2000; i++) driver.notify("view.scroll", { view: "photos", offset: { x: 0, y: (i * 37) % 1000 } });
    const last = await driver.view.scroll({ view: "photos", offset: { x: 0, y: 555 } });
    subscriber.transport.socket.resume();
    await subscriber.daemon.sync();
    await waitFor(() => mirror.epoch === last.epoch && subscription.queue.length === 0, { what: "the mirror to catch up" });
    assert.ok(outcomes.includes("reset"), "a view.resync arrived and reset the mirror");
    const snapshot = await driver.view.get({ view: "photos" });
    assert.deepEqual(mirror.elements(), snapshot.elements);
    t.diagnostic(`${outcomes.filter((o) => o === "applied").length} events applied, ${outcomes.filter((o) => o === "reset").length} resync`);
    await subscription.unsubscribe();
    await following;
    await driver.close();
    await subscriber.close();
  } finally {
    await daemon.dispose();
  }
});
