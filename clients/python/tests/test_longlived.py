"""A client an application lives inside for days (issue 37): main-loop integration (the fd,
buffered lines, ``dispatch()``, calls with a callback) and the three example loops (GLib,
asyncio, select) run against a real daemon; the mirror's change callback, held to its
property (applying entered/changed/left to the window before gives the window after); and no
per-call state after 200,000 calls."""
from __future__ import annotations

import asyncio
import gc
import importlib.util
import json
import os
import random
import socket
import subprocess
import sys
import time
import tracemalloc
import unittest
from typing import Any, Dict, List, Optional, Tuple

from support import HERE, Daemon, poll

from layoutd import (AsyncClient, Attributes, Client, ConnectionClosed, Timeout, Invalidation, Item, JSONObject, Mirror, MirrorChange, Point,
                     Rect, Section, Size, Snapshot, Viewport)
from layoutd.model import ElementKey

EXAMPLES = os.path.join(HERE, "..", "examples")
FLOW = {"itemSize": {"width": 100, "height": 100}}
#: The Debian packages the GLib example needs (PyGObject and GLib's introspection data).
GLIB_PACKAGES = "python3-gi gir1.2-glib-2.0"


def glib_python() -> Optional[str]:
    """An interpreter that imports GLib from PyGObject: this one, else Debian's (a venv made
    without --system-site-packages lacks python3-gi), else None."""
    if importlib.util.find_spec("gi") is not None:
        return sys.executable
    probe = "import gi; gi.require_version('GLib', '2.0'); from gi.repository import GLib"
    for candidate in ("/usr/bin/python3",):
        if os.access(candidate, os.X_OK) and subprocess.run([candidate, "-c", probe], capture_output=True).returncode == 0:
            return candidate
    return None


def applied(before: Dict[ElementKey, Attributes], change: MirrorChange) -> Dict[ElementKey, Attributes]:
    """The window before with a change applied as a front end would: left removed, entered and changed stored."""
    after = dict(before)
    for key in change.left:
        del after[key]  # KeyError: a key that was not there cannot leave
    for element in change.entered:
        assert element.key not in after, "entered %r was already there" % (element.key,)
        after[element.key] = element
    for element in change.changed:
        assert element.key in after, "changed %r was not there" % (element.key,)
        after[element.key] = element
    return after


class Examples(unittest.TestCase):
    """Each example loop, run as a program against a real daemon."""

    daemon: Daemon

    @classmethod
    def setUpClass(cls) -> None:
        cls.daemon = Daemon().start()

    @classmethod
    def tearDownClass(cls) -> None:
        cls.daemon.__exit__()

    def run_example(self, interpreter: str, name: str, *args: str) -> Dict[str, Any]:
        env = dict(os.environ, PYTHONPATH=os.path.abspath(os.path.join(HERE, "..")))
        run = subprocess.run([interpreter, os.path.join(EXAMPLES, name), "--socket", self.daemon.path, "--scrolls", "25"]
                             + list(args), capture_output=True, text=True, timeout=120, env=env)
        self.assertEqual(run.returncode, 0, run.stdout + run.stderr)
        summary: Dict[str, Any] = json.loads(run.stdout.strip().splitlines()[-1])
        self.assertEqual(summary["scrolls"], 25, summary)
        self.assertEqual(summary["epoch"], 25, summary)
        self.assertTrue(summary["consistent"], summary)  # the mirror equals view.get
        self.assertEqual(summary["changes"], 25, summary)  # one change callback per applied scroll
        self.assertGreater(summary["entered"], 0, summary)
        self.assertGreater(summary["left"], 0, summary)
        return summary

    def test_select_loop(self) -> None:
        self.run_example(sys.executable, "select_loop.py")

    def test_asyncio_with_async_client(self) -> None:
        summary = self.run_example(sys.executable, "asyncio_loop.py", "--face", "async")
        self.assertGreater(summary["ticks"], 0)  # the loop ran other tasks meanwhile

    def test_asyncio_add_reader(self) -> None:
        summary = self.run_example(sys.executable, "asyncio_loop.py", "--face", "reader")
        self.assertGreater(summary["ticks"], 0)

    def test_glib_loop(self) -> None:
        interpreter = glib_python()
        if interpreter is None:
            self.skipTest("PyGObject is not installed (Debian: apt-get install %s)" % GLIB_PACKAGES)
        self.run_example(interpreter, "glib_loop.py")

    def test_examples_rerun_cleanly(self) -> None:
        self.run_example(sys.executable, "select_loop.py")
        self.run_example(sys.executable, "select_loop.py")  # a unique view name each time, deleted at the end
        with Client(self.daemon.path, timeout=10) as client:
            self.assertEqual([v for v in client.view_list()["views"] if "loop" in str(v)], [])


