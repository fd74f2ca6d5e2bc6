"""Views across restarts, under load (issue 39 part 6; what each kind of stop keeps is in
RELIABILITY.md, "Restarts", and protocol/daemon.md's state directory).

- A restart through the fd store (the emulator of systemd 252 in fdstore.py) while six clients
  pipeline mutations and one reads nothing: no client sees a disconnect, each subscription
  gets exactly one `view.resync`, `seq` stays gapless, every reply comes in request order
  (the unread ones and a half-sent line included), every mirror equals a fresh query, and
  every acknowledged mutation is in the view, exactly once.
- SIGTERM without the store, with a state directory: connections end with `daemon.shutdown`,
  and the next daemon has every view as it was, epoch included; a file that is not a readable
  export is set aside as `.refused` and the others still restore.
- SIGKILL in the middle of a load with a one-second checkpoint: every view comes back as its
  state file last saved it (a checkpoint written under that load), acknowledged mutations up
  to its epoch kept and later ones lost; a reload saves at once; without a state directory
  nothing comes back.

The load is `Load`: one connection per client, a subscription whose mirror follows every
event, and a fixed depth of pipelined mutations (insert, select, scroll) whose replies are
recorded by epoch.
"""
import json
import os
import random
import shutil
import signal
import threading
import time
import traceback
import unittest
import urllib.parse

from fdstore import ServiceManager
from harness import DAEMON, Daemon, ProcessTestCase, export_parts, held_listener, layoutd, query_all, view_contents

from layoutd.mirror import Mirror
from layoutd.model import Attributes

# The views every scenario loads: several thousand items, and one view of each kind of
# strategy whose selection or groups change frames. A '/' and a non-ASCII letter in a name
# prove the state file's name is encoded (one file in the directory, found again by name).
SECTION = "s"
VIEWS = {
    "feeds/main é": dict(strategy="flow", params={"itemSize": {"width": 100, "height": 100}}, items=5000),
    "grid": dict(strategy="flow", params={"itemSize": {"width": 60, "height": 80}, "minimumLineSpacing": 4}, items=2500),
    "stack": dict(strategy="collapsible", params={"itemSize": {"width": 90, "height": 90}, "collapsed": True}, items=1500),
    "store": dict(strategy="compositional", items=2000, params={"section": {"group": {
        "direction": "horizontal", "size": {"width": {"fractionalWidth": 1}, "height": {"absolute": 80}},
        "subitems": [{"size": {"width": {"fractionalWidth": 0.25}, "height": {"fractionalHeight": 1}}}]}}}),
}


def create_params(name, spec, items=None):
    count = spec["items"] if items is None else items
    return {"view": name, "strategy": spec["strategy"], "params": spec["params"], "viewport": {"width": 375, "height": 667},
            "windowMargin": 100, "sections": [{"id": SECTION, "items": [{"id": "i%d" % n} for n in range(count)]}]}


def wait_until(condition, timeout, what, describe=None):
    """Polls `condition` until it is true; AssertionError naming `what` (and `describe()`,
    the state worth seeing) when `timeout` seconds pass first."""
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError("%s: not within %s s%s" % (what, timeout, "\n" + describe() if describe else ""))
        time.sleep(0.02)


def item_ids(parts):
    return [item["id"] for part in parts for section in part["sections"] for item in section["items"]]


def comparable(parts):
    """Export parts with the cursor reduced to whether one follows: a cursor names a snapshot
    of the daemon that made it, so the same view exported twice has other cursors."""
    return [dict(part, next=part["next"] is not None) for part in parts]


def state_files(directory):
    """{view name: path} of the state directory's `*.view` files (names percent-decoded)."""
    return {urllib.parse.unquote(name[:-len(".view")]): os.path.join(directory, name)
            for name in os.listdir(directory) if name.endswith(".view")}


def read_text(path):
    with open(path, "rb") as handle:
        return handle.read().decode("utf-8", "replace")


def saved_parts(path):
    with open(path, "rb") as handle:
        return [json.loads(line) for line in handle.read().splitlines() if line.strip()]


