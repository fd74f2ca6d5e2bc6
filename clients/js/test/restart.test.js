// The daemon is killed and restarted on the same socket: the reconnect helper re-creates the
// caller's view from the caller's own last data, resubscribes, and the mirror converges.
import { test } from "node:test";
import assert from "node:assert/strict";
import { connect, reconnecting } from "../src/node.js";
import { Daemon, waitFor } from "../testing/daemon.js";

for (const signal of ["SIGKILL", "SIGTERM"]) test(`restart after ${signal}: views re-created from the caller's data, mirror resubscribed and converged`, async (t) => {
  const first = await new Daemon().start();
  let second;
  try {
    // The caller's own data: what it last told the daemon.
    const mine = {
      view: "photos", strategy: "flow", params: { itemSize: { width: 100, height: 100 } },
      viewport: { width: 320, height: 200 }, sections: [{ id: "s", items: [{ id: "a" }, { id: "b" }, { id: "c" }] }],
    };
    const session = await reconnecting({ connect: () => connect({ socket: first.path }), views: () => [mine], retryDelay: 10, maxRetryDelay: 100 });
    const reconnects = [];
    session.on("reconnect", (client) => reconnects.push(client));
    const mirror = await session.mirror("photos");
    assert.deepEqual(mirror.elements().map((e) => e.id), ["a", "b", "c"]);

    // The caller changes its data (and remembers it), then the daemon dies.
    mine.sections = [{ id: "s", items: [{ id: "a" }, { id: "b" }, { id: "c" }, { id: "d" }, { id: "e" }] }];
    const result = await session.client.view.setData({ view: "photos", sections: mine.sections });
    await waitFor(() => mirror.epoch === result.epoch, { what: "the mirror at epoch 1" });
    assert.deepEqual(mirror.elements().map((e) => e.id), ["a", "b", "c", "d", "e"]);
    const before = mirror.elements();

    await first.stop(signal);
    second = await new Daemon([], { dir: first.dir, socketPath: first.path }).start();
    await waitFor(() => reconnects.length === 1 && mirror.epoch === 0, { what: "the session to reconnect and the mirror to resubscribe" });

    // The restarted daemon holds the view again, from the caller's data, and the mirror equals it.
    const probe = await connect({ socket: second.path });
    const snapshot = await probe.view.get({ view: "photos" });
    assert.equal(snapshot.epoch, 0);
    assert.deepEqual(mirror.elements(), snapshot.elements);
    assert.deepEqual(mirror.elements(), before);

    // And it keeps following: a change made by another connection reaches the mirror.
    const scrolled = await probe.view.scroll({ view: "photos", offset: { x: 0, y: 100 } });
    await waitFor(() => mirror.epoch === scrolled.epoch, { what: "the mirror to follow after the restart" });
    assert.deepEqual(mirror.elements(), (await probe.view.get({ view: "photos" })).elements);
    t.diagnostic(`reconnected ${reconnects.length} time(s); mirror holds ${mirror.size} elements at epoch ${mirror.epoch}`);
    await probe.close();
    await session.close();
  } finally {
    await first.stop();
    if (second) await second.dispose();
    else await first.dispose();
  }
});

test("reconnect: a followed view that is not the caller's is dropped after a restart; mirror() of a missing view throws", async () => {
  const first = await new Daemon().start();
  let second;
  try {
    const other = await connect({ socket: first.path });
    await other.view.create({ view: "theirs", strategy: "flow", viewport: { width: 100, height: 100 }, sections: [{ id: "s", items: [{ id: "x" }] }] });
    const session = await reconnecting({ connect: () => connect({ socket: first.path }), retryDelay: 10, maxRetryDelay: 100 });
    await assert.rejects(session.mirror("nobody"), { name: "ViewNotFound" });
    const mirror = await session.mirror("theirs");
    assert.equal(mirror.size, 1);
    const reconnected = new Promise((resolve) => session.on("reconnect", resolve));
    await first.stop("SIGKILL");
    second = await new Daemon([], { dir: first.dir, socketPath: first.path }).start();
    await reconnected;
    assert.equal(mirror.deleted, true);
    assert.equal(mirror.size, 0);
    await session.close();
    await other.close();
  } finally {
    await first.stop();
    if (second) await second.dispose();
    else await first.dispose();
  }
});
