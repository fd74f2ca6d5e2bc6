"""The fd store emulator (fdstore.py) proven with a stand-in service (fdstore_child.py) before
layoutd relies on it: what a restart hands back, under which names and in which order, and
systemd 252's rules for names, limits, duplicates, hang-ups, removal, access and stops."""
import json
import os
import signal
import socket
import sys
import unittest

from fdstore import ServiceManager
from harness import DAEMON, ProcessTestCase, held_listener

CHILD = [sys.executable, os.path.join(os.path.dirname(os.path.abspath(__file__)), "fdstore_child.py")]


def open_fds():
    return set(os.listdir("/proc/self/fd"))


class FdStoreEmulatorTests(ProcessTestCase):
    prefix = "layoutd-fdstore-"

    def manager(self, plan, **options):
        manager = ServiceManager(CHILD + [json.dumps(plan)], self.dir, **options)
        self.addCleanup(manager.close)
        return manager

    def passed(self, manager, after=0):
        """What the latest start reported it was passed: [[name, fd, kind], …]."""
        _, message = manager.wait_for("STATUS=passed ", after)
        return json.loads(message.fields["STATUS"][len("passed "):])

    def test_a_connection_and_the_state_survive_a_restart(self):
        before = open_fds()
        path, listener = held_listener(self.dir)
        manager = self.manager({
            "fresh": [["accept_and_store", "conn.1"], ["store_memfd", "state", "v1"]],
            "term": [["remove", "state"], ["store_memfd", "state", "v2 from SIGTERM"], ["barrier"]],
            "resumed": [["greet", "conn.1"]],
        }, sockets=[("ipc", listener)], fd_store_max=4)
        manager.start()
        first = manager.pid
        client = socket.socket(socket.AF_UNIX)
        client.settimeout(10)
        client.connect(path)
        manager.wait_ready()
        self.assertEqual(self.passed(manager), [["ipc", 3, "listener"]])
        self.assertEqual(manager.stored(), ["state", "conn.1"])

        mark = manager.mark
        self.assertEqual(manager.restart(), 0)
        manager.wait_ready(after=mark)
        self.assertNotEqual(manager.pid, first)
        # The socket unit's fd first, then the store's, newest first, from fd 3 on.
        self.assertEqual(self.passed(manager, mark),
                         [["ipc", 3, "listener"], ["state", 4, "memfd:v2 from SIGTERM"], ["conn.1", 5, "stream"]])
        self.assertIn("barrier answered", manager.statuses)
        # The client never reconnected: the new instance answers on the same connection.
        self.assertEqual(client.makefile("rb").readline().decode(), "resumed pid=%d state=v2 from SIGTERM\n" % manager.pid)

        # A stop closes the store: the next start gets the socket alone.
        self.assertEqual(manager.stop(), 0)
        self.assertEqual(manager.stored(), [])
        mark = manager.mark
        manager.start()
        self.assertEqual(self.passed(manager, mark), [["ipc", 3, "listener"]])
        # With the store closed the client's connection ends: nothing holds it any more.
        manager.kill(signal.SIGKILL)
        manager.wait_exit()
        self.assertEqual(client.recv(1), b"")
        client.close()
        listener.close()
        manager.close()
        self.assertEqual(open_fds(), before)

    def test_names_limits_duplicates_and_removal(self):
        manager = self.manager({"fresh": [
            ["store_raw", "FDSTORE=1", "a"],                      # no FDNAME: "stored"
            ["store_raw", "FDSTORE=1\nFDNAME=bad:name", "b"],     # invalid FDNAME: "stored"
            ["store_twice", "twice", "c"],                        # the same fd three times: once
            ["store_memfd", "x", "d"],
            ["store_memfd", "over", "e"],                         # a fifth: over the limit
            ["remove", "stored"],                                 # both "stored" go
            ["store_memfd", "z", "f"],                            # room again
            ["store_raw", "STATUS=fds with a status", "g"],       # fds without FDSTORE: closed
        ]}, fd_store_max=4)
        manager.start()
        manager.wait_ready()
        self.assertEqual(manager.stored(), ["z", "x", "twice"])
        self.assertEqual(manager.dropped, [("twice", "duplicate"), ("twice", "duplicate"), ("over", "FileDescriptorStoreMax=4")])
        mark = manager.mark
        manager.restart()
        manager.wait_ready(after=mark)
        self.assertEqual(self.passed(manager, mark), [["z", 3, "memfd:f"], ["x", 4, "memfd:d"], ["twice", 5, "memfd:c"]])

    def test_hangups_and_other_processes(self):
        manager = self.manager({"fresh": [
            ["store_orphan", "gone"], ["store_orphan", "kept", "nopoll"], ["store_from_child", "intruder"],
        ]}, fd_store_max=8)
        manager.start()
        manager.wait_ready()
        # The peer of "gone" closed: POLLHUP drops it. FDPOLL=0 keeps "kept" regardless. The
        # child's store came from another pid: ignored under NotifyAccess=main.
        self.assertEqual(manager.stored(), ["kept"])
        self.assertIn(("gone", "POLLHUP"), manager.dropped)
        self.assertEqual(len(manager.ignored), 1)
        self.assertIn("NotifyAccess=main", manager.ignored[0][0])

    def test_a_crash_keeps_the_store_and_the_default_limit_stores_nothing(self):
        manager = self.manager({"fresh": [["store_memfd", "state", "crash-proof"], ["exit", 3]]}, fd_store_max=2)
        manager.start()
        self.assertEqual(manager.wait_exit(), 3)
        # Restart=on-failure: the process is gone already, the store is not.
        mark = manager.mark
        self.assertEqual(manager.restart(), 3)
        manager.wait_ready(after=mark)
        self.assertEqual(self.passed(manager, mark), [["state", 3, "memfd:crash-proof"]])

        unlimited = self.manager({"fresh": [["store_memfd", "state", "lost"]]})
        unlimited.start()
        unlimited.wait_ready()
        self.assertEqual(unlimited.stored(), [])
        self.assertEqual(unlimited.dropped, [("state", "FileDescriptorStoreMax=0")])


