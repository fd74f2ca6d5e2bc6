"""What the GTK collection view's tests share: a real layoutd per test on a temporary socket, a
window holding a Layoutd.CollectionView, polling the GLib main context until a condition holds
(with a deadline, never a fixed sleep), and the daemon's own answers through the Python client
(clients/python) on the same view name, which are the truth the widget is held to.

Run under Xvfb with Debian's /usr/bin/python3 (python3-gi) and GSK_RENDERER=cairo:
    GI_TYPELIB_PATH=clients/gtk/build LD_LIBRARY_PATH=clients/gtk/build:clients/c/build \\
    xvfb-run -a -s "-screen 0 1280x1024x24" /usr/bin/python3 -m unittest discover -s clients/gtk/tests
"""
import gc
import hashlib
import json
import math
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
GTK_DIR = os.path.dirname(HERE)
ROOT = os.path.abspath(os.path.join(GTK_DIR, "..", ".."))
BUILD = os.path.join(GTK_DIR, "build")
SCREENSHOTS = os.path.join(BUILD, "screenshots")

os.environ.setdefault("GSK_RENDERER", "cairo")
os.environ.setdefault("GDK_BACKEND", "x11")
os.environ.setdefault("GTK_A11Y", "none")  # no session bus under Xvfb
os.environ["GI_TYPELIB_PATH"] = BUILD + (":" + os.environ["GI_TYPELIB_PATH"] if os.environ.get("GI_TYPELIB_PATH") else "")

sys.path.insert(0, os.path.join(ROOT, "clients", "python"))
import layoutd  # noqa: E402  (the Python client: the daemon's truth)

import gi  # noqa: E402

gi.require_version("Gtk", "4.0")
gi.require_version("Gdk", "4.0")
gi.require_version("Gsk", "4.0")
gi.require_version("Graphene", "1.0")
gi.require_version("GdkPixbuf", "2.0")
gi.require_version("Layoutd", "1")
from gi.repository import Gdk, GdkPixbuf, Gio, GLib, Graphene, Gsk, Gtk, Layoutd  # noqa: E402,F401


def daemon_binary():
    for candidate in (os.environ.get("LAYOUTD_BINARY"), "/tmp/stable/layoutd", os.path.join(ROOT, ".build", "debug", "layoutd")):
        if candidate and os.access(candidate, os.X_OK):
            return candidate
    raise unittest.SkipTest("no layoutd binary (set LAYOUTD_BINARY)")


def plugin_dir():
    """A directory holding the waterfall plugin: LAYOUTD_PLUGIN_DIR, the tree's debug (then
    release) build, or /tmp/stable/plugins."""
    for candidate in (os.environ.get("LAYOUTD_PLUGIN_DIR"), os.path.join(ROOT, ".build", "plugins", "debug"),
                      os.path.join(ROOT, ".build", "plugins", "release"), "/tmp/stable/plugins"):
        if candidate and os.path.exists(os.path.join(candidate, "waterfall.so")):
            return candidate
    return None


class Daemon:
    """One layoutd on a socket in a fresh directory; `restart()` starts a new process on the same
    socket."""

    def __init__(self, plugins=False, binary=None):
        self.binary = binary or daemon_binary()
        self.dir = tempfile.mkdtemp(prefix="layoutd-gtk-")
        self.path = os.path.join(self.dir, "ipc.sock")
        self.log_path = os.path.join(self.dir, "layoutd.log")
        self.args = ["--set", "default-plugin-dir=none"]
        if plugins:
            directory = plugin_dir()
            if directory is None:
                raise unittest.SkipTest("no waterfall.so plugin")
            self.args += ["--plugin-dir", directory]
        self.process = None

    def start(self):
        with open(self.log_path, "ab") as log:
            self.process = subprocess.Popen([self.binary, "--socket", self.path, "--log-level", "warning"] + self.args,
                                            stdin=subprocess.DEVNULL, stdout=log, stderr=log)
        deadline = time.monotonic() + 20
        while True:
            if self.process.poll() is not None:
                raise RuntimeError("layoutd exited with %s:\n%s" % (self.process.returncode, self.read_log()))
            try:
                with layoutd.Client(self.path, timeout=5) as client:
                    client.call("daemon.hello", {"protocol": [1]})
                    return self
            except (OSError, layoutd.LayoutdError, layoutd.ClientError):
                pass
            if time.monotonic() > deadline:
                raise RuntimeError("layoutd did not serve within 20 s:\n" + self.read_log())
            # Not a fixed wait for an outcome: a short pause between two connection attempts.
            time.sleep(0.01)

    def read_log(self):
        try:
            with open(self.log_path, "rb") as handle:
                return handle.read().decode("utf-8", "replace")[-4000:]
        except OSError:
            return ""

    def kill(self, sig=signal.SIGKILL):
        if self.process and self.process.poll() is None:
            self.process.send_signal(sig)
            self.process.wait(15)

    def stop(self):
        if self.process and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(15)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()

    def cleanup(self):
        self.stop()
        shutil.rmtree(self.dir, ignore_errors=True)

    def client(self):
        return layoutd.Client(self.path, timeout=20)