def saved_epoch(path):
    """The epoch of a state file's first line, None while it does not exist or is unreadable
    (it is replaced by rename, so a reader sees the old file or the new one whole)."""
    try:
        with open(path, "rb") as handle:
            return json.loads(handle.readline())["epoch"]
    except (OSError, ValueError, KeyError):
        return None


class Load(threading.Thread):
    """One client on its own connection: subscribed to `view`, keeping `DEPTH` mutations in
    flight (an insert of a uniquely named item, a selection toggle, a scroll, in turn) until
    `stopping` is set, then waiting for every reply. Records every reply in arrival order, every acknowledged mutation with its
    epoch, every event with its `seq`, and the `view.resync` events. Two mirrors follow the
    events: the subscription's own (the client package's, which also applies this client's
    replies) and `strict`, fed by events alone, which must apply every one."""

    DEPTH = 12

    def __init__(self, path, view, name, base_items):
        super().__init__(daemon=True, name=name)
        self.view, self.label, self.base_items = view, name, base_items
        self.client = layoutd.Client(path, timeout=30)
        self.subscription = self.client.subscribe(view)
        self.strict = Mirror(self.subscription.snapshot)
        self.random = random.Random(name)
        self.stopping = threading.Event()
        self.count = 0
        self.sent = []          # request ids, in sending order
        self.answered = []      # request ids, in the order their replies arrived
        self.answered_at = []   # time.monotonic() of each reply (the pause a restart makes)
        self.outstanding = {}   # request id -> record
        self.acked = []         # (epoch, method, inserted id or None), in reply order
        self.errors = []        # (method, error) of refused requests
        self.unanswered = []    # records whose reply never came (the connection ended first)
        self.events = []        # every event taken, in order
        self.resyncs = []       # (acknowledgements before it, snapshot epoch) per view.resync
        self.unapplied = []     # seq of events the strict mirror could not apply (or that took it back)
        self.ended = False      # the stream ended (EOF or reset)
        self.failure = None

    def describe(self):
        return "%s on %r: sent %d, acked %d, outstanding %d, errors %r, resyncs %r, ended %s, failure %s" % (
            self.label, self.view, len(self.sent), len(self.acked), len(self.outstanding), self.errors[:3], self.resyncs,
            self.ended, self.failure)

    def run(self):
        try:
            deadline = None
            while True:
                if self.stopping.is_set():
                    if not self.outstanding:
                        break
                    deadline = deadline or time.monotonic() + 30
                    if time.monotonic() > deadline:
                        raise AssertionError("%d replies never came" % len(self.outstanding))
                else:
                    while len(self.outstanding) < self.DEPTH:
                        self.send_next()
                if self.client.has_buffered_lines or self.client.pending(0.02):
                    self.client.dispatch()
                self.take_events()
                if self.client.closed:
                    self.ended = True
                    break
        except layoutd.ConnectionClosed:
            self.ended = True
        except Exception:
            self.failure = traceback.format_exc()

    def send_next(self):
        number, self.count = self.count, self.count + 1
        inserted = None
        if number % 3 == 0:
            inserted = "%s-%d" % (self.label, number)
            method, params = "view.update", {"view": self.view, "updates": [
                {"op": "insertItems", "section": SECTION, "at": self.random.randrange(self.base_items + 1), "items": [{"id": inserted}]}]}
        elif number % 3 == 1:
            method, params = "view.select", {"view": self.view, "ids": ["i%d" % self.random.randrange(self.base_items)], "mode": "toggle"}
        else:
            method, params = "view.scroll", {"view": self.view, "offset": {"x": 0, "y": self.random.randrange(0, 4000)}}
        record = {"method": method, "inserted": inserted, "id": None}
        request = self.client.send(method, params, callback=lambda result, error: self.reply(record, result, error))
        record["id"] = request
        self.sent.append(request)
        self.outstanding[request] = record

    def reply(self, record, result, error):
        self.outstanding.pop(record["id"], None)
        if isinstance(error, layoutd.ConnectionClosed):
            self.unanswered.append(record)
            return
        self.answered.append(record["id"])
        self.answered_at.append(time.monotonic())
        if error is None:
            self.acked.append((result["epoch"], record["method"], record["inserted"]))
        else:
            self.errors.append((record["method"], repr(error)))

    def take_events(self):
        for event in self.subscription.take_queued():
            self.events.append(event)
            stale = False
            if event.name == "view.resync":
                self.resyncs.append((len(self.acked), event.snapshot.epoch))
                # A snapshot older than what the events already gave would take the mirror back.
                stale = event.snapshot.epoch < self.strict.epoch
            if not self.strict.handle(event) or stale:
                self.unapplied.append(event.seq)

    def settle(self):
        """After every client stopped (no mutation can follow): `daemon.sync`, so every event
        of every client's mutations has been taken."""
        self.client.daemon_sync()
        self.take_events()


