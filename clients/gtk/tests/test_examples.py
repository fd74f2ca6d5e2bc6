"""The examples as a user runs them, each in its own process against a real daemon:

- examples/stacks.py, docs/gtk.md's program, is run unchanged by example_driver.py (which learns
  its window, scrolls, clicks three photos, stacks them, drags one and quits) with the socket
  in $LAYOUTD_SOCKET, the view's default lookup; docs/gtk.md holds the program verbatim;
- examples/layoutd-gallery driven the same way: pre-stack stacking, a drag, the display modes,
  ultravisual and compositional;
- examples/layoutd-gallery --screenshot: 30,000 photos, three runs and a photo selected and
  stacked, a PNG of the window; then the display page in list mode and the other pages.

Run with the other GTK tests (under Xvfb, see support.py).
"""
import os
import re
import subprocess
import tempfile
import unittest

from support import BUILD, GTK_DIR, ROOT, Daemon, GdkPixbuf

EXAMPLES = os.path.join(GTK_DIR, "examples")
STACKS = os.path.join(EXAMPLES, "stacks.py")
GALLERY = os.path.join(EXAMPLES, "layoutd-gallery")
DRIVER = os.path.join(os.path.dirname(os.path.abspath(__file__)), "example_driver.py")
PYTHON = "/usr/bin/python3"


def environment(**extra):
    env = dict(os.environ)
    env["GI_TYPELIB_PATH"] = BUILD + (":" + env["GI_TYPELIB_PATH"] if env.get("GI_TYPELIB_PATH") else "")
    client = os.path.join(ROOT, "clients", "c", "build")
    env["LD_LIBRARY_PATH"] = BUILD + ":" + client + (":" + env["LD_LIBRARY_PATH"] if env.get("LD_LIBRARY_PATH") else "")
    env.setdefault("GSK_RENDERER", "cairo")
    env.pop("LAYOUTD_SOCKET", None)
    env.update(extra)
    return env


def run(args, env, timeout=180):
    result = subprocess.run(args, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            timeout=timeout)
    return result.returncode, result.stdout.decode("utf-8", "replace"), result.stderr.decode("utf-8", "replace")


class Examples(unittest.TestCase):
    def setUp(self):
        if not os.environ.get("DISPLAY") and not os.environ.get("WAYLAND_DISPLAY"):
            raise unittest.SkipTest("no display (run under xvfb-run)")
        self.daemon = Daemon().start()
        self.addCleanup(self.daemon.cleanup)
        self.dir = tempfile.mkdtemp(prefix="layoutd-gtk-examples-")

    def test_stacks_py_scrolls_stacks_and_drags_on_the_default_socket(self):
        code, out, err = run([PYTHON, DRIVER], environment(LAYOUTD_SOCKET=self.daemon.path))
        self.assertEqual(code, 0, "stdout:\n%s\nstderr:\n%s" % (out, err))
        self.assertIn("example-driver: ok", out)
        self.assertNotIn("Warning:", err, "no Python warning (PyGIWarning, RuntimeWarning, ...)")
        self.assertNotIn("CRITICAL", err)

    def test_gallery_stacks_drags_and_switches_pages(self):
        code, out, err = run([PYTHON, DRIVER, "gallery"], environment(LAYOUTD_SOCKET=self.daemon.path))
        self.assertEqual(code, 0, "stdout:\n%s\nstderr:\n%s" % (out, err))
        self.assertIn("example-driver: ok", out)
        self.assertNotIn("Warning:", err, "no Python warning (PyGIWarning, RuntimeWarning, ...)")
        self.assertNotIn("CRITICAL", err)

    def test_stacks_py_is_at_most_30_lines_and_in_the_gtk_page_verbatim(self):
        with open(STACKS) as handle:
            program = handle.read()
        self.assertLessEqual(len(program.splitlines()), 30)
        with open(os.path.join(ROOT, "docs", "gtk.md")) as handle:
            page = handle.read()
        blocks = re.findall(r"^```python\n(.*?)^```$", page, re.S | re.M)
        self.assertIn(program, blocks, "docs/gtk.md shows clients/gtk/examples/stacks.py verbatim in a ```python block")

    def screenshot(self, name, *args):
        path = os.path.join(self.dir, name)
        code, out, err = run([PYTHON, GALLERY, "--socket", self.daemon.path, "--screenshot", path, *args], environment())
        self.assertEqual(code, 0, "stdout:\n%s\nstderr:\n%s" % (out, err))
        self.assertTrue(os.path.exists(path), out + err)
        return GdkPixbuf.Pixbuf.new_from_file(path)

    @staticmethod
    def count_pixels(pixbuf, predicate):
        data = pixbuf.get_pixels()
        stride, channels = pixbuf.get_rowstride(), pixbuf.get_n_channels()
        count = 0
        for y in range(0, pixbuf.get_height(), 2):
            row = y * stride
            for x in range(0, pixbuf.get_width(), 2):
                offset = row + x * channels
                if predicate(data[offset], data[offset + 1], data[offset + 2]):
                    count += 1
        return count

    def test_gallery_screenshot_shows_30000_photos_with_stacks(self):
        picture = self.screenshot("photos.png", "--size", "800x600")
        self.assertEqual((picture.get_width(), picture.get_height()), (800, 600))
        # The selection ring and check marks are the accent colour (0.21, 0.52, 0.89).
        accent = self.count_pixels(picture, lambda r, g, b: abs(r - 54) < 12 and abs(g - 133) < 12 and abs(b - 227) < 12)
        self.assertGreater(accent, 100, "the selection is drawn")
        # Photos are colourful: many saturated pixels.
        colourful = self.count_pixels(picture, lambda r, g, b: max(r, g, b) - min(r, g, b) > 40)
        self.assertGreater(colourful, 800 * 600 / 4 / 4, "the photos are drawn")

    def test_gallery_screenshot_in_the_middle_of_stacking(self):
        settled = self.screenshot("settled.png", "--size", "800x600", "--photos", "5000")
        paused = self.screenshot("paused.png", "--size", "800x600", "--photos", "5000", "--transition-at", "0.25")
        self.assertEqual((paused.get_width(), paused.get_height()), (800, 600))
        self.assertNotEqual(paused.get_pixels(), settled.get_pixels(), "the paused transition is not the end state")

    def test_gallery_screenshots_of_the_other_pages(self):
        for page, extra in (("display", ["--mode", "list"]), ("display", ["--mode", "inline"]),
                            ("ultravisual", []), ("compositional", [])):
            with self.subTest(page=page, extra=extra):
                picture = self.screenshot("%s-%s.png" % (page, "-".join(extra) or "x"), "--page", page, "--photos", "3000", *extra)
                colourful = self.count_pixels(picture, lambda r, g, b: max(r, g, b) - min(r, g, b) > 40)
                self.assertGreater(colourful, 2000, "the %s page draws its cells" % page)


if __name__ == "__main__":
    unittest.main()
