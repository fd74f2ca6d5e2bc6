"""The library from GJS and Vala, unchanged: examples/grid.js runs under gjs on the typelib, and
examples/grid.vala compiles against a vapi that vapigen makes from Layoutd-1.gir. Each shows a
flow grid on a daemon of its own and prints the cells it shows, which must be exactly the
daemon's window (view.get) of the one view it made, and the cells a 300 x 200 window shows."""
import os
import shutil
import subprocess
import tempfile
import unittest

from support import Daemon

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
BUILD = os.path.join(ROOT, "build")


class Bindings(unittest.TestCase):
    def setUp(self):
        self.daemon = Daemon().start()
        self.addCleanup(self.daemon.cleanup)

    def run_program(self, argv):
        result = subprocess.run(argv + [self.daemon.path], capture_output=True, text=True, timeout=60)
        self.assertEqual(result.returncode, 0, result.stderr)
        shown = sorted(result.stdout.split())
        with self.daemon.client() as client:
            # The program exits without destroying its window, so its view stays in the daemon
            # (views outlive connections): the one view there, as the program last saw it.
            views = client.call("view.list", {})["views"]
            self.assertEqual(len(views), 1, views)
            snapshot = client.call("view.get", {"view": views[0]["view"]})
        self.assertEqual(shown, sorted("%s/%s" % (e["kind"], e["id"]) for e in snapshot["elements"]))
        return shown

    def expected(self, count, prefix):
        # Both programs: 90 x 60 cells (flow, 10 apart) in a 300 x 200 window: three columns,
        # rows 70 apart, and the window (the viewport plus the view's default margin of 256
        # points below it) reaches y 456: rows 0-6, items 0-20.
        return sorted("cell/%s%d" % (prefix, i) for i in range(count))

    def test_gjs(self):
        if not shutil.which("gjs"):
            self.skipTest("gjs is not installed")
        shown = self.run_program(["gjs", os.path.join(ROOT, "examples", "grid.js")])
        self.assertEqual(shown, self.expected(21, "g"))

    def test_vala(self):
        if not (shutil.which("valac") and shutil.which("vapigen")):
            self.skipTest("valac is not installed")
        work = tempfile.mkdtemp(prefix="layoutd-vala-")
        self.addCleanup(shutil.rmtree, work, True)
        subprocess.run(["vapigen", "--quiet", "--library", "layoutd-gtk-1", "--pkg", "gtk4", "--pkg", "gio-2.0",
                        "-d", work, os.path.join(BUILD, "Layoutd-1.gir")], check=True, timeout=120)
        program = os.path.join(work, "grid")
        subprocess.run(["valac", "--quiet", "--vapidir", work, "--pkg", "layoutd-gtk-1", "--pkg", "gtk4",
                        "-X", "-I" + os.path.join(ROOT, "include"), "-X", "-L" + BUILD, "-X", "-llayoutd-gtk-1",
                        "-X", "-Wl,-rpath-link=" + os.path.join(ROOT, "..", "c", "build"), "-X", "-w",
                        "-d", work, "-o", program, os.path.join(ROOT, "examples", "grid.vala")],
                       check=True, timeout=300, cwd=work)
        shown = self.run_program([program])
        self.assertEqual(shown, self.expected(21, "v"))


if __name__ == "__main__":
    unittest.main()