def finish(loads, sync=True, timeout=40):
    """Stops every load, waits for their last replies, then (`sync`) settles each one."""
    for load in loads:
        load.stopping.set()
    for load in loads:
        load.join(timeout)
        if load.is_alive():
            raise AssertionError("%s did not finish: %s" % (load.label, load.describe()))
    if sync:
        for load in loads:
            load.settle()


class RestartTestCase(ProcessTestCase):
    prefix = "layoutd-restart-"

    def setUp(self):
        super().setUp()
        self.state = os.path.join(self.dir, "state")
        os.makedirs(self.state)
        self.loads = []
        self.addCleanup(self.close_loads)

    def close_loads(self):
        for load in self.loads:
            load.stopping.set()
        for load in self.loads:
            load.join(5)
            load.client.close()

    def daemon(self, *settings):
        """A layoutd on the test's socket (so the next one has the same path), its log in
        the test's directory; stopped (SIGKILL if need be) after the test."""
        daemon = Daemon(*settings, socket_path=os.path.join(self.dir, "ipc.sock"))
        daemon.log_path = os.path.join(self.dir, "layoutd-%d.log" % len(self.processes))
        self.addCleanup(shutil.rmtree, daemon.dir, True)
        self.addCleanup(daemon.stop)
        daemon.start(wait=False)
        self.processes.append(daemon.process)
        daemon.wait_until_serving(20)
        return daemon

    def create_views(self, client, views=VIEWS):
        epochs = {}
        for name, spec in views.items():
            epochs[name] = client.call("view.create", create_params(name, spec))["epoch"]
        return epochs

    def start_loads(self, path, count, views=VIEWS):
        names = list(views)
        loads = [Load(path, names[n % len(names)], "c%d" % n, views[names[n % len(names)]]["items"]) for n in range(count)]
        self.loads += loads
        for load in loads:
            load.start()
        return loads

    def wait_for_acks(self, loads, count, what, since=None):
        """Until every load has `count` acknowledgements (after its first resync when
        `since` is "resync"), or one of them failed."""
        def done():
            if any(load.failure or load.errors or not load.is_alive() for load in loads):
                raise AssertionError("a client failed during %s:\n%s" % (what, "\n".join(load.describe() for load in loads)))
            if since == "resync":
                return all(load.resyncs and len(load.acked) - load.resyncs[0][0] >= count for load in loads)
            return all(len(load.acked) >= count for load in loads)
        wait_until(done, 40, what, lambda: "\n".join(load.describe() for load in loads))

    def assert_clean(self, load, resyncs):
        """What every client of a restart must see: no failure, no refused request, every
        reply in request order, `seq` 1, 2, 3… and every event applied."""
        self.assertIsNone(load.failure, load.label)
        self.assertEqual(load.errors, [], load.label)
        self.assertEqual(load.outstanding, {}, load.label)
        self.assertEqual(load.answered, load.sent, "%s: replies in request order" % load.label)
        seqs = [event.seq for event in load.events]
        self.assertEqual(seqs, list(range(1, len(seqs) + 1)), "%s: seq gapless from 1" % load.label)
        self.assertEqual(load.unapplied, [], "%s: events the mirror could not apply" % load.label)
        self.assertEqual(len(load.resyncs), resyncs, "%s: view.resync events %r" % (load.label, load.resyncs))

    def assert_mirrors_exact(self, load, client):
        """Both mirrors equal a fresh `view.get` and a fresh query of the window."""
        snapshot = client.call("view.get", {"view": load.view})
        window = query_all(client, load.view, snapshot["window"])
        fresh = sorted((Attributes.from_json(element) for element in window), key=lambda e: e.key)
        held = sorted((Attributes.from_json(element) for element in snapshot["elements"]), key=lambda e: e.key)
        self.assertEqual(fresh, held, "view.get's window is the query's")
        self.assertTrue(fresh, "an empty window proves nothing")
        for label, mirror in (("subscription", load.subscription.mirror), ("strict", load.strict)):
            with self.subTest(client=load.label, mirror=label):
                self.assertEqual(mirror.epoch, snapshot["epoch"])
                self.assertEqual(mirror.window.to_json(), snapshot["window"])
                self.assertEqual(mirror.content_size.to_json(), snapshot["contentSize"])
                self.assertEqual(mirror.content_offset.to_json(), snapshot["viewport"]["offset"])
                self.assertEqual(sorted(mirror.elements.values(), key=lambda e: e.key), fresh)

    def assert_acknowledged_present(self, client, loads, epochs, views=VIEWS):
        """Per view: the acknowledged epochs are exactly those after its creation up to its
        epoch now (each mutation applied once, none lost, none answered twice), and every
        acknowledged insert is in the view."""
        for name, spec in views.items():
            acked = [entry for load in loads if load.view == name for entry in load.acked]
            epoch = client.call("view.get", {"view": name})["epoch"]
            self.assertEqual(sorted(entry[0] for entry in acked), list(range(epochs[name] + 1, epoch + 1)), name)
            ids = item_ids(export_parts(client, name))
            inserted = [entry[2] for entry in acked if entry[2]]
            self.assertEqual(set(inserted) - set(ids), set(), "%s: acknowledged inserts missing" % name)
            self.assertEqual(len(ids), spec["items"] + len(inserted), name)