def iterate_until(condition, timeout=10.0, what="condition"):
    """Runs the default GLib main context until `condition()` is true; AssertionError after
    `timeout` seconds. A 5 ms timeout source keeps iteration(True) from blocking forever."""
    context = GLib.MainContext.default()
    deadline = time.monotonic() + timeout
    wake = GLib.timeout_add(5, lambda: True)
    try:
        while not condition():
            if time.monotonic() > deadline:
                raise AssertionError("timed out after %.1f s waiting for %s" % (timeout, what))
            context.iteration(True)
    finally:
        GLib.source_remove(wake)


def drain(frames=2, timeout=5.0):
    """Lets the frame clock tick `frames` more times (layout and paint run)."""
    seen = []
    # A tick on the first toplevel is enough: every window shares the X11 frame pacing.
    windows = Gtk.Window.list_toplevels()
    if not windows:
        return
    widget = windows[0]
    handle = widget.add_tick_callback(lambda *_: seen.append(1) or True)
    try:
        iterate_until(lambda: len(seen) >= frames, timeout, "%d frames" % frames)
    finally:
        widget.remove_tick_callback(handle)


def items(count, sections=None, prefix="i"):
    """Layoutd.Item objects: `count` items in one section "s", or `sections` = [(id, count), ...]."""
    if sections is None:
        sections = [("s", count)]
    out = []
    number = 0
    for section, n in sections:
        for _ in range(n):
            out.append(Layoutd.Item(id="%s%d" % (prefix, number), section=section))
            number += 1
    return out


def list_store(objects):
    store = Gio.ListStore(item_type=Layoutd.Item)
    store.splice(0, 0, objects)
    return store


def color_for(identifier):
    """A distinct opaque colour per id (screenshots check each cell is drawn in its own colour,
    so neighbours must differ clearly: the channels come from a digest of the id)."""
    digest = hashlib.md5(identifier.encode()).digest()
    return tuple(0.1 + 0.8 * byte / 255 for byte in digest[:3])


class Cells:
    """A CellFactory (and the same for supplementary kinds) whose cells are DrawingAreas filled
    with the id's colour; keeps every bound child by (kind, id) so tests can read the real
    allocation of the widget GTK draws."""

    def __init__(self):
        self.bound = {}
        self.setups = 0
        self.teardowns = 0
        self.factory = self.make()

    def make(self):
        factory = Layoutd.CellFactory()
        factory.connect("setup", self.on_setup)
        factory.connect("bind", self.on_bind)
        factory.connect("unbind", self.on_unbind)
        factory.connect("teardown", self.on_teardown)
        return factory

    def on_setup(self, factory, list_item):
        self.setups += 1
        area = Gtk.DrawingArea()
        area.color = (0.5, 0.5, 0.5)
        area.set_draw_func(self.draw)
        list_item.set_child(area)

    @staticmethod
    def draw(area, cr, width, height):
        cr.set_source_rgb(*area.color)
        cr.rectangle(0, 0, width, height)
        cr.fill()

    def on_bind(self, factory, list_item):
        child = list_item.get_child()
        child.color = color_for(list_item.get_id())
        child.queue_draw()
        self.bound[(list_item.get_kind(), list_item.get_id())] = child

    def on_unbind(self, factory, list_item):
        key = (list_item.get_kind(), list_item.get_id())
        if self.bound.get(key) is list_item.get_child():
            del self.bound[key]

    def on_teardown(self, factory, list_item):
        self.teardowns += 1


