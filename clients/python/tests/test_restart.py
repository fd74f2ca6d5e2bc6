"""The daemon dies (SIGKILL, and SIGTERM with daemon.shutdown) and a new one serves the same
socket: the Reconnector re-creates the caller's views from the caller's own last data,
subscribes again, and the mirror converges to the new daemon's window."""
from __future__ import annotations

import signal
import unittest
from typing import Any, Dict

from support import Daemon, poll

from layoutd import Client, Reconnector


def caller_data() -> Dict[str, Any]:
    return {"strategy": "flow", "params": {"itemSize": {"width": 100, "height": 100}},
            "viewport": {"width": 320, "height": 200},
            "sections": [{"id": "s", "items": [{"id": "i%d" % n} for n in range(40)]}]}


class Restart(unittest.TestCase):
    def restart(self, sig: int) -> None:
        with Daemon() as daemon:
            data = caller_data()
            reconnector = Reconnector(daemon.path, restart_timeout=20)
            self.addCleanup(reconnector.close)
            mirror = reconnector.add_view("photos", lambda: data)
            self.assertEqual(len(mirror), 6)
            # The caller scrolls and keeps its own data up to date (where it scrolled to).
            reconnector.run(lambda c: c.view_scroll("photos", {"x": 0, "y": 330}))
            data["viewport"] = {"width": 320, "height": 200, "offset": {"x": 0, "y": 330}}
            poll(lambda: reconnector.poll(0.05) is not None and mirror.epoch == 1, what="the scroll's event")
            before = mirror.sorted()
            # The caller also changes its data (deletes an item) while the daemon is down.
            daemon.restart(sig)
            data["sections"] = [{"id": "s", "items": [{"id": "i%d" % n} for n in range(1, 40)]}]
            poll(lambda: reconnector.poll(0.05) is not None and reconnector.reconnects == 1, timeout=20, what="a reconnect")
            with Client(daemon.path, timeout=10) as fresh:
                snapshot = fresh.view_get("photos")
            self.assertEqual(mirror.epoch, snapshot.epoch)
            self.assertEqual(mirror.sorted(), snapshot.elements)
            self.assertEqual(snapshot.viewport.offset.y if snapshot.viewport.offset else None, 330)
            self.assertNotEqual(mirror.sorted(), before)  # the deleted item moved everything
            # And the subscription is live on the new daemon.
            reconnector.run(lambda c: c.view_scroll("photos", {"x": 0, "y": 0}))
            poll(lambda: reconnector.poll(0.05) is not None and mirror.epoch == snapshot.epoch + 1, what="an event after the restart")
            with Client(daemon.path, timeout=10) as fresh:
                self.assertEqual(mirror.sorted(), fresh.view_get("photos").elements)

    def test_restart_after_kill(self) -> None:
        self.restart(signal.SIGKILL)

    def test_restart_after_sigterm(self) -> None:
        self.restart(signal.SIGTERM)

    def test_run_retries_once_after_a_restart(self) -> None:
        with Daemon() as daemon:
            reconnector = Reconnector(daemon.path, restart_timeout=20)
            self.addCleanup(reconnector.close)
            reconnector.add_view("v", caller_data)
            daemon.restart(signal.SIGKILL)
            snapshot = reconnector.run(lambda c: c.view_get("v"))
            self.assertEqual(snapshot.item_count, 40)
            self.assertEqual(reconnector.reconnects, 1)


if __name__ == "__main__":
    unittest.main()
