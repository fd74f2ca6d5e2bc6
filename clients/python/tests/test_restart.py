"""The daemon dies (SIGKILL, and SIGTERM with daemon.shutdown) and a new one serves the same
socket: the Reconnector re-creates the caller's views from the caller's own last data,
subscribes again, and the mirror converges to the new daemon's window."""
from __future__ import annotations

import asyncio
import signal
import time
import unittest
from typing import Any, Awaitable, Callable, Dict

from support import Daemon, poll

from layoutd import AsyncReconnector, Client, Reconnector


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


async def poll_async(condition: Callable[[], Awaitable[bool]], timeout: float = 10.0, what: str = "a condition") -> None:
    """Awaits ``condition()`` until it holds (no fixed sleeps: each try waits on events)."""
    deadline = time.monotonic() + timeout
    while not await condition():
        if time.monotonic() > deadline:
            raise AssertionError("timed out waiting for %s" % what)


class AsyncRestart(unittest.TestCase):
    """The same contract through asyncio: AsyncReconnector."""

    def restart(self, sig: int) -> None:
        with Daemon() as daemon:
            asyncio.run(self.scenario(daemon, sig))

    async def scenario(self, daemon: Daemon, sig: int) -> None:
        data = caller_data()
        reconnector = await AsyncReconnector.connect(daemon.path, restart_timeout=20)
        try:
            mirror = await reconnector.add_view("photos", lambda: data)
            self.assertEqual(len(mirror), 6)
            await reconnector.run(lambda c: c.view_scroll("photos", {"x": 0, "y": 330}))
            data["viewport"] = {"width": 320, "height": 200, "offset": {"x": 0, "y": 330}}

            async def scrolled() -> bool:
                await reconnector.poll(0.05)
                return mirror.epoch == 1
            await poll_async(scrolled, what="the scroll's event")
            before = mirror.sorted()
            daemon.restart(sig)
            data["sections"] = [{"id": "s", "items": [{"id": "i%d" % n} for n in range(1, 40)]}]

            async def reconnected() -> bool:
                await reconnector.poll(0.05)
                return reconnector.reconnects == 1
            await poll_async(reconnected, timeout=20, what="a reconnect")
            with Client(daemon.path, timeout=10) as fresh:
                snapshot = fresh.view_get("photos")
            self.assertEqual(mirror.epoch, snapshot.epoch)
            self.assertEqual(mirror.sorted(), snapshot.elements)
            self.assertEqual(snapshot.viewport.offset.y if snapshot.viewport.offset else None, 330)
            self.assertNotEqual(mirror.sorted(), before)
            self.assertIs(reconnector.mirrors["photos"], mirror, "the caller's mirror object survives")
            # The new subscription is live: an event after the restart reaches the same mirror.
            await reconnector.run(lambda c: c.view_scroll("photos", {"x": 0, "y": 0}))

            async def live() -> bool:
                await reconnector.poll(0.05)
                return mirror.epoch == snapshot.epoch + 1
            await poll_async(live, what="an event after the restart")
            with Client(daemon.path, timeout=10) as fresh:
                self.assertEqual(mirror.sorted(), fresh.view_get("photos").elements)
        finally:
            await reconnector.close()

    def test_restart_after_kill(self) -> None:
        self.restart(signal.SIGKILL)

    def test_restart_after_sigterm(self) -> None:
        self.restart(signal.SIGTERM)

    def test_run_retries_once_after_a_restart(self) -> None:
        async def scenario(daemon: Daemon) -> None:
            reconnector = await AsyncReconnector.connect(daemon.path, restart_timeout=20)
            try:
                await reconnector.add_view("v", caller_data)
                daemon.restart(signal.SIGKILL)
                snapshot = await reconnector.run(lambda c: c.view_get("v"))
                self.assertEqual(snapshot.item_count, 40)
                self.assertEqual(reconnector.reconnects, 1)
            finally:
                await reconnector.close()
        with Daemon() as daemon:
            asyncio.run(scenario(daemon))


if __name__ == "__main__":
    unittest.main()