class ViewTestCase(unittest.TestCase):
    """A daemon per test, and helpers to show a view in a window and read the daemon's truth."""

    plugins = False
    window_size = (400, 600)

    def setUp(self):
        self.daemon = Daemon(plugins=self.plugins).start()
        self.addCleanup(self.daemon.cleanup)
        self.truth = self.daemon.client()
        self.addCleanup(self.truth.close)
        self.windows = []
        self.cells = {}
        self.errors = []
        self.log_problems = []
        handler = GLib.log_set_handler("Layoutd", GLib.LogLevelFlags.LEVEL_WARNING | GLib.LogLevelFlags.LEVEL_CRITICAL,
                                       lambda domain, level, message, *_: self.log_problems.append("%s: %s" % (domain, message)))
        self.addCleanup(GLib.log_remove_handler, "Layoutd", handler)
        self.addCleanup(self.close_windows)

    def run(self, result=None):
        started = time.monotonic()
        try:
            return super().run(result)
        finally:
            if os.environ.get("LAYOUTD_GTK_TIMES"):
                print("  %.2f s %s" % (time.monotonic() - started, self.id()), file=sys.stderr)

    def tearDown(self):
        self.assertEqual(self.log_problems, [], "the library logged warnings or criticals")

    def close_windows(self):
        for window in self.windows:
            window.destroy()
        self.windows = []
        self.cells = {}
        for key, value in list(vars(self).items()):
            if isinstance(value, (Gtk.Widget, Gio.ListModel)):
                setattr(self, key, None)
        # The views are finalized (closing their connections) once nothing holds them.
        gc.collect()
        # Let the destruction (and the view's view.delete) go out.
        context = GLib.MainContext.default()
        for _ in range(50):
            if not context.iteration(False):
                break

    def show_view(self, name, strategy="flow", parameters=None, model=None, rtl=False, animated=True, size=None,
                  window_margin=None, socket_path=None, supplementary=("header", "footer"), wait=True, **properties):
        """A window with a ScrolledWindow holding a CollectionView; waits until READY and idle."""
        cells = Cells()
        view = Layoutd.CollectionView(view_name=name, strategy=strategy, factory=cells.factory, animated=animated, **properties)
        # The error handler first: a refusal may come as soon as the view has what it needs.
        view.connect("error", lambda _view, error: self.errors.append(error))
        view.set_property("parameters", parameters if isinstance(parameters, str) else json.dumps(parameters or {}))
        for kind in supplementary:
            view.set_supplementary_factory(kind, cells.make())
        if window_margin is not None:
            view.set_property("window-margin", window_margin)
        view.set_property("socket-path", socket_path or self.daemon.path)
        if rtl:
            view.set_direction(Gtk.TextDirection.RTL)
        view.set_model(model if model is not None else list_store(items(60)))
        scrolled = Gtk.ScrolledWindow()
        scrolled.set_child(view)
        window = Gtk.Window()
        width, height = size or self.window_size
        window.set_default_size(width, height)
        window.set_child(scrolled)
        if rtl:
            window.set_direction(Gtk.TextDirection.RTL)
            scrolled.set_direction(Gtk.TextDirection.RTL)
        window.present()
        self.windows.append(window)
        # Kept by the test, not as Python attributes of the view: those would keep its wrapper,
        # and so the widget and its connection, alive after the window is destroyed.
        self.cells[name] = cells
        if wait:
            self.wait_ready(view)
        return view

    def wait_ready(self, view, timeout=20):
        iterate_until(lambda: view.get_state() == Layoutd.ViewState.READY or self.errors or view.get_state() == Layoutd.ViewState.FAILED,
                      timeout, "the view to become READY")
        self.assertEqual(self.errors, [], "error signal")
        self.assertEqual(view.get_state(), Layoutd.ViewState.READY)
        self.wait_idle(view)

    def wait_idle(self, view, timeout=20, frames=2):
        iterate_until(view.is_idle, timeout, "the view to be idle")
        drain(frames)
        iterate_until(view.is_idle, timeout, "the view to be idle")

    def snapshot(self, name):
        return self.truth.call("view.get", {"view": name})

    def query_all(self, name, rect):
        elements, after = [], None
        while True:
            params = {"view": name, "rect": rect}
            if after:
                params["after"] = after
            page = self.truth.call("view.query", params)
            elements += page["elements"]
            after = page.get("next")
            if not after:
                return elements

    def data_order(self, name):
        """Every item id in the daemon's data order (section, item)."""
        snapshot = self.snapshot(name)
        size = snapshot["contentSize"]
        cells = [e for e in self.query_all(name, {"x": -1, "y": -1, "width": size["width"] + 2, "height": size["height"] + 2})
                 if e["kind"] == "cell"]
        cells.sort(key=lambda e: (e["section"], e["item"]))
        return [e["id"] for e in cells]

    def allocation(self, view, kind, identifier):
        found, rect, alpha = view.get_element_allocation(kind, identifier)
        if not found:
            return None, None
        return (rect.get_x(), rect.get_y(), rect.get_width(), rect.get_height()), alpha

    def assert_matches_daemon(self, view, name, kinds=("cell", "header", "footer"), places=3, label=""):
        """The widget's elements are the daemon's window, each allocated at its frame minus the
        content offset (get_element_allocation exactly; the child widget GTK draws within a
        pixel), with the daemon's alpha; the viewport is the widget's size."""
        snapshot = self.snapshot(name)
        offset = snapshot["viewport"]["offset"]
        self.assertAlmostEqual(snapshot["viewport"]["width"], view.get_width(), delta=1, msg=label)
        self.assertAlmostEqual(snapshot["viewport"]["height"], view.get_height(), delta=1, msg=label)
        expected = {"%s/%s" % (e["kind"], e["id"]): e for e in snapshot["elements"] if e["kind"] in kinds}
        shown = set(e for e in view.list_elements() if e.split("/", 1)[0] in kinds)
        self.assertEqual(shown, set(expected), "%s: the widgets are the daemon's window (offset %s)" % (label, offset))
        self.assertGreater(len(expected), 0, label)
        for key, element in expected.items():
            kind, identifier = key.split("/", 1)
            frame = element["frame"]
            want = (frame["x"] - offset["x"], frame["y"] - offset["y"], frame["width"], frame["height"])
            got, alpha = self.allocation(view, kind, identifier)
            self.assertIsNotNone(got, "%s: %s has no allocation" % (label, key))
            for a, b, field in zip(got, want, "xywh"):
                self.assertAlmostEqual(a, b, places=places, msg="%s: %s %s: widget %s, daemon frame minus offset %s (offset %s)" % (
                    label, key, field, got, want, offset))
            self.assertAlmostEqual(alpha, element["alpha"], places=3, msg="%s: %s alpha" % (label, key))
            child = self.cells[name].bound.get((kind, identifier))
            if child is not None and not element["hidden"]:
                ok, bounds = child.compute_bounds(view)
                self.assertTrue(ok, key)
                real = (bounds.get_x(), bounds.get_y(), bounds.get_width(), bounds.get_height())
                for a, b, field in zip(real, want, "xywh"):
                    self.assertLessEqual(abs(a - b), 1.0, "%s: %s child widget %s: GTK bounds %s, frame minus offset %s" % (
                        label, key, field, real, want))
        return snapshot

    def model_ids(self, model):
        return [model.get_item(i).get_property("id") for i in range(model.get_n_items())]


