"""The client libraries against a real layoutd: each replays every transcript and conformance
file through its API, follows the shared mirror scenario (clients/conformance) with its mirror
equal to the daemon's window after every event, and restores its views after a restart.

The Swift client (LayoutdClient) is driven by the `layoutd-client-check` executable.
"""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import unittest

import transcripts
from harness import ROOT, Daemon

sys.path.insert(0, os.path.join(ROOT, "scripts"))
import readme_blocks  # noqa: E402
from protocolgen import swift_client  # noqa: E402

CHECK = os.path.join(ROOT, ".build", "debug", "layoutd-client-check")
SCENARIO = os.path.join(ROOT, "clients", "conformance", "mirror-scenario.jsonl")
SWIFT_README = os.path.join(ROOT, "clients", "swift", "README.md")
# The README's blocks as `swift build` compiles them (scripts/generate-protocol.py writes the
# target's sources from the README).
README_EXAMPLE = os.path.join(ROOT, ".build", "debug", "layoutd-readme-example")
SWIFT = os.environ.get("SWIFT") or shutil.which("swift") or "/opt/swift/usr/bin/swift"


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


class SwiftReadmeTests(unittest.TestCase):
    """Every Swift block of clients/swift/README.md is tested: the `run` block and the `compile`
    blocks are the layoutd-readme-example target's sources (written by
    scripts/generate-protocol.py, compiled by `swift build`), the run block runs twice against a
    real daemon, and the `config` block is evaluated as a Package.swift."""

    def test_every_block_is_of_a_kind_this_suite_tests(self):
        blocks = readme_blocks.blocks(SWIFT_README)
        self.assertTrue(blocks)
        for block in blocks:
            self.assertIn(block["kind"], swift_client.README_KINDS, "line %d" % block["line"])
        self.assertEqual([b["kind"] for b in blocks].count("run"), 1)

    def test_the_example_target_is_the_readmes_code(self):
        with open(swift_client.OUTPUT, encoding="utf-8") as handle:
            methods = handle.read()
        for path, text in swift_client.readme_outputs(methods).items():
            with self.subTest(path=os.path.relpath(path, ROOT)):
                with open(path, encoding="utf-8") as handle:
                    self.assertEqual(handle.read(), text, "run scripts/generate-protocol.py")

    def test_the_complete_example_runs_twice(self):
        self.assertTrue(os.access(README_EXAMPLE, os.X_OK), "swift build --product layoutd-readme-example")
        with Daemon() as daemon:
            env = dict(os.environ, LAYOUTD_SOCKET=daemon.path)
            for run in (1, 2):
                result = subprocess.run([README_EXAMPLE], capture_output=True, text=True, timeout=120, env=env)
                self.assertEqual(result.returncode, 0, "run %d:\n%s%s" % (run, result.stdout, result.stderr))
                self.assertIn("no such photo", result.stdout)
                self.assertRegex(result.stdout, r"epoch 3: \d+ elements in the window")
                self.assertIn("strays: 0, events dropped: 0", result.stdout)

    def test_the_package_config_block(self):
        """The Package.swift fragment, inside a package of its own, evaluated by SwiftPM (no
        network: dump-package resolves nothing); the product and package it names are ours."""
        (config,) = [b for b in readme_blocks.blocks(SWIFT_README) if b["kind"] == "config"]
        with tempfile.TemporaryDirectory() as scratch:
            with open(os.path.join(scratch, "Package.swift"), "w") as handle:
                handle.write('// swift-tools-version:6.0\nimport PackageDescription\n\nlet package = Package(\n    name: "MyApp",\n'
                             + config["code"] + ")\n")
            result = subprocess.run([SWIFT, "package", "dump-package"], cwd=scratch, capture_output=True, text=True, timeout=120)
            self.assertEqual(result.returncode, 0, result.stderr)
        manifest = json.loads(result.stdout)
        (dependency,) = manifest["dependencies"]
        source = dependency["sourceControl"][0]
        (target,) = manifest["targets"]
        products = [d["product"] for d in target["dependencies"] if "product" in d]
        self.assertEqual([(p[0], p[1]) for p in products], [("LayoutdClient", source["identity"])])
        with open(os.path.join(ROOT, "Package.swift"), encoding="utf-8") as handle:
            ours = handle.read()
        self.assertIn('.library(name: "LayoutdClient"', ours)
        self.assertEqual(source["identity"], "layoutd")


if __name__ == "__main__":
    unittest.main()
