"""The client libraries against a real layoutd: each replays every transcript and conformance
file through its API, follows the shared mirror scenario (clients/conformance) with its mirror
equal to the daemon's window after every event, and restores its views after a restart.

The Swift client (LayoutdClient) is driven by the `layoutd-client-check` executable.
"""
import os
import subprocess
import unittest

import transcripts
from harness import ROOT, Daemon

CHECK = os.path.join(ROOT, ".build", "debug", "layoutd-client-check")
SCENARIO = os.path.join(ROOT, "clients", "conformance", "mirror-scenario.jsonl")


def run(*args, timeout=120):
    return subprocess.run([CHECK, *args], capture_output=True, text=True, timeout=timeout)


class SwiftClientTests(unittest.TestCase):
    def test_every_transcript_through_the_client(self):
        paths = transcripts.all_transcripts()
        self.assertGreater(len(paths), 30)
        for path in paths:
            with self.subTest(transcript=os.path.relpath(path, ROOT)):
                with Daemon(*transcripts.flags_for(path)) as daemon:
                    result = run("transcript", daemon.path, path)
                    self.assertEqual(result.returncode, 0, result.stderr + result.stdout)
                    self.assertIn("lines compared", result.stdout)

    def test_the_shared_mirror_scenario(self):
        with Daemon() as daemon:
            result = run("mirror", daemon.path, SCENARIO)
            self.assertEqual(result.returncode, 0, result.stderr + result.stdout)
            self.assertIn("the mirror equal to the daemon's window after every one", result.stdout)

    def test_views_come_back_after_a_restart(self):
        daemon = Daemon()
        daemon.start()
        try:
            created = run("restart-create", daemon.path)
            self.assertEqual(created.returncode, 0, created.stderr)
            # Killed: no shutdown, the socket file left behind, every view gone.
            daemon.process.kill()
            daemon.process.wait()
            # The restore waits for the socket to accept: start the daemon again meanwhile.
            restoring = subprocess.Popen([CHECK, "restart-restore", daemon.path], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
            daemon.start()
            out, err = restoring.communicate(timeout=60)
            self.assertEqual(restoring.returncode, 0, err + out)
            self.assertIn("view restored with 500 items", out)
        finally:
            daemon.stop()


if __name__ == "__main__":
    unittest.main()