def cubic_bezier(x1, y1, x2, y2):
    """CSS cubic-bezier(x1, y1, x2, y2) from (0,0) to (1,1): solve x(s) = e by bisection, take
    y(s) (protocol/mutations.md, transition curves). Written here, not taken from a client."""
    def bez(s, p1, p2):
        return 3 * (1 - s) ** 2 * s * p1 + 3 * (1 - s) * s * s * p2 + s ** 3

    def curve(e):
        if e <= 0:
            return 0.0
        if e >= 1:
            return 1.0
        low, high = 0.0, 1.0
        for _ in range(80):
            mid = (low + high) / 2
            if bez(mid, x1, x2) < e:
                low = mid
            else:
                high = mid
        return bez((low + high) / 2, y1, y2)
    return curve


CURVES = {
    "linear": lambda e: min(1.0, max(0.0, e)),
    "easeIn": cubic_bezier(0.42, 0, 1, 1),
    "easeOut": cubic_bezier(0, 0, 0.58, 1),
    "easeInOut": cubic_bezier(0.42, 0, 0.58, 1),
}


def segment_frame(segments, t):
    """An element's frame and alpha at time t from its segments (protocol/mutations.md: before
    the first segment at its `from`, between segments at the previous `to`)."""
    segments = sorted(segments, key=lambda s: s["delay"])
    current = segments[0]["from"]
    for segment in segments:
        if t < segment["delay"]:
            break
        if segment["duration"] <= 0 or t >= segment["delay"] + segment["duration"]:
            current = segment["to"]
            continue
        p = CURVES[segment["curve"]]((t - segment["delay"]) / segment["duration"])
        a, b = segment["from"], segment["to"]
        frame = {k: a["frame"][k] + (b["frame"][k] - a["frame"][k]) * p for k in ("x", "y", "width", "height")}
        return frame, a["alpha"] + (b["alpha"] - a["alpha"]) * p
    return current["frame"], current["alpha"]


def is_close(a, b, tolerance=1e-3):
    return math.isclose(a, b, abs_tol=tolerance)
