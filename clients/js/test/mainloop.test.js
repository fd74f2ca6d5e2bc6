// The client inside a front end's loop, against a real daemon: calls never block the loop (issuing
// thousands waits for nothing, and the loop keeps turning and a frame loop keeps running while they
// are answered), a frame drains what arrived into the mirror without waiting (subscription.drain()),
// and 200,000 calls leave no per-call state behind.
import { test } from "node:test";
import assert from "node:assert/strict";
import { Mirror } from "../src/index.js";
import { Daemon, waitFor } from "../testing/daemon.js";

const view = (name) => ({ view: name, strategy: "flow", params: { itemSize: { width: 100, height: 100 } },
  viewport: { width: 320, height: 200 }, sections: [{ id: "s", items: Array.from({ length: 300 }, (_, i) => ({ id: "i" + i })) }] });

test("calls never block the loop: frames run while 5,000 calls are answered, and each frame drains the events into the mirror", async (t) => {
  const daemon = await new Daemon().start();
  try {
    const client = await daemon.client();
    await client.view.create(view("frames"));
    const subscription = await client.subscribe("frames");
    const mirror = new Mirror().reset(subscription.snapshot);
    let touched = 0;
    mirror.onChange((message, m, outcome, change) => { touched += change.entered.length + change.changed.length + change.left.length; });

    // The frame: take what arrived, never wait. At most one scroll in flight (the newest wins
    // anyway), and none while output is still queued in the process (backpressure).
    let frames = 0, scrolling = null, scrolls = 0, mostBuffered = 0, longestGap = 0, last = performance.now();
    const frame = () => {
      const now = performance.now();
      longestGap = Math.max(longestGap, now - last);
      last = now;
      frames++;
      for (const event of subscription.drain()) {
        if (mirror.handle(event) === "gap") subscription.resync().catch(() => {});
      }
      mostBuffered = Math.max(mostBuffered, client.transport.bufferedAmount);
      if (!scrolling && client.transport.bufferedAmount === 0) {
        scrolls++;
        scrolling = client.view.scroll({ view: "frames", offset: { x: 0, y: (frames * 53) % 2500 } })
          .finally(() => { scrolling = null; });
      }
    };
    const timer = setInterval(frame, 16);
    // Meanwhile, a burst of calls from elsewhere in the program: each returns a promise at once
    // (none can settle before the loop turns), and the loop keeps turning while they are answered.
    let settled = 0, turns = 0, bursting = true;
    const turn = () => { if (bursting) { turns++; setImmediate(turn); } };
    setImmediate(turn);
    const started = performance.now();
    const burst = Array.from({ length: 5000 }, () => client.daemon.sync().then(() => { settled++; }));
    const issued = performance.now() - started;
    assert.equal(settled, 0, "issuing a call waits for nothing");
    assert.equal(client.pendingCount, 5000);
    await Promise.all(burst);
    bursting = false;
    assert.ok(turns >= 2, `the loop turned ${turns} times while 5,000 calls were answered`);
    await waitFor(() => frames >= 60, { what: "60 frames" });
    clearInterval(timer);
    await scrolling;
    await client.daemon.sync(); // every event caused so far has arrived
    for (const event of subscription.drain()) mirror.handle(event);
    const truth = await client.view.get({ view: "frames" });
    assert.equal(mirror.epoch, truth.epoch);
    assert.deepEqual(mirror.elements(), truth.elements);
    assert.ok(scrolls >= 3 && touched > 0, `${scrolls} scrolls, ${touched} elements touched`);
    t.diagnostic(`${frames} frames, ${scrolls} scrolls, ${touched} elements touched, burst issued in ${issued.toFixed(1)} ms ` +
      `(${turns} loop turns while it was answered), ` +
      `longest frame gap ${longestGap.toFixed(1)} ms, most output buffered ${mostBuffered} bytes`);
    await client.view.delete({ view: "frames" });
    await client.close();
  } finally {
    await daemon.dispose();
  }
});

test("200,000 calls leave no per-call state: no pending entry, no stray, no timer", async (t) => {
  const daemon = await new Daemon().start();
  try {
    const client = await daemon.client({ timeout: 60000 });
    const timers = () => process.getActiveResourcesInfo().filter((r) => r === "Timeout").length;
    const timersBefore = timers();
    const listenersBefore = Object.values(client.listeners).map((set) => set.size);
    const calls = 200000, window = 500;
    const started = performance.now();
    let inFlight = 0, mostInFlight = 0;
    for (let sent = 0; sent < calls; sent += window) {
      const batch = [];
      for (let i = 0; i < window; i++) batch.push(client.daemon.sync());
      inFlight = client.pendingCount;
      mostInFlight = Math.max(mostInFlight, inFlight);
      await Promise.all(batch);
    }
    assert.equal(mostInFlight, window, "the table held the calls in flight");
    assert.equal(client.pending.size, 0, "no entry outlives its reply");
    assert.equal(client.pendingCount, 0);
    assert.equal(client.strayCount, 0);
    assert.deepEqual(client.strays, []);
    assert.equal(client.subscriptions.size, 0);
    assert.deepEqual(Object.values(client.listeners).map((set) => set.size), listenersBefore);
    assert.equal(timers(), timersBefore, "every call's deadline timer was cleared");
    t.diagnostic(`${calls} calls in ${((performance.now() - started) / 1000).toFixed(1)} s, ${window} at a time`);
    await client.close();
  } finally {
    await daemon.dispose();
  }
});
