"""Runs examples/csv_picture.py against a daemon (found through LAYOUTD_SOCKET) and checks
the picture: one rectangle per CSV row, at the frames the daemon reports."""
from __future__ import annotations

import os
import re
import subprocess
import sys
import tempfile
import unittest

from support import Daemon

EXAMPLES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "examples")


class CsvPicture(unittest.TestCase):
    def test_csv_picture(self) -> None:
        with Daemon() as daemon, tempfile.TemporaryDirectory() as out:
            picture = os.path.join(out, "picture.svg")
            env = dict(os.environ, LAYOUTD_SOCKET=daemon.path)
            run = subprocess.run([sys.executable, os.path.join(EXAMPLES, "csv_picture.py"), os.path.join(EXAMPLES, "sizes.csv"), picture],
                                 env=env, capture_output=True, text=True, timeout=60)
            self.assertEqual(run.returncode, 0, run.stderr)
            self.assertIn("60 elements", run.stdout)
            with open(picture) as handle:
                text = handle.read()
            self.assertTrue(text.startswith("<svg"))
            cells = re.findall(r'<rect class="cell" x="([\d.]+)" y="([\d.]+)" width="([\d.]+)"', text)
            self.assertEqual(len(cells), 60)
            self.assertTrue(all(float(x) + float(w) <= 480 for x, _, w in cells))
            self.assertEqual(set(re.findall(r">(photo\d+)<", text)), {"photo%d" % n for n in range(60)})


class ReadmeExample(unittest.TestCase):
    def test_complete_example_runs(self) -> None:
        with open(os.path.join(EXAMPLES, "..", "README.md")) as handle:
            block = re.findall(r"```python\n(.*?)```", handle.read(), re.S)[0]
        with Daemon() as daemon:
            env = dict(os.environ, LAYOUTD_SOCKET=daemon.path, PYTHONPATH=os.path.join(EXAMPLES, ".."))
            run = subprocess.run([sys.executable, "-c", block], env=env, capture_output=True, text=True, timeout=60)
        self.assertEqual(run.returncode, 0, run.stderr)
        self.assertIn("-32001 ViewNotFound", run.stdout)


if __name__ == "__main__":
    unittest.main()