class FdStoreRestartUnderLoad(RestartTestCase):
    CLIENTS = 6

    def test_a_restart_through_the_fd_store_keeps_every_client_and_every_acknowledged_mutation(self):
        path, listener = held_listener(self.dir)
        self.addCleanup(listener.close)
        log_path = os.path.join(self.dir, "layoutd.log")
        manager = ServiceManager([DAEMON, "--log-level", "debug", "--set", "default-plugin-dir=none", "--set", "fd-store=1",
                                  "--set", "state-dir=" + self.state], self.dir, sockets=[("ipc", listener)],
                                 fd_store_max=64, log_path=log_path, stop_timeout=30)
        self.addCleanup(manager.close)
        manager.start()
        manager.wait_ready(timeout=20)
        first = manager.pid

        # A connection with no subscription goes across too: it is the one that checks.
        admin = layoutd.Client(path, timeout=30)
        self.addCleanup(admin.close)
        epochs = self.create_views(admin)
        loads = self.start_loads(path, self.CLIENTS)
        self.wait_for_acks(loads, 30, "the load before the restart")
        # The admin connection reads nothing until after the restart: the old daemon answers
        # its queries (the log says so) and holds most of their 700 kB, more than a socket
        # buffer takes, unsent; then half a request line follows.
        feed = next(iter(VIEWS))
        size = admin.call("view.get", {"view": feed})["contentSize"]
        rect = {"x": 0, "y": 0, "width": size["width"], "height": size["height"]}
        queries = [admin.send("view.query", {"view": feed, "rect": rect, "limit": 1000}) for _ in range(5)]
        wait_until(lambda: read_text(log_path).count("layoutd_method=view.query ") >= len(queries), 10, "the queries answered")
        admin.send_raw(b'{"id":"half","method":"view.li')

        with open(log_path, "rb") as handle:
            before = len(handle.read())
        mark = manager.mark
        self.assertEqual(manager.restart(), 0, "the old daemon exits 0 after the handover")
        manager.wait_ready(after=mark, timeout=30)
        self.assertNotEqual(manager.pid, first)
        # The clients kept pipelining meanwhile: each gets its resync, then goes on.
        self.wait_for_acks(loads, 30, "the load after the restart", since="resync")
        # The new daemon took everything back out of the store.
        wait_until(lambda: not [name for name in manager.stored() if name == "state" or name.startswith("conn.")], 10,
                   "the store emptied of state and conn.*", lambda: repr(manager.stored()))

        finish(loads)
        with open(log_path, "rb") as handle:
            after = handle.read()[before:].decode("utf-8", "replace")
        # The admin's replies all come, in order, then the answer to the line it completes.
        read = []
        admin.trace = lambda line: read.append(json.loads(line).get("id"))
        for request in queries:
            self.assertEqual(len(admin.wait_reply(request)["elements"]), 1000)
        admin.send_raw(b'st"}\n')
        self.assertEqual(sorted(view["view"] for view in admin.wait_reply("half")["views"]), sorted(VIEWS))
        self.assertEqual(read, queries + ["half"])
        # Every fd the daemon offered was kept (none over the limit, duplicated or hung up),
        # and nothing it sent was refused but the barriers.
        self.assertEqual(manager.dropped, [])
        self.assertEqual([reason for reason, _ in manager.ignored if reason != "barrier"], [])
        for load in loads:
            with self.subTest(client=load.label):
                self.assertFalse(load.ended, "%s saw the end of its stream" % load.label)
                self.assertFalse(load.client.closed)
                self.assertIsNone(load.client.shutdown, "no daemon.shutdown across a handover")
                self.assert_clean(load, resyncs=1)
                self.assertGreater(load.resyncs[0][0], 0, "acknowledged mutations before the restart")
                self.assert_mirrors_exact(load, load.client)
        self.assert_acknowledged_present(admin, loads, epochs)

        # The socket unit's listener still serves new connections, and the state directory
        # was written at the handover.
        with layoutd.Client(path, timeout=10) as fresh:
            self.assertEqual(sorted(view["view"] for view in fresh.view_list()["views"]), sorted(VIEWS))
        self.assertEqual(sorted(state_files(self.state)), sorted(VIEWS))
        # The log says what went across, and that all of it came back.
        notices = [line for line in after.splitlines() if line.startswith("<5>")]
        connections = self.CLIENTS + 1
        self.assertIn("<5>handed over %d connections and %d views (confirmed)" % (connections, len(VIEWS)), notices)
        self.assertIn("<5>restored %d of %d views from the previous daemon" % (len(VIEWS), len(VIEWS)), notices)
        self.assertIn("<5>took over %d of %d connections and %d views from the previous daemon" % (connections, connections, len(VIEWS)),
                      notices)