class MainLoop(unittest.TestCase):
    """The pieces a main loop uses, against a real daemon."""

    def setUp(self) -> None:
        self.daemon = Daemon().start()
        self.addCleanup(self.daemon.__exit__)
        self.client = Client(self.daemon.path, timeout=10)
        self.addCleanup(self.client.close)

    def test_dispatch_never_blocks_and_callbacks_get_results_and_errors(self) -> None:
        client = self.client
        started = time.monotonic()
        self.assertEqual(client.dispatch(), 0)  # nothing readable: returns at once
        self.assertLess(time.monotonic() - started, 0.5)
        heard: List[Any] = []
        client.send("daemon.sync", callback=lambda result, error: heard.append((result, error)))
        client.send("view.get", {"view": "absent"}, callback=lambda result, error: heard.append((result, error)))
        handled = [0]
        poll(lambda: (handled.__setitem__(0, handled[0] + client.dispatch()), len(heard) == 2)[1], what="both replies")
        self.assertEqual(handled[0], 2)
        self.assertEqual(heard[0], ({}, None))
        self.assertIsNone(heard[1][0])
        self.assertEqual(type(heard[1][1]).__name__, "ViewNotFound")
        self.assertEqual(client._core.waiting, 0)

    def test_buffered_lines_are_reported_where_no_fd_event_would_be(self) -> None:
        client = self.client
        client.view_create("v", "flow", Viewport(320, 200), params=FLOW, sections=[Section("s", [Item("a"), Item("b")])])
        subscription = client.subscribe("v")
        # A raw request and a blocking call: its reply and the scroll's event arrive together,
        # the blocking read takes them into the buffer and leaves the event's line there.
        client.send_raw(b'{"id":"x","method":"view.scroll","params":{"view":"v","offset":{"x":0,"y":5}}}\n')
        # Read until both lines are in the buffer, without handling them.
        deadline = time.monotonic() + 10
        while not client.has_buffered_lines and time.monotonic() < deadline:
            client._receive(client.deadline(1.0))
        self.assertTrue(client.has_buffered_lines)
        self.assertEqual(client.dispatch(), 2)  # the reply (stray: nobody waits) and the event
        self.assertFalse(client.has_buffered_lines)
        self.assertEqual([e.name for e in subscription.take_queued()], ["view.invalidated"])
        self.assertEqual(subscription.mirror.epoch, 1)

    def test_forget_and_close_tell_callbacks(self) -> None:
        client = self.client
        heard: List[Any] = []
        request_id = client.send("daemon.sync", callback=lambda result, error: heard.append(("forgotten", error)))
        assert request_id is not None
        client.forget(request_id)
        client.send("daemon.sync", callback=lambda result, error: heard.append(("closed", error)))
        client.close()
        self.assertEqual(len(heard), 1)
        self.assertEqual(heard[0][0], "closed")
        self.assertIsInstance(heard[0][1], ConnectionClosed)

    def test_fileno_is_the_socket(self) -> None:
        self.assertEqual(self.client.fileno(), self.client.sock.fileno())


class Deadlines(unittest.TestCase):
    """A call that times out is forgotten: its late reply is a stray, the connection stays
    usable. The peer is the test itself (a socket pair), so the reply is late for certain."""

    def peer(self) -> Tuple[socket.socket, socket.socket]:
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
        self.addCleanup(theirs.close)
        self.addCleanup(ours.close)
        theirs.settimeout(5)
        return ours, theirs

    def request_ids(self, theirs: socket.socket, count: int) -> List[Any]:
        data = b""
        while data.count(b"\n") < count:
            data += theirs.recv(65536)
        return [json.loads(line)["id"] for line in data.split(b"\n") if line]

    def test_blocking_client(self) -> None:
        ours, theirs = self.peer()
        client = Client(sock=ours, timeout=5)
        started = time.monotonic()
        with self.assertRaises(Timeout):
            client.daemon_sync(timeout=0.2)
        self.assertLess(time.monotonic() - started, 0.2 + 0.5)
        late, = self.request_ids(theirs, 1)
        theirs.sendall(b'{"id":%d,"result":{"late":true}}\n{"id":%d,"result":{}}\n' % (late, late + 1))
        self.assertEqual(client.daemon_sync(), {})  # the next id; the late reply read on the way
        self.assertEqual(client.stray_count, 1)
        self.assertEqual(client.stray[-1]["result"], {"late": True})
        self.assertEqual(client._core.waiting, 0)

    def test_async_client(self) -> None:
        ours, theirs = self.peer()

        async def run() -> None:
            reader, writer = await asyncio.open_unix_connection(sock=ours)
            client = AsyncClient(reader, writer, "pair", timeout=5)
            started = time.monotonic()
            with self.assertRaises(Timeout):
                await client.daemon_sync(timeout=0.2)
            self.assertLess(time.monotonic() - started, 0.2 + 0.5)
            late, = self.request_ids(theirs, 1)
            theirs.sendall(b'{"id":%d,"result":{"late":true}}\n{"id":%d,"result":{}}\n' % (late, late + 1))
            self.assertEqual(await client.daemon_sync(), {})
            self.assertEqual(client.stray_count, 1)
            self.assertEqual(client._core.waiting, 0)
            await client.close()

        asyncio.run(run())


