"""The shared mirror scenario (clients/conformance/README.md): after every event the mirror
equals the daemon's window (``view.get``'s elements) and its epoch is the view's."""
from __future__ import annotations

import json
import os
import unittest
from typing import List

from support import ROOT, Daemon, jsonl, poll

import asyncio

from layoutd import AsyncClient, Attributes, Client, Mirror

SCENARIO = os.path.join(ROOT, "clients", "conformance", "mirror-scenario.jsonl")


def driver_reply(driver: Client, line: bytes) -> dict:  # type: ignore[type-arg]
    """Sends one line as it is and reads until its reply."""
    driver.send_raw(line + b"\n")
    while True:
        message = driver.read_message(timeout=10)
        assert message is not None, "the daemon closed the driver's connection"
        if "id" in message:
            return message


class MirrorScenario(unittest.TestCase):
    def assert_mirror(self, mirror: Mirror, truth: Client, step: int) -> None:
        snapshot = truth.view_get("mirror")
        self.assertEqual(mirror.epoch, snapshot.epoch, "step %d: epoch" % step)
        self.assertEqual(mirror.sorted(), snapshot.elements, "step %d: elements" % step)
        self.assertEqual(mirror.window, snapshot.window, "step %d: window" % step)
        self.assertEqual(mirror.content_size, snapshot.content_size, "step %d: content size" % step)

    def test_mirror_scenario(self) -> None:
        lines = jsonl(SCENARIO)
        with Daemon() as daemon:
            driver = Client(daemon.path, timeout=10)
            self.addCleanup(driver.close)
            truth = Client(daemon.path, timeout=10)
            self.addCleanup(truth.close)
            first = driver_reply(driver, lines[0])
            self.assertIn("result", first)
            client = Client(daemon.path, timeout=10)
            self.addCleanup(client.close)
            subscription = client.subscribe("mirror")
            mirror = subscription.mirror
            self.assert_mirror(mirror, truth, 1)
            events = refused = largest = 0
            for step, line in enumerate(lines[1:], 2):
                reply = driver_reply(driver, line)
                before = mirror.epoch
                if "error" in reply or reply["result"].get("dryRun"):
                    refused += "error" in reply
                    # Nothing may arrive: the barrier covers the driver's request.
                    client.sync()
                    self.assertEqual(subscription.poll(0), [], "step %d: an event for a refused request" % step)
                    self.assertEqual(mirror.epoch, before)
                else:
                    event = subscription.next(timeout=10)
                    assert event is not None
                    self.assertEqual(event.name, "view.invalidated")
                    self.assertEqual(event.params, reply["result"], "step %d: the event is the reply" % step)
                    events += 1
                self.assert_mirror(mirror, truth, step)
                largest = max(largest, len(mirror))
            self.assertGreater(events, 300)
            self.assertGreater(refused, 0)
            self.assertGreater(largest, 10)
            print("\n[mirror] %d lines, %d events applied, %d refused, up to %d elements" % (len(lines), events, refused, largest))

    def test_own_replies_and_events_not_applied_twice(self) -> None:
        with Daemon() as daemon:
            client = Client(daemon.path, timeout=10)
            self.addCleanup(client.close)
            client.view_create("v", "flow", {"width": 320, "height": 200}, params={"itemSize": {"width": 100, "height": 100}},
                               sections=[{"id": "s", "items": [{"id": str(i)} for i in range(30)]}])
            subscription = client.subscribe("v")
            mirror = subscription.mirror
            change = client.view_scroll("v", {"x": 0, "y": 150})
            self.assertEqual(mirror.epoch, 1)  # the client applied its own reply at once
            self.assertTrue(mirror.apply(change))  # applying it again is a no-op
            self.assertEqual(mirror.epoch, 1)
            event = subscription.next()  # then its event: same epoch, skipped
            assert event is not None
            self.assertEqual(mirror.epoch, 1)
            self.assertEqual(mirror.sorted(), client.view_get("v").elements)

    def test_epoch_gap_refetches(self) -> None:
        with Daemon() as daemon:
            client = Client(daemon.path, timeout=10)
            self.addCleanup(client.close)
            other = Client(daemon.path, timeout=10)
            self.addCleanup(other.close)
            client.view_create("v", "flow", {"width": 320, "height": 200}, params={"itemSize": {"width": 100, "height": 100}},
                               sections=[{"id": "s", "items": [{"id": str(i)} for i in range(30)]}])
            subscription = client.subscribe("v")
            other.view_scroll("v", {"x": 0, "y": 100})
            other.view_scroll("v", {"x": 0, "y": 300})
            client.sync()
            # Lose the first event: the mirror sees epoch 2 after 0 and fetches the view.
            subscription._queue.popleft()
            subscription.next()
            self.assertEqual(subscription.mirror.epoch, 2)
            self.assertEqual(subscription.mirror.sorted(), client.view_get("v").elements)

    def test_seq_gap_resubscribes(self) -> None:
        with Daemon() as daemon:
            client = Client(daemon.path, timeout=10)
            self.addCleanup(client.close)
            client.view_create("v", "flow", {"width": 320, "height": 200}, params={"itemSize": {"width": 100, "height": 100}},
                               sections=[{"id": "s", "items": [{"id": str(i)} for i in range(30)]}])
            subscription = client.subscribe("v")
            first_id = subscription.id
            client.last_seq -= 1  # the next event's seq now looks like a gap
            client.view_scroll("v", {"x": 0, "y": 400})
            poll(lambda: client.gap or client.read_message(1) and client.gap, what="a seq gap")
            event = subscription.next()
            assert event is not None
            self.assertEqual(event.name, "view.resync")
            self.assertNotEqual(subscription.id, first_id)
            self.assertEqual(subscription.mirror.sorted(), client.view_get("v").elements)
            self.assertEqual(subscription.mirror.epoch, 1)

    def test_deleted_ends_iteration(self) -> None:
        with Daemon() as daemon:
            client = Client(daemon.path, timeout=10)
            self.addCleanup(client.close)
            client.view_create("v", "flow", {"width": 320, "height": 200}, sections=[{"id": "s", "items": [{"id": "a"}]}])
            subscription = client.subscribe("v")
            client.view_delete("v")
            names = [event.name for event in subscription]
            self.assertEqual(names, ["view.deleted"])
            self.assertTrue(subscription.mirror.deleted)
            self.assertEqual(len(subscription.mirror), 0)