class StateDirectoryAcrossStops(RestartTestCase):
    def test_sigterm_then_a_new_daemon_restores_every_view_and_sets_unreadable_files_aside(self):
        settings = ("--set", "state-dir=" + self.state)
        first = self.daemon(*settings)
        admin = layoutd.Client(first.path, timeout=30)
        self.addCleanup(admin.close)
        epochs = self.create_views(admin)
        loads = self.start_loads(first.path, len(VIEWS))
        self.wait_for_acks(loads, 40, "the load")
        finish(loads)
        for load in loads:
            self.assert_clean(load, resyncs=0)
        before = {name: view_contents(admin, name) for name in VIEWS}
        exports = {name: comparable(export_parts(admin, name)) for name in VIEWS}

        self.assertEqual(first.stop(30), 0)
        # Without the store, SIGTERM drains: every connection hears daemon.shutdown, then EOF.
        for client in [load.client for load in loads] + [admin]:
            while client.read_message(10) is not None:
                pass
            self.assertEqual((client.shutdown or {}).get("reason"), "SIGTERM")
        files = state_files(self.state)
        self.assertEqual(sorted(files), sorted(VIEWS), "one file per view: %r" % os.listdir(self.state))
        for name, path in files.items():
            self.assertEqual(comparable(saved_parts(path)), exports[name], "%s: the file is the view's export" % name)

        # Set beside them: garbage, an export of a version no daemon reads, and a file that is
        # not a view's at all (ignored, left as it is).
        with open(os.path.join(self.state, "other.view"), "wb") as handle:
            handle.write(b"\x00garbage, not an export\n{\"format\":")
        future = saved_parts(files["grid"])
        future[0]["version"] = 999
        with open(os.path.join(self.state, "future.view"), "w") as handle:
            handle.write("".join(json.dumps(part) + "\n" for part in future))
        with open(os.path.join(self.state, "notes.txt"), "w") as handle:
            handle.write("not a view\n")

        second = self.daemon(*settings)
        with layoutd.Client(second.path, timeout=30) as client:
            self.assertEqual(sorted(view["view"] for view in client.view_list()["views"]), sorted(VIEWS))
            for name in VIEWS:
                with self.subTest(view=name):
                    now = view_contents(client, name)
                    self.assertEqual(now[0], before[name][0], "view.get")
                    self.assertEqual(now[1], before[name][1], "every element")
                    self.assertEqual(now[2], before[name][2], "the selection")
                    self.assertEqual(comparable(export_parts(client, name)), exports[name])
            self.assert_acknowledged_present(client, loads, epochs)
        names = sorted(os.listdir(self.state))
        for refused in ("other.view", "future.view"):
            self.assertIn(refused + ".refused", names)
            self.assertNotIn(refused, names)
            self.assertTrue(any(line.startswith("<4>") and refused in line for line in second.read_log().splitlines()),
                            "a warning names %s:\n%s" % (refused, second.read_log()))
        self.assertIn("notes.txt", names)
        self.assertEqual(second.stop(30), 0)


