#!/usr/bin/python3
"""Frame time of the GTK collection view while flinging a 100k-item flow grid.

A window (390x844, a phone's) shows a Layoutd.CollectionView of N items (flow, 90x90 cells)
against a layoutd on a temporary socket (the release build by default). For SECONDS a tick
callback moves the vertical adjustment every frame at a fling's velocity (starting at VELOCITY
pt/s and decaying as a kinetic scroll does, time constant 1.2 s), and after every frame reads
the view's get_stats(): last_frame_work_ms (the view's own work in that frame: applying the
daemon's window delta, binding and placing widgets) and the round trips so far.

Prints one JSON line: frame work p50/p95/max (ms), the frames, the round trips per frame, and
the frame clock's interval p50/p95 (Xvfb paces frames with a timer, so the interval shows missed
frames, not a display's refresh). Run under an X server; without DISPLAY it re-runs itself under
xvfb-run. Used by scripts/bench.py (`make bench`), which puts the figures in BENCHMARKS.md.
"""
import argparse
import json
import math
import os
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
GTK_DIR = os.path.dirname(HERE)
ROOT = os.path.abspath(os.path.join(GTK_DIR, "..", ".."))


def percentile(values, fraction):
    ordered = sorted(values)
    if not ordered:
        return None
    index = min(len(ordered) - 1, max(0, math.ceil(fraction * len(ordered)) - 1))
    return ordered[index]


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--binary", default=os.environ.get("LAYOUTD_BINARY") or os.path.join(ROOT, ".build", "release", "layoutd"))
    parser.add_argument("--items", type=int, default=100000)
    parser.add_argument("--seconds", type=float, default=2.0)
    parser.add_argument("--velocity", type=float, default=8000.0, help="initial fling velocity, pt/s")
    parser.add_argument("--window-margin", type=float, default=None)
    arguments = parser.parse_args()

    if not os.environ.get("DISPLAY") and shutil.which("xvfb-run"):
        os.execvp("xvfb-run", ["xvfb-run", "-a", "-s", "-screen 0 1280x1024x24", sys.executable] + sys.argv)

    build = os.path.join(GTK_DIR, "build")
    os.environ["GI_TYPELIB_PATH"] = build + (":" + os.environ["GI_TYPELIB_PATH"] if os.environ.get("GI_TYPELIB_PATH") else "")
    os.environ.setdefault("GSK_RENDERER", "cairo")
    os.environ.setdefault("GDK_BACKEND", "x11")
    os.environ.setdefault("GTK_A11Y", "none")
    if os.path.join(GTK_DIR, "build") not in os.environ.get("LD_LIBRARY_PATH", ""):
        # The typelib names the library by soname: the loader must find it (and the C client).
        os.environ["LD_LIBRARY_PATH"] = "%s:%s%s" % (build, os.path.join(ROOT, "clients", "c", "build"),
                                                     ":" + os.environ["LD_LIBRARY_PATH"] if os.environ.get("LD_LIBRARY_PATH") else "")
        os.execv(sys.executable, [sys.executable] + sys.argv)

    import gi
    gi.require_version("Gtk", "4.0")
    gi.require_version("Layoutd", "1")
    from gi.repository import Gio, GLib, Gtk, Layoutd

    directory = tempfile.mkdtemp(prefix="layoutd-gtk-bench-")
    socket_path = os.path.join(directory, "ipc.sock")
    daemon = subprocess.Popen([arguments.binary, "--socket", socket_path, "--log-level", "warning", "--set", "default-plugin-dir=none"],
                              stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    context = GLib.MainContext.default()

    def iterate_until(condition, timeout, what):
        deadline = time.monotonic() + timeout
        wake = GLib.timeout_add(5, lambda: True)
        try:
            while not condition():
                if time.monotonic() > deadline:
                    raise RuntimeError("timed out waiting for " + what)
                context.iteration(True)
        finally:
            GLib.source_remove(wake)

    try:
        deadline = time.monotonic() + 20
        while not os.path.exists(socket_path):
            if daemon.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError("layoutd did not start")
            time.sleep(0.01)

        store = Gio.ListStore(item_type=Layoutd.Item)
        store.splice(0, 0, [Layoutd.Item(id="i%d" % i) for i in range(arguments.items)])
        factory = Layoutd.CellFactory()
        factory.connect("setup", lambda _f, item: item.set_child(Gtk.Label()))
        factory.connect("bind", lambda _f, item: item.get_child().set_label(item.get_id()))
        errors = []
        view = Layoutd.CollectionView(view_name="bench-fling", strategy="flow", factory=factory)
        view.connect("error", lambda _v, error: errors.append(error.message))
        view.set_property("parameters", json.dumps({"itemSize": {"width": 90, "height": 90}}))
        if arguments.window_margin is not None:
            view.set_property("window-margin", arguments.window_margin)
        view.set_model(store)
        view.set_property("socket-path", socket_path)
        scrolled = Gtk.ScrolledWindow()
        scrolled.set_child(view)
        window = Gtk.Window()
        window.set_default_size(390, 844)
        window.set_child(scrolled)
        window.present()
        iterate_until(lambda: errors or (view.get_state() == Layoutd.ViewState.READY and view.is_idle()), 60, "the view to be ready")
        if errors:
            raise RuntimeError("error signal: %s" % errors)

        adjustment = view.get_vadjustment()
        work, intervals = [], []
        state = {"start": None, "last": None, "frames": None, "round_trips": None, "first": None, "done": False, "moved": 0}

        def tick(widget, clock):
            now = clock.get_frame_time() / 1e6
            frames, round_trips, last_work = view.get_stats()
            if state["start"] is None:
                state.update(start=now, last=now, first=(frames, round_trips), frames=frames)
                return True
            if frames != state["frames"]:
                # last_frame_work_ms is the work since the view's previous frame: the first one
                # after the fling starts still holds the set-up's (the first window's binding).
                if state["moved"] >= 2:
                    work.append(last_work)
                state["frames"] = frames
            elapsed = now - state["start"]
            intervals.append((now - state["last"]) * 1000)
            dt = now - state["last"]
            state["last"] = now
            if elapsed >= arguments.seconds:
                state["done"] = True
                state["end"] = (frames, round_trips)
                return False
            velocity = arguments.velocity * math.exp(-elapsed / 1.2)
            state["moved"] += 1
            adjustment.set_value(min(adjustment.get_value() + velocity * dt, adjustment.get_upper() - adjustment.get_page_size()))
            return True

        start_value = adjustment.get_value()
        view.add_tick_callback(tick)
        iterate_until(lambda: state["done"], arguments.seconds + 30, "the fling")
        frames = state["end"][0] - state["first"][0]
        round_trips = state["end"][1] - state["first"][1]
        row = {
            "group": "gtk", "name": "GTK view frame work while flinging a flow grid", "n": arguments.items, "unit": "ms",
            "median": percentile(work, 0.5), "p50_ms": percentile(work, 0.5), "p95_ms": percentile(work, 0.95), "max_ms": max(work) if work else None,
            "low": min(work) if work else None, "high": max(work) if work else None,
            "frames": frames, "ticks": len(intervals), "seconds": arguments.seconds,
            "round_trips": round_trips, "round_trips_per_frame": round_trips / frames if frames else None,
            "interval_p50_ms": percentile(intervals, 0.5), "interval_p95_ms": percentile(intervals, 0.95),
            "distance_pt": adjustment.get_value() - start_value, "initial_velocity": arguments.velocity,
            "widgets": view.get_widget_count(), "errors": len(errors), "daemon": arguments.binary,
            "max_at_frame": work.index(max(work)) if work else None,
        }
        print(json.dumps(row), flush=True)
        window.destroy()
    finally:
        daemon.terminate()
        try:
            daemon.wait(15)
        except subprocess.TimeoutExpired:
            daemon.kill()
            daemon.wait()
        shutil.rmtree(directory, ignore_errors=True)


if __name__ == "__main__":
    main()
