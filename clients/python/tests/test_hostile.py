"""The hostile-server suite: every scenario of system-tests/hostile/scenarios.json (a fake layoutd that
trickles, floods, writes endless, huge, malformed, too deep or wrongly shaped lines, duplicate,
unknown and null ids, or closes or never accepts), against the blocking Client and the
AsyncClient, each connecting with the table's deadline and line cap and calling ``daemon.sync``.

Each case checks the outcome (ok / timeout / protocol / closed / unreachable), that every call
ended no later than its deadline plus the table's pollSlack, the stray count, and the memory
the client grew by while the case ran (tracemalloc's peak, against ``memoryMiB``). A protocol
case also checks that a second call waiting at the time (a callback, or a concurrent
coroutine) fails with the same ProtocolError. The table of expected against actual outcomes is
printed once per class."""
from __future__ import annotations

import asyncio
import json
import os
import select
import shutil
import subprocess
import sys
import tempfile
import time
import tracemalloc
import unittest
from typing import Any, Dict, List, Optional, Tuple

from support import ROOT

from layoutd import AsyncClient, Client, ConnectionClosed, ProtocolError, Timeout

HOSTILE = os.path.join(ROOT, "system-tests", "hostile")
with open(os.path.join(HOSTILE, "scenarios.json")) as _handle:
    TABLE = json.load(_handle)
DEADLINE: float = TABLE["deadline"]
LINE_CAP: int = TABLE["lineCap"]
SLACK: float = TABLE["pollSlack"]
OUTCOMES = ("ok", "timeout", "protocol", "closed", "unreachable")
MIB = 1 << 20


class Case:
    """What one run of a scenario gave."""

    def __init__(self) -> None:
        self.outcome = "?"
        self.detail = ""
        self.slowest = 0.0      # the longest call (or connect), in seconds
        self.strays = 0
        self.peak = 0           # bytes tracemalloc saw allocated beyond the start, at most
        self.others: List[Optional[BaseException]] = []  # what the other waiting call got
        self.error: Optional[BaseException] = None


def classify(error: BaseException, connecting: bool) -> str:
    if connecting and isinstance(error, (Timeout, OSError)):
        return "unreachable"
    if isinstance(error, Timeout):
        return "timeout"
    if isinstance(error, ProtocolError):
        return "protocol"
    if isinstance(error, ConnectionClosed):
        return "closed"
    return "unexpected %s: %s" % (type(error).__name__, error)


def run_sync(path: str) -> Case:
    case = Case()
    connecting = True
    client: Optional[Client] = None
    started = time.monotonic()
    try:
        client = Client(path, timeout=DEADLINE, line_cap=LINE_CAP)
        case.slowest = time.monotonic() - started
        connecting = False
        other_heard: List[Optional[BaseException]] = []
        # A second call waiting meanwhile, without blocking: it must hear the same fate.
        client.send("daemon.sync", callback=lambda result, error: other_heard.append(error))
        for _ in range(2):
            started = time.monotonic()
            try:
                client.call("daemon.sync")
            finally:
                case.slowest = max(case.slowest, time.monotonic() - started)
        case.outcome = "ok"
    except BaseException as error:  # noqa: B902 - every outcome is recorded, none escapes
        case.slowest = max(case.slowest, time.monotonic() - started)
        case.outcome, case.error = classify(error, connecting), error
        if not connecting:
            case.others = other_heard
    finally:
        if client is not None:
            case.strays = client.stray_count
            client.close()
    return case


async def run_async(path: str) -> Case:
    case = Case()
    connecting = True
    client: Optional[AsyncClient] = None
    started = time.monotonic()
    try:
        client = await AsyncClient.connect(path, timeout=DEADLINE, line_cap=LINE_CAP)
        case.slowest = time.monotonic() - started
        connecting = False
        other = asyncio.ensure_future(client.call("daemon.sync"))
        for _ in range(2):
            started = time.monotonic()
            try:
                await client.call("daemon.sync")
            finally:
                case.slowest = max(case.slowest, time.monotonic() - started)
        case.outcome = "ok"
        await other
    except BaseException as error:  # noqa: B902
        case.slowest = max(case.slowest, time.monotonic() - started)
        case.outcome, case.error = classify(error, connecting), error
        if not connecting:
            try:
                await asyncio.wait_for(other, DEADLINE + SLACK)
                case.others = [None]
            except BaseException as heard:  # noqa: B902
                case.others = [heard]
    finally:
        if client is not None:
            case.strays = client.stray_count
            await client.close()
    return case


