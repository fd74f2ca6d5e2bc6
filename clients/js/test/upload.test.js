// Client.upload: a staged upload in parts under the batch limit, committed as one change.
import { test } from "node:test";
import assert from "node:assert/strict";
import { CONFORMANCE_FLAGS, Daemon } from "../testing/daemon.js";
import { Mirror, StaleEpochError } from "../src/index.js";

test("upload: more than one batch, one epoch and one event, sections continued across appends", async () => {
  const daemon = await new Daemon(CONFORMANCE_FLAGS).start(); // max-batch 100, max-items 1000
  try {
    const client = await daemon.client();
    await client.view.create({ view: "v", strategy: "flow", params: { itemSize: { width: 10, height: 10 } },
      viewport: { width: 100, height: 100 }, sections: [{ id: "old", items: [{ id: "x" }] }] });
    const subscription = await client.subscribe("v");
    const mirror = new Mirror();
    const following = mirror.follow(subscription);
    const appends = [];
    client.on("line", () => {});
    const sent = client.transport.send.bind(client.transport);
    client.transport.send = (line) => { if (String(line).includes("view.stage.append")) appends.push(JSON.parse(line)); sent(line); };
    const sections = [
      { id: "a", headerSize: { width: 0, height: 20 }, items: Array.from({ length: 250 }, (_, i) => ({ id: "a" + i })) },
      { id: "empty", items: [] },
      { id: "b", items: Array.from({ length: 640 }, (_, i) => ({ id: "b" + i, size: { width: 10, height: 5 } })) },
    ];
    const result = await client.upload({ view: "v", sections, ifEpoch: 0 });
    assert.equal(result.epoch, 1);
    assert.ok(appends.length >= 9, "split into appends: " + appends.length);
    for (const a of appends) {
      const n = a.params.sections.reduce((sum, s) => sum + 1 + s.items.length, 0);
      assert.ok(n <= 100, "within the batch limit");
    }
    const snapshot = await client.view.get({ view: "v" });
    assert.equal(snapshot.itemCount, 890);
    assert.equal(snapshot.sectionCount, 3);
    const cells = (await client.view.query({ view: "v", rect: { x: 0, y: 0, width: 100, height: 100000 }, limit: 1000 })).elements
      .filter((e) => e.kind === "cell" && e.section === 2);
    assert.ok(cells.length > 100);
    for (const e of cells) assert.equal(e.item, Number(e.id.slice(1)), "items keep their order across appends");
    await client.daemon.sync();
    await new Promise((r) => setImmediate(r));
    assert.equal(mirror.epoch, 1);
    assert.deepEqual(mirror.elements(), snapshot.elements);
    // a stale commit is refused and the view is unchanged
    await assert.rejects(client.upload({ view: "v", sections: [{ id: "z", items: [{ id: "z1" }] }], ifEpoch: 0 }), StaleEpochError);
    assert.equal((await client.view.get({ view: "v" })).epoch, 1);
    assert.equal((await client.daemon.status()).uploads.open, 0);
    await subscription.unsubscribe();
    await following;
    await client.close();
  } finally {
    await daemon.dispose();
  }
});