SWIFT_CHECK = os.path.join(os.path.dirname(DAEMON), "layoutd-fdstore-check")


@unittest.skipUnless(os.access(SWIFT_CHECK, os.X_OK), "swift build --product layoutd-fdstore-check")
class SwiftBuildingBlocksTests(ProcessTestCase):
    """The Systemd module's Notifier.store, barrier, ListenSockets.passed and take(named:) and
    MemoryFile in a real process (Sources/layoutd-fdstore-check) under the emulator."""

    prefix = "layoutd-fdstore-swift-"

    def test_a_swift_service_hands_its_client_and_state_over_a_restart(self):
        path, listener = held_listener(self.dir)
        manager = ServiceManager([SWIFT_CHECK], self.dir, sockets=[("ipc", listener)], fd_store_max=4)
        self.addCleanup(manager.close)
        manager.start()
        client = socket.socket(socket.AF_UNIX)
        client.settimeout(10)
        client.connect(path)
        manager.wait_ready()
        self.assertEqual(manager.stored(), ["state", "conn.1"])
        mark = manager.mark
        self.assertEqual(manager.restart(), 0)
        manager.wait_ready(after=mark)
        statuses = manager.statuses
        self.assertIn("barrier confirmed", statuses)
        self.assertIn('passed [["ipc", 3, "listener"], ["state", 4, "memfd:v2 from SIGTERM"], ["conn.1", 5, "stream"]]', statuses)
        self.assertIn("cloexec true environment cleared", statuses)
        self.assertEqual(client.makefile("rb").readline().decode(), "resumed pid=%d state=v2 from SIGTERM\n" % manager.pid)
        self.assertEqual(manager.stop(), 0)
        client.close()
        listener.close()


if __name__ == "__main__":
    unittest.main()