class HostileServer(unittest.TestCase):
    """system-tests/hostile/server.py once per class, in a temporary directory."""

    face = ""
    rows: List[Tuple[str, str, str, float, int, float]] = []
    server: "subprocess.Popen[bytes]"
    directory = ""

    @classmethod
    def setUpClass(cls) -> None:
        cls.rows = []
        cls.directory = tempfile.mkdtemp(prefix="layoutd-hostile-py-")
        cls.server = subprocess.Popen([sys.executable, os.path.join(HOSTILE, "server.py"), cls.directory],
                                      stdin=subprocess.PIPE, stdout=subprocess.PIPE)
        assert cls.server.stdout is not None
        ready, _, _ = select.select([cls.server.stdout], [], [], 30)
        line = cls.server.stdout.readline() if ready else b""
        if line.strip() != b"ready":
            cls.tearDownClass()
            raise RuntimeError("system-tests/hostile/server.py did not print ready (got %r)" % line)

    @classmethod
    def tearDownClass(cls) -> None:
        assert cls.server.stdin is not None
        cls.server.stdin.close()  # the server serves until its stdin closes
        try:
            cls.server.wait(10)
        except subprocess.TimeoutExpired:
            cls.server.kill()
            cls.server.wait()
        if cls.server.stdout is not None:
            cls.server.stdout.close()
        shutil.rmtree(cls.directory, ignore_errors=True)
        if cls.rows:
            print("\n[hostile, %s] scenario: expected -> actual (slowest call, strays, peak MiB)" % cls.face)
            for name, expected, actual, slowest, strays, peak in cls.rows:
                print("  %-26s %-11s -> %-11s %.3f s  %d  %.1f%s" % (name, expected, actual, slowest, strays, peak,
                                                                    "" if expected == actual else "   MISMATCH"))

    def run_case(self, path: str) -> Case:
        raise NotImplementedError

    def check(self, scenario: Dict[str, Any]) -> None:
        expected = scenario["outcome"]
        self.assertIn(expected, OUTCOMES, "%s: an outcome this suite does not know" % scenario["name"])
        path = os.path.join(self.directory, scenario["name"] + ".sock")
        tracemalloc.start()
        try:
            baseline = tracemalloc.get_traced_memory()[0]
            tracemalloc.reset_peak()
            case = self.run_case(path)
            case.peak = tracemalloc.get_traced_memory()[1] - baseline
        finally:
            tracemalloc.stop()
        self.rows.append((scenario["name"], expected, case.outcome, case.slowest, case.strays, case.peak / MIB))
        about = "%s (%s): expected %s, got %s%s" % (scenario["name"], scenario["does"], expected, case.outcome,
                                                   "" if case.error is None else " (%r)" % (case.error,))
        self.assertEqual(case.outcome, expected, about)
        self.assertLessEqual(case.slowest, DEADLINE + SLACK, "%s: a call took %.3f s" % (about, case.slowest))
        self.assertGreaterEqual(case.strays, scenario.get("strays", 0), "%s: strays" % about)
        if "memoryMiB" in scenario:
            self.assertLessEqual(case.peak, scenario["memoryMiB"] * MIB, "%s: grew %.1f MiB" % (about, case.peak / MIB))
        if expected == "protocol":
            # The call waiting alongside failed with the very same error.
            self.assertEqual(len(case.others), 1, about)
            self.assertIs(case.others[0], case.error, about)


class SyncHostile(HostileServer):
    face = "Client"

    def run_case(self, path: str) -> Case:
        return run_sync(path)


class AsyncHostile(HostileServer):
    face = "AsyncClient"

    def run_case(self, path: str) -> Case:
        return asyncio.run(run_async(path))


class TypedResults(unittest.TestCase):
    """A typed method's result of the wrong shape (a number where a list or an object belongs,
    a string for a number) is the client's ProtocolError, not a KeyError or TypeError out of the reader. The
    peer is the test itself: a socket pair answering with the given result."""

    def answer(self, result: str) -> Any:
        import socket
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
        self.addCleanup(theirs.close)
        client = Client(sock=ours, timeout=5)
        self.addCleanup(client.close)
        theirs.sendall(b'{"id":1,"result":%s}\n' % result.encode())
        return client

    def test_wrong_shapes(self) -> None:
        cases = [
            ("view_get", ("photos",), '{"view":"photos","epoch":1,"elements":7}'),
            ("view_scroll", ("photos", {"x": 0, "y": 1}), '{"view":"photos","epoch":"two"}'),
            ("view_hit_test", ("photos", {"x": 0, "y": 1}), '{"element":{"id":5}}'),
        ]
        for method, arguments, result in cases:
            with self.subTest(method=method, result=result):
                client = self.answer(result)
                with self.assertRaises(ProtocolError) as raised:
                    getattr(client, method)(*arguments)
                self.assertIn("the result of", str(raised.exception))


def _make(scenario: Dict[str, Any]) -> Any:
    def test(self: HostileServer) -> None:
        self.check(scenario)
    test.__doc__ = "%s: %s -> %s" % (scenario["name"], scenario["does"], scenario["outcome"])
    return test


for _scenario in TABLE["scenarios"]:
    for _class in (SyncHostile, AsyncHostile):
        setattr(_class, "test_" + _scenario["name"], _make(_scenario))

del HostileServer, _scenario, _class  # a base, not a test case of its own (nor twice one)


if __name__ == "__main__":
    unittest.main()