class AsyncMirrorScenario(unittest.TestCase):
    def test_mirror_scenario_async(self) -> None:
        lines = jsonl(SCENARIO)

        async def main(path: str, driver: Client) -> int:
            self.assertIn("result", driver_reply(driver, lines[0]))
            async with await AsyncClient.connect(path) as client:
                subscription = await client.subscribe("mirror")
                events = 0
                for step, line in enumerate(lines[1:], 2):
                    reply = driver_reply(driver, line)  # blocking: the reader task buffers meanwhile
                    if "error" in reply or reply["result"].get("dryRun"):
                        await client.sync()
                        self.assertTrue(subscription._queue.empty(), "step %d: an event for a refused request" % step)
                    else:
                        event = await subscription.next(timeout=10)
                        assert event is not None
                        self.assertEqual(event.params, reply["result"])
                        events += 1
                    snapshot = await client.view_get("mirror")
                    self.assertEqual(subscription.mirror.epoch, snapshot.epoch, "step %d" % step)
                    self.assertEqual(subscription.mirror.sorted(), snapshot.elements, "step %d" % step)
                return events

        with Daemon() as daemon, Client(daemon.path, timeout=10) as driver:
            self.assertGreater(asyncio.run(main(daemon.path, driver)), 300)


def flow_view(client: Client, items: int = 30) -> None:
    client.view_create("v", "flow", {"width": 320, "height": 200}, params={"itemSize": {"width": 100, "height": 100}},
                       sections=[{"id": "s", "items": [{"id": "i%d" % n} for n in range(items)]}])


class MirrorResync(unittest.TestCase):
    def test_real_resync_replaces_the_mirror(self) -> None:
        # A subscriber that reads nothing while thousands of scrolls are applied falls behind
        # the output cap and gets one view.resync instead of the events it missed.
        with Daemon("--set", "output-cap=4096") as daemon:
            client = Client(daemon.path, timeout=10)
            self.addCleanup(client.close)
            driver = Client(daemon.path, timeout=10)
            self.addCleanup(driver.close)
            flow_view(driver)
            subscription = client.subscribe("v")
            lines = b"".join(b'{"method":"view.scroll","params":{"view":"v","offset":{"x":0,"y":%d}}}\n' % (n % 900)
                             for n in range(1, 3001))
            driver.send_raw(lines)
            driver.sync()
            self.assertEqual(driver.view_get("v").epoch, 3000)
            names: List[str] = []
            while subscription.mirror.epoch < 3000:
                event = subscription.next(timeout=10)
                assert event is not None
                names.append(event.name)
            self.assertIn("view.resync", names)
            self.assertLess(len(names), 3000)
            self.assertEqual(subscription.mirror.sorted(), driver.view_get("v").elements)
            client.sync()
            self.assertEqual(subscription.poll(0), [])

    def test_truncated_window(self) -> None:
        with Daemon("--set", "max-window-elements=5") as daemon:
            client = Client(daemon.path, timeout=10)
            self.addCleanup(client.close)
            flow_view(client, 60)
            client.view_set_window_margin("v", 300)
            subscription = client.subscribe("v")
            self.assertTrue(subscription.mirror.window_truncated)
            for y in (0, 250, 900, 1500, 400, 0):
                client.view_scroll("v", {"x": 0, "y": y})
                subscription.next(timeout=10)
                snapshot = client.view_get("v")
                self.assertEqual(len(subscription.mirror), 5)
                self.assertEqual(subscription.mirror.sorted(), snapshot.elements)


if __name__ == "__main__":
    unittest.main()