class SigkillAndCheckpoints(RestartTestCase):
    LOADED = {name: VIEWS[name] for name in ("grid", "stack")}

    def test_sigkill_mid_batch_restores_the_last_checkpoint(self):
        settings = ("--set", "state-dir=" + self.state, "--set", "state-checkpoint=1")
        first = self.daemon(*settings)
        admin = layoutd.Client(first.path, timeout=30)
        self.addCleanup(admin.close)
        self.create_views(admin, self.LOADED)
        for name in self.LOADED:
            for y in range(10):
                admin.call("view.scroll", {"view": name, "offset": {"x": 0, "y": 50 * y}})
        covered = {name: admin.call("view.get", {"view": name})["epoch"] for name in self.LOADED}
        admin.call("view.create", create_params("doomed", VIEWS["grid"], items=10))
        # A checkpoint writes the changed views within a second or so, and removes the file
        # of a view deleted since.
        wait_until(lambda: all(saved_epoch(state_files(self.state).get(name, "")) == epoch for name, epoch in covered.items())
                   and "doomed" in state_files(self.state), 10, "a checkpoint covering every view",
                   lambda: repr({name: saved_epoch(path) for name, path in state_files(self.state).items()}))
        admin.call("view.delete", {"view": "doomed"})
        wait_until(lambda: "doomed" not in state_files(self.state), 10, "the deleted view's file removed by a checkpoint")

        loads = self.start_loads(first.path, 4, self.LOADED)
        # A checkpoint is written under the load (each file moves past `covered`), then the
        # load goes on a while, and the kill comes in the middle of it.
        wait_until(lambda: all((saved_epoch(state_files(self.state)[name]) or 0) > epoch for name, epoch in covered.items()), 10,
                   "a checkpoint under load", lambda: "\n".join(load.describe() for load in loads))
        acked = sum(len(load.acked) for load in loads)
        wait_until(lambda: sum(len(load.acked) for load in loads) >= acked + 100, 20, "more load after the checkpoint")
        # What the files said just before the kill: a restore may be newer (a checkpoint in
        # between), never older.
        seen = {name: saved_epoch(state_files(self.state)[name]) for name in self.LOADED}
        first.signal(signal.SIGKILL)
        first.process.wait(10)
        # Each client reads the replies written before the kill, then the end of its stream.
        wait_until(lambda: all(load.ended or load.failure for load in loads), 20, "every client saw the end",
                   lambda: "\n".join(load.describe() for load in loads))
        finish(loads, sync=False)
        for load in loads:
            self.assertIsNone(load.failure, load.label)
            self.assertEqual(load.errors, [], load.label)

        second = self.daemon(*settings)
        with layoutd.Client(second.path, timeout=30) as client:
            self.assertEqual(sorted(view["view"] for view in client.view_list()["views"]), sorted(self.LOADED))
            files = state_files(self.state)
            for name in self.LOADED:
                with self.subTest(view=name):
                    acked = [entry for load in loads if load.view == name for entry in load.acked]
                    sent = sum(len(load.sent) for load in loads if load.view == name)
                    epoch = client.call("view.get", {"view": name})["epoch"]
                    # No older than the last checkpoint seen; no newer than what was sent (a
                    # checkpoint may include a mutation whose reply the kill cut).
                    self.assertGreater(seen[name], covered[name])
                    self.assertGreaterEqual(epoch, seen[name])
                    self.assertLessEqual(epoch, covered[name] + sent)
                    # The view is what its file last saved, exactly.
                    parts = export_parts(client, name)
                    self.assertEqual(comparable(parts), comparable(saved_parts(files[name])))
                    # Acknowledged inserts up to that epoch are there; later ones are lost,
                    # as documented for a SIGKILL.
                    ids = set(item_ids(parts))
                    kept = [entry[2] for entry in acked if entry[2] and entry[0] <= epoch]
                    lost = [entry[2] for entry in acked if entry[2] and entry[0] > epoch]
                    self.assertEqual(set(kept) - ids, set())
                    self.assertEqual(set(lost) & ids, set())
                    self.assertEqual(len(ids), self.LOADED[name]["items"] + len(kept) + len(
                        [1 for load in loads if load.view == name for record in load.unanswered
                         if record["inserted"] in ids]))
        self.assertEqual(second.stop(30), 0)

    def test_a_reload_saves_at_once_and_a_sigkill_keeps_what_it_saved(self):
        # The default checkpoint (30 s) is far off: only the reloads save here.
        settings = ("--set", "state-dir=" + self.state)
        first = self.daemon(*settings)
        with layoutd.Client(first.path, timeout=30) as client:
            self.create_views(client, self.LOADED)
            for name in self.LOADED:
                client.call("view.scroll", {"view": name, "offset": {"x": 0, "y": 120}})
            saved = {name: client.call("view.get", {"view": name})["epoch"] for name in self.LOADED}
            client.call("daemon.reload")
            wait_until(lambda: {name: saved_epoch(path) for name, path in state_files(self.state).items()} == saved, 10,
                       "daemon.reload saving every view", lambda: repr(os.listdir(self.state)))
            kept = saved["grid"]
            expected = comparable(export_parts(client, "grid"))
            client.call("view.delete", {"view": "stack"})
            first.signal(signal.SIGHUP)
            wait_until(lambda: sorted(state_files(self.state)) == ["grid"], 10, "SIGHUP removing the deleted view's file",
                       lambda: repr(os.listdir(self.state)))
            # Changes after the last save are what a SIGKILL loses.
            client.call("view.scroll", {"view": "grid", "offset": {"x": 0, "y": 400}})
        first.signal(signal.SIGKILL)
        first.process.wait(10)
        second = self.daemon(*settings)
        with layoutd.Client(second.path, timeout=30) as client:
            self.assertEqual([view["view"] for view in client.view_list()["views"]], ["grid"])
            self.assertEqual(client.call("view.get", {"view": "grid"})["epoch"], kept)
            self.assertEqual(comparable(export_parts(client, "grid")), expected)
        self.assertEqual(second.stop(30), 0)

    def test_sigkill_without_a_state_directory_loses_every_view(self):
        first = self.daemon("--set", "state-dir=none")
        with layoutd.Client(first.path, timeout=30) as client:
            self.create_views(client, self.LOADED)
        first.signal(signal.SIGKILL)
        first.process.wait(10)
        second = self.daemon("--set", "state-dir=none")
        with layoutd.Client(second.path, timeout=30) as client:
            self.assertEqual(client.view_list()["views"], [])
        self.assertEqual(os.listdir(self.state), [])
        self.assertEqual(second.stop(30), 0)


if __name__ == "__main__":
    unittest.main()