def random_attributes(rng: random.Random, key: ElementKey) -> Attributes:
    return Attributes(key[1], key[0], 0, Rect(rng.randrange(4) * 10, rng.randrange(50) * 10, 100, 100),
                      item=0 if key[0] == "cell" else None, alpha=rng.choice([1.0, 0.5]))


class MirrorChanges(unittest.TestCase):
    """on_change's property: applying its entered/changed/left to a copy of the window before
    gives the window after, for every applied invalidation, reset and deletion."""

    def test_property_offline(self) -> None:
        rng = random.Random(37)
        keys = [(kind, "%s%d" % (kind[0], n)) for kind in ("cell", "header") for n in range(12)]
        for trial in range(300):
            elements = [random_attributes(rng, key) for key in rng.sample(keys, rng.randrange(len(keys)))]
            snapshot = Snapshot.from_json({"view": "v", "strategy": "flow", "params": {}, "epoch": 0, "viewport": {"width": 100, "height": 100},
                                           "windowMargin": 0, "window": {"x": 0, "y": 0, "width": 100, "height": 100},
                                           "contentSize": {"width": 100, "height": 100}, "sectionCount": 1, "itemCount": 1,
                                           "elements": [e.to_json() for e in elements]})
            mirror = Mirror(snapshot)
            seen: List[MirrorChange] = []
            mirror.on_change(seen.append)
            for step in range(20):
                before = dict(mirror.elements)
                del seen[:]
                if rng.random() < 0.15:  # a reset to an unrelated window
                    fresh = [random_attributes(rng, key) for key in rng.sample(keys, rng.randrange(len(keys)))]
                    mirror.reset(Snapshot.from_json({
                        "view": "v", "strategy": "flow", "params": {}, "epoch": mirror.epoch + 5,
                        "viewport": {"width": 100, "height": 100}, "windowMargin": 0,
                        "window": {"x": 0, "y": 0, "width": 100, "height": 100},
                        "contentSize": {"width": 100, "height": 100}, "sectionCount": 1, "itemCount": 1,
                        "elements": [e.to_json() for e in fresh]}))
                else:  # an invalidation: arbitrary (even redundant) entered/changed/left
                    present = list(mirror.elements)
                    absent = [k for k in keys if k not in mirror.elements]
                    left = rng.sample(present, rng.randrange(len(present) + 1))
                    entered = [random_attributes(rng, k) for k in rng.sample(absent + left, rng.randrange(len(absent + left) + 1) // 2)]
                    stay = [k for k in present if k not in left]
                    changed = [random_attributes(rng, k) for k in rng.sample(stay, rng.randrange(len(stay) + 1))]
                    self.assertTrue(mirror.apply(Invalidation.from_json({
                        "view": "v", "epoch": mirror.epoch + 1, "contentSize": {"width": 100, "height": 100},
                        "contentOffset": {"x": 0, "y": 0}, "context": {"everything": False, "dataSourceCounts": False, "invalidated": []},
                        "window": {"x": 0, "y": 0, "width": 100, "height": 100},
                        "entered": [e.to_json() for e in entered], "changed": [e.to_json() for e in changed],
                        "left": [{"kind": k[0], "id": k[1]} for k in left]})))
                self.assertEqual(len(seen), 1, (trial, step))
                self.assertEqual(applied(before, seen[0]), mirror.elements, (trial, step))
                self.assertEqual(seen[0].epoch, mirror.epoch)

    def test_property_live(self) -> None:
        """Scrolls, updates, a resync after a reset and a deletion on a real daemon."""
        with Daemon() as daemon, Client(daemon.path, timeout=10) as client:
            rng = random.Random(7)
            client.view_create("live", "flow", Viewport(320, 300), params=FLOW,
                               sections=[Section("s", [Item("i%d" % n, size=Size(100, 50 + 10 * (n % 7))) for n in range(300)])])
            subscription = client.subscribe("live")
            mirror = subscription.mirror
            windows: List[Dict[ElementKey, Attributes]] = [dict(mirror.elements)]
            changes: List[MirrorChange] = []

            def record(change: MirrorChange) -> None:
                changes.append(change)
                windows.append(dict(mirror.elements))

            mirror.on_change(record)
            for step in range(60):
                choice = rng.random()
                if choice < 0.6:
                    client.view_scroll("live", Point(0, rng.randrange(0, 3000)))
                elif choice < 0.8:
                    client.view_update("live", [{"op": "reloadItems", "items": [{"id": "i%d" % rng.randrange(300),
                                                                               "size": {"width": 100, "height": rng.choice([40, 90, 140])}}]}])
                else:
                    client.view_resize("live", Size(rng.choice([200, 320, 480]), 300))
            client.daemon_sync()
            subscription.poll(0.0)
            client.view_delete("live")
            for event in subscription.poll(1.0):
                if event.name == "view.deleted":
                    break
            self.assertTrue(mirror.deleted)
            self.assertGreater(len(changes), 50)
            self.assertEqual(changes[-1].cause, "deleted")
            for index, change in enumerate(changes):
                self.assertEqual(applied(windows[index], change), windows[index + 1], index)


class SubscriptionBacklog(unittest.TestCase):
    """A subscription whose events nobody takes holds at most SUBSCRIPTION_EVENTS_KEPT of them
    (lowered here to 50): past that its queue is dropped, and its next read subscribes again
    and starts its mirror from a fresh snapshot (a ``view.resync``), as after a seq gap."""

    def test_an_untaken_subscription_resubscribes_instead_of_growing(self) -> None:
        with Daemon() as daemon, Client(daemon.path, timeout=10) as client:
            client._core.SUBSCRIPTION_EVENTS_KEPT = 50
            client.view_create("backlog", "flow", Viewport(320, 300), params=FLOW,
                               sections=[Section("s", [Item("i%d" % n, size=Size(100, 60)) for n in range(500)])])
            subscription = client.subscribe("backlog")
            for step in range(120):
                client.view_scroll("backlog", Point(0, 20 * step))
            self.assertLessEqual(subscription._queued(), 50)
            self.assertGreaterEqual(client._core.subscription_events_dropped, 50)
            first = subscription.next(timeout=5)
            self.assertIsNotNone(first)
            assert first is not None
            self.assertEqual(first.name, "view.resync")
            client.daemon_sync()
            subscription.poll(0.0)
            fresh = client.view_get("backlog")
            self.assertEqual(subscription.mirror.epoch, fresh.epoch)
            self.assertEqual(sorted(subscription.mirror.elements), sorted(a.key for a in fresh.elements))


class NoPerCallState(unittest.TestCase):
    """py_leak: 200,000 daemon.sync calls leave the core's tables empty and memory flat."""

    CALLS = 200_000
    #: Calls in flight at once (pipelined through send/wait_reply, so the run takes seconds, not
    #: the minutes of one round trip after another on a loaded machine).
    BATCH = 64
    #: The last calls, made under tracemalloc.
    TRACED = 20_000

    def calls(self, client: Client, count: int) -> None:
        made = 0
        while made < count:
            if made % 50 == 0:
                client.daemon_sync()  # the typed call, one round trip
                made += 1
                continue
            ids = [client.send("daemon.sync") for _ in range(min(self.BATCH, count - made))]
            for request_id in ids:
                self.assertEqual(client.wait_reply(request_id), {})
            made += len(ids)

    def test_200k_calls_leave_no_per_call_state(self) -> None:
        with Daemon() as daemon, Client(daemon.path, timeout=30) as client:
            self.calls(client, 2000)  # warm-up: caches, the daemon's buffers
            started = time.monotonic()
            rss_before = rss_kib()
            self.calls(client, self.CALLS - self.TRACED)
            # The last calls under tracemalloc (it slows every allocation): one entry kept per
            # call would show as megabytes here.
            gc.collect()
            tracemalloc.start()
            try:
                start = tracemalloc.get_traced_memory()[0]
                self.calls(client, self.TRACED)
                gc.collect()
                grown = tracemalloc.get_traced_memory()[0] - start
            finally:
                tracemalloc.stop()
            rss_grown = rss_kib() - rss_before
            seconds = time.monotonic() - started
            core = client._core
            self.assertEqual(core._expected, {})
            self.assertEqual(core.waiting, 0)
            self.assertEqual(core.stray_count, 0)
            self.assertEqual(len(core.lines), 0)
            self.assertEqual(len(client.events), 0)
            self.assertLess(grown, 64 * 1024, "grew %d bytes over the last %d calls" % (grown, self.TRACED))
            self.assertLess(rss_grown, 4096, "RSS grew %d KiB over %d calls" % (rss_grown, self.CALLS))
            print("\n[py_leak] %d calls in %.1f s; traced growth over the last %d: %d bytes; RSS growth %d KiB"
                  % (self.CALLS, seconds, self.TRACED, grown, rss_grown))


def rss_kib() -> int:
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


if __name__ == "__main__":
    unittest.main()
