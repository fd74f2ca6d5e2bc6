"""mypy --strict over the package and the example (skipped only when mypy is not installed:
``pip install -r clients/python/requirements-test.txt``), and an offline ``pip install``."""
from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
import tempfile
import unittest

PACKAGE = os.path.abspath(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))


class Package(unittest.TestCase):
    def test_mypy_strict(self) -> None:
        if importlib.util.find_spec("mypy") is None:
            self.skipTest("mypy is not installed for %s: pip install -r clients/python/requirements-test.txt" % sys.executable)
        with tempfile.TemporaryDirectory() as cache:
            run = subprocess.run([sys.executable, "-m", "mypy", "--strict", "--cache-dir", cache, "layoutd", "examples/csv_picture.py",
                                  "examples/select_loop.py", "examples/asyncio_loop.py", "examples/glib_loop.py"],
                                 cwd=PACKAGE, capture_output=True, text=True, timeout=600)
        self.assertEqual(run.returncode, 0, run.stdout + run.stderr)
        self.assertIn("Success", run.stdout)

    def test_pip_install_offline(self) -> None:
        if importlib.util.find_spec("pip") is None:
            self.skipTest("pip is not installed for %s" % sys.executable)
        with tempfile.TemporaryDirectory() as target:
            run = subprocess.run([sys.executable, "-m", "pip", "install", "--no-index", "--no-deps", "--no-cache-dir",
                                  "--disable-pip-version-check", "--target", target, PACKAGE],
                                 capture_output=True, text=True, timeout=300)
            self.assertEqual(run.returncode, 0, run.stdout + run.stderr)
            check = subprocess.run([sys.executable, "-c", "import layoutd, sys; print(layoutd.__file__); "
                                    "assert layoutd.ViewNotFound.CODE == -32001"],
                                   cwd=target, capture_output=True, text=True, env=dict(os.environ, PYTHONPATH=target))
            self.assertEqual(check.returncode, 0, check.stderr)
            self.assertTrue(check.stdout.startswith(target))
            self.assertTrue(os.path.exists(os.path.join(target, "layoutd", "py.typed")))


if __name__ == "__main__":
    unittest.main()
