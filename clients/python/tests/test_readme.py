"""Every fenced block of clients/python/README.md, as its annotation says (scripts/readme_blocks.py):
``run`` blocks (and ``part`` programs) run twice against a real daemon found through
``$LAYOUTD_SOCKET`` — the second run must pass too, so an example deletes its view or picks a
unique name — and ``shell`` blocks run line by line in a scratch directory, with a scratch venv
first on PATH (``pip install clients/python`` installs into it, offline). A kind this suite
does not handle fails, and so does a shell command it does not know how to run."""
from __future__ import annotations

import importlib.util
import json
import os
import shutil
import subprocess
import sys
import tempfile
import unittest
from typing import Any, Dict, List

from support import HERE, ROOT, Daemon
from test_longlived import GLIB_PACKAGES, glib_python

README = os.path.abspath(os.path.join(HERE, "..", "README.md"))
PACKAGE = os.path.abspath(os.path.join(HERE, ".."))

_spec = importlib.util.spec_from_file_location("readme_blocks", os.path.join(ROOT, "scripts", "readme_blocks.py"))
assert _spec is not None and _spec.loader is not None
readme_blocks: Any = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(readme_blocks)

#: Shell commands the suite checks but does not run, and why.
NOT_RUN = {
    "pip install -r clients/python/requirements-test.txt": "needs PyPI (mypy); the Makefile's client-test installs it into its venv",
    "clients/python/run-tests.sh": "it runs this very suite",
}


def command(line: str) -> str:
    """A shell line without its comment and surrounding space."""
    return line.split("#", 1)[0].strip()


class Readme(unittest.TestCase):
    daemon: Daemon
    scratch = ""

    @classmethod
    def setUpClass(cls) -> None:
        cls.daemon = Daemon().start()
        cls.scratch = tempfile.mkdtemp(prefix="layoutd-readme-py-")
        # The README's paths are relative to the repository's root.
        os.symlink(os.path.join(ROOT, "clients"), os.path.join(cls.scratch, "clients"))

    @classmethod
    def tearDownClass(cls) -> None:
        cls.daemon.__exit__()
        shutil.rmtree(cls.scratch, ignore_errors=True)

    def env(self) -> Dict[str, str]:
        env = dict(os.environ, LAYOUTD_SOCKET=self.daemon.path, PYTHONPATH=PACKAGE)
        venv_bin = os.path.join(self.scratch, "venv", "bin")
        env["PATH"] = venv_bin + os.pathsep + env.get("PATH", "")
        return env

    def run_program(self, code: str, where: str) -> None:
        interpreter = sys.executable
        if "import gi" in code:
            found = glib_python()
            if found is None:
                self.skipTest("%s needs PyGObject (Debian: %s)" % (where, GLIB_PACKAGES))
            interpreter = found
        for attempt in (1, 2):
            run = subprocess.run([interpreter, "-c", code], cwd=self.scratch, env=self.env(), capture_output=True,
                                 text=True, timeout=120)
            self.assertEqual(run.returncode, 0, "%s, run %d:\n%s%s" % (where, attempt, run.stdout, run.stderr))

    def run_shell(self, code: str, where: str) -> None:
        for line in code.splitlines():
            text = command(line)
            if not text:
                continue
            skipped = [reason for known, reason in NOT_RUN.items() if known in text]
            if skipped:
                # Checked, not run: the files it names exist.
                for word in text.split():
                    if word.startswith("clients/"):
                        self.assertTrue(os.path.exists(os.path.join(ROOT, word)), "%s: %s names %s" % (where, text, word))
                print("\n[readme] %s: not run (%s): %s" % (where, skipped[0], text))
                continue
            if text.startswith("pip install"):
                venv = os.path.join(self.scratch, "venv")
                if not os.path.exists(venv):
                    subprocess.run([sys.executable, "-m", "venv", venv], check=True, capture_output=True, timeout=300)
                env = self.env()
                env.pop("PYTHONPATH")
                env["PIP_NO_INDEX"] = "1"  # offline: the package's build backend is in the tree
                run = subprocess.run(text, shell=True, cwd=self.scratch, env=env, capture_output=True, text=True, timeout=600)
                self.assertEqual(run.returncode, 0, "%s: %s\n%s%s" % (where, text, run.stdout, run.stderr))
                imported = subprocess.run([os.path.join(venv, "bin", "python"), "-c", "import layoutd, sys; print(layoutd.__file__)"],
                                          cwd="/", env=env, capture_output=True, text=True, timeout=60)
                self.assertIn("site-packages", imported.stdout, imported.stderr)
                continue
            if text.startswith("python3 "):
                run = subprocess.run(text, shell=True, cwd=self.scratch, env=self.env(), capture_output=True, text=True, timeout=300)
                self.assertEqual(run.returncode, 0, "%s: %s\n%s%s" % (where, text, run.stdout, run.stderr))
                if "longrun" in text:
                    summary = json.loads(run.stdout.strip().splitlines()[-1])
                    self.assertEqual(summary["strays"], 0, summary)
                    self.assertLess(summary["rssEndKiB"] - summary["rssWarmKiB"], 4096, summary)
                for word in text.split():
                    if word.endswith((".svg", ".png")):  # what the command writes
                        self.assertTrue(os.path.getsize(os.path.join(self.scratch, word)) > 0, "%s wrote no %s" % (where, word))
                continue
            self.fail("%s: a shell command this suite does not know how to run: %s" % (where, text))

    def test_every_block(self) -> None:
        found: List[Dict[str, Any]] = readme_blocks.blocks(README)
        self.assertGreater(len(found), 5)
        kinds: Dict[str, int] = {}
        # shell blocks first: the install makes the scratch venv the others may use.
        for block in sorted(found, key=lambda b: (b["kind"] != "shell", b["index"])):
            where = "README.md:%d (%s)" % (block["line"], block["kind"])
            kinds[block["kind"]] = kinds.get(block["kind"], 0) + 1
            with self.subTest(where):
                if block["kind"] == "run":
                    self.run_program(block["code"], where)
                elif block["kind"] == "shell":
                    self.run_shell(block["code"], where)
                elif block["kind"] == "compile":
                    compile(block["code"], where, "exec")
                elif block["kind"] == "part":
                    pass  # run below, joined
                else:
                    self.fail("%s: a block kind this suite does not handle" % where)
        for name, code in readme_blocks.programs(found).items():
            with self.subTest("part " + name):
                self.run_program(code, "README.md program %s" % name)
        self.assertIn("run", kinds)


if __name__ == "__main__":
    unittest.main()
